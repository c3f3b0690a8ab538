/**
 * The mutable tally behind {@link TransportCounters}. Both transports count the same events through it,
 * so the conformance suite can assert one meaning for every counter.
 */
import { DROP_REASONS, type DropReason, type TransportCounters } from './transport.js';

/** A fresh set of counters, all zero. */
export function zeroCounters(): TransportCounters {
  const drops = {} as Record<DropReason, number>;
  for (const reason of DROP_REASONS) drops[reason] = 0;
  return {
    datagramsIn: 0,
    datagramBytesIn: 0,
    datagramsOut: 0,
    datagramBytesOut: 0,
    datagramSendErrors: 0,
    connectionsIn: 0,
    connectionsOpen: 0,
    streamsIn: 0,
    streamBytesIn: 0,
    streamsOut: 0,
    streamBytesOut: 0,
    streamSendErrors: 0,
    drops,
  };
}

/** A copy of `counters` that later counting does not change, with the gauge of open connections. */
export function snapshotCounters(counters: TransportCounters, connectionsOpen: number): TransportCounters {
  return { ...counters, connectionsOpen, drops: { ...counters.drops } };
}
