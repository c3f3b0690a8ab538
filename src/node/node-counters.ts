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
  /** Datagrams received (delivered by the transport to the codec). */
  packetsIn: number;
  /** Datagrams handed to the operating system (delivery is not known). */
  packetsOut: number;
  /** Bytes of the datagrams received, sealing included. */
  bytesIn: number;
  /** Bytes of the datagrams sent, sealing included. */
  bytesOut: number;
  /** Datagrams the operating system refused to send. */
  sendErrors: number;
  /** State-sync (push-pull) messages received over TCP, each one complete frame. */
  streamsIn: number;
  /** State-sync messages sent over TCP whose send completed. */
  streamsOut: number;
  /** Payload bytes of the state-sync messages received. */
  streamBytesIn: number;
  /** Payload bytes of the state-sync messages sent. */
  streamBytesOut: number;
  /** State-sync sends that failed (refused, timed out, reset). */
  streamSendErrors: number;
  /** Push-pull (state sync) messages the protocol sent, requests and replies; fallback pings not included. */
  pushPulls: number;
  /** Inbound bytes dropped, by reason: the codec's (a bad packet) and the transport's (a bad stream). */
  drops: Record<WireDropReason | TransportDropReason, number>;
  /** Direct probes sent (one per protocol period with a member to probe). */
  probes: number;
  /** Probes that ended with no ack by any path (direct, indirect or the TCP fallback). */
  probesFailed: number;
  /** Ping-req rounds started after a failed direct probe. */
  indirectProbes: number;
  /** Nacks this member sent as an intermediary of a ping-req whose target had not answered in time. */
  nacksSent: number;
  /** Nacks received from intermediaries: they answered, so a missing ack says little of this member. */
  nacksReceived: number;
  /** Suspicions this member raised itself (not those it heard in gossip). */
  suspicions: number;
  /** Suspicions of this member that it refuted with a higher incarnation. */
  refutations: number;
  /** Suspicions of other members that this member saw refuted: suspects it held that came back alive. */
  refutationsSeen: number;
  /** Members this member declared dead itself: a suspicion of them timed out here unrefuted. */
  deaths: number;
  /** Protocol timers that fired more than half a probe timeout late: this process's own stalls. */
  lateTimers: number;
  /** Connections tried to members' ports as evidence (late acks, and checks of others' refusals). */
  connectProbes: number;
  /** Of those, the ones the member's host refused: nothing listened on its port. */
  connectsRefused: number;
  /** TCP fallback pings sent over a stream when a probe's datagrams went unanswered. */
  fallbackPings: number;
  /** Of those, the ones answered in time: probes that did not fail thanks to the fallback. */
  fallbackAcks: number;
  /** Other members' fallback pings that this member answered. */
  fallbackPingsAnswered: number;
  /** Watches opened on the members this one watches: the death watch (docs/membership.md, "Kernel evidence"). */
  watchesOpened: number;
  /** Watches that ended `closed`: the watched member's host closed the connection (its process ended). */
  watchesClosed: number;
  /** Alive statements the `filterAlive` delegate refused: members kept out. */
  aliveRefused: number;
  /** State exchanges the `filterMerge` delegate refused: nothing of them merged. */
  mergesRefused: number;
  /** Delegate calls that threw or answered something unusable (each also logged at warn). */
  delegateErrors: number;
  /** Name conflicts this member reported: one per `conflict` event. */
  nameConflicts: number;
  /**
   * Statements that claimed a member's incarnation far above the one held (docs/membership.md, "Forged
   * statements"): accusations dropped, alive statements believed at the cap. Non-zero without a keyring
   * means someone forges statements, or a member restarted while held alive.
   */
  incarnationJumps: number;
  /**
   * Spells in which this member said it was busy: its timers kept firing late, its CPU behind
   * (docs/membership.md, "Busy members"). The others spared it while they lasted.
   */
  busySpells: number;
  /** Failed probes of members that had said they were busy: excused, with no helpers and no suspicion. */
  busyExcused: number;
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
    pushPulls: core?.streamsSent ?? 0,
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
    refutationsSeen: core?.refutationsSeen ?? 0,
    deaths: core?.deathsDeclared ?? 0,
    lateTimers: core?.lateTimers ?? 0,
    connectProbes: core?.connectProbes ?? 0,
    connectsRefused: core?.connectsRefused ?? 0,
    fallbackPings: core?.fallbackPings ?? 0,
    fallbackAcks: core?.fallbackAcks ?? 0,
    fallbackPingsAnswered: core?.fallbackPingsAnswered ?? 0,
    watchesOpened: core?.watchesOpened ?? 0,
    watchesClosed: core?.watchesClosed ?? 0,
    aliveRefused: core?.aliveRefused ?? 0,
    mergesRefused: core?.mergesRefused ?? 0,
    delegateErrors: core?.delegateErrors ?? 0,
    nameConflicts: core?.nameConflicts ?? 0,
    incarnationJumps: core?.incarnationJumps ?? 0,
    busySpells: core?.busySpells ?? 0,
    busyExcused: core?.busyExcused ?? 0,
  };
}
