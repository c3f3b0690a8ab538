/**
 * Runs the transport conformance suite on every implementation: the UDP/TCP transport on 127.0.0.1 with
 * ephemeral ports, and the in-memory network (with immediate delivery, and with a 3 ms latency on the
 * virtual clock).
 */
import { describeTransportConformance } from './transport-conformance.js';
import { MemoryHarness, NetHarness } from './transport-harness.js';

describeTransportConformance('UDP/TCP on 127.0.0.1', () => new NetHarness('127.0.0.1'));
describeTransportConformance('memory', () => new MemoryHarness());
describeTransportConformance('memory with 3 ms latency', () => new MemoryHarness(3));
