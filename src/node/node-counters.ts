/**
 * The counters a node exposes: traffic from the transport, drops from the transport and the codec, and
 * protocol activity from the core, merged into one plain object that is cheap to read and to serialise
 * (for logs, metrics exporters, tests).
 */
import type { SwimCounters } from '../swim/counters.js';
import type { TransportCounters, DropReason as TransportDropReason } from '../transport/transport.js';
import type { DropCounters, DropReason as WireDropReason } from '../wire/drop-reason.js';

/** Every counter of a node, cumulative since it started. */
export interface NodeCounters {
  /** Datagrams received and sent, with their bytes. */
  packetsIn: number;
  packetsOut: number;
  bytesIn: number;
  bytesOut: number;
  /** Datagrams the operating system refused to send. */
  sendErrors: number;
  /** State-sync messages received and sent (TCP), with their bytes; failed sends. */
  streamsIn: number;
  streamsOut: number;
  streamBytesIn: number;
  streamBytesOut: number;
  streamSendErrors: number;
  /** Inbound bytes dropped, by reason: the codec's (a bad packet) and the transport's (a bad stream). */
  drops: Record<WireDropReason | TransportDropReason, number>;
  /** Direct probes sent, and those that ended without an ack. */
  probes: number;
  probesFailed: number;
  /** Ping-req rounds started after a failed direct probe. */
  indirectProbes: number;
  nacksSent: number;
  nacksReceived: number;
  /** Suspicions this member raised itself, refutations of suspicions of itself, deaths it declared. */
  suspicions: number;
  refutations: number;
  deaths: number;
  /** Protocol timers that fired more than half a probe timeout late: this process's own stalls. */
  lateTimers: number;
  /** Connections tried to members' ports as evidence, and those their hosts refused. */
  connectProbes: number;
  connectsRefused: number;
  /**
   * The TCP fallback probe: pings sent over a stream when a probe's datagrams went unanswered, those
   * answered in time (a probe that did not fail), and other members' fallback pings answered.
   */
  fallbackPings: number;
  fallbackAcks: number;
  fallbackPingsAnswered: number;
  /**
   * Watches opened on the members this one watches, and those that closed: the death watch
   * (`src/swim/death-watch.ts`).
   */
  watchesOpened: number;
  watchesClosed: number;
}

/** The datagram counters of a node or heartbeat monitor, from its transport (zero before it started). */
export function datagramTraffic(transport: TransportCounters | undefined): {
  packetsIn: number;
  packetsOut: number;
  bytesIn: number;
  bytesOut: number;
  sendErrors: number;
} {
  return {
    packetsIn: transport?.datagramsIn ?? 0,
    packetsOut: transport?.datagramsOut ?? 0,
    bytesIn: transport?.datagramBytesIn ?? 0,
    bytesOut: transport?.datagramBytesOut ?? 0,
    sendErrors: transport?.datagramSendErrors ?? 0,
  };
}

/** Merges the three sources; any of them may be missing before the node started. */
export function nodeCounters(
  core: Readonly<SwimCounters> | undefined,
  transport: TransportCounters | undefined,
  wire: Readonly<DropCounters>,
): NodeCounters {
  return {
    ...datagramTraffic(transport),
    streamsIn: transport?.streamsIn ?? 0,
    streamsOut: transport?.streamsOut ?? 0,
    streamBytesIn: transport?.streamBytesIn ?? 0,
    streamBytesOut: transport?.streamBytesOut ?? 0,
    streamSendErrors: transport?.streamSendErrors ?? 0,
    drops: {
      ...wire,
      truncated: transport?.drops.truncated ?? 0,
      timeout: transport?.drops.timeout ?? 0,
      'connection-limit': transport?.drops['connection-limit'] ?? 0,
      'no-handler': transport?.drops['no-handler'] ?? 0,
      'handler-error': transport?.drops['handler-error'] ?? 0,
      // Both layers can reject something as too large: a datagram (codec) or a stream frame (transport).
      'too-large': wire['too-large'] + (transport?.drops['too-large'] ?? 0),
    },
    probes: core?.probes ?? 0,
    probesFailed: core?.probesFailed ?? 0,
    indirectProbes: core?.indirectProbes ?? 0,
    nacksSent: core?.nacksSent ?? 0,
    nacksReceived: core?.nacksReceived ?? 0,
    suspicions: core?.suspicionsRaised ?? 0,
    refutations: core?.refutations ?? 0,
    deaths: core?.deathsDeclared ?? 0,
    lateTimers: core?.lateTimers ?? 0,
    connectProbes: core?.connectProbes ?? 0,
    connectsRefused: core?.connectsRefused ?? 0,
    fallbackPings: core?.fallbackPings ?? 0,
    fallbackAcks: core?.fallbackAcks ?? 0,
    fallbackPingsAnswered: core?.fallbackPingsAnswered ?? 0,
    watchesOpened: core?.watchesOpened ?? 0,
    watchesClosed: core?.watchesClosed ?? 0,
  };
}
