/**
 * The counters a heartbeat monitor exposes: traffic from the transport, drops from the codec and the
 * core, and what the core concluded, merged into one plain object that is cheap to read and to serialise.
 */
import type { HeartbeatCoreCounters } from '../heartbeat/heartbeat-core.js';
import type { TransportCounters } from '../transport/transport.js';
import type { DropCounters, DropReason as WireDropReason } from '../wire/drop-reason.js';
import { datagramTraffic } from './node-counters.js';

/**
 * Why a datagram did not count as a heartbeat: the codec's reasons (not a heartbeat, or a broken one), a
 * sender that is not a peer (`unknown-sender`), or a heartbeat already superseded (`stale`: reordered,
 * duplicated, or from a life the peer has left behind).
 */
export type HeartbeatDropReason = WireDropReason | 'unknown-sender' | 'stale';

/** Every counter of a heartbeat monitor, cumulative since it started. */
export interface HeartbeatMonitorCounters {
  /** Datagrams received from the transport, heartbeats or not. */
  packetsIn: number;
  /** Datagrams handed to the operating system (delivery is not known). */
  packetsOut: number;
  /** Bytes of the datagrams received, sealing included. */
  bytesIn: number;
  /** Bytes of the datagrams sent, sealing included. */
  bytesOut: number;
  /** Datagrams the operating system refused to send. */
  sendErrors: number;
  /** Heartbeats accepted from peers (not dropped, not stale). */
  heartbeatsIn: number;
  /** Heartbeats sent: one per peer per interval. */
  heartbeatsOut: number;
  /** Datagrams that did not count as heartbeats, by reason. */
  drops: Record<HeartbeatDropReason, number>;
  /** Transitions of a peer to `suspect`. */
  suspicions: number;
  /** Transitions of a peer to `dead`. */
  deaths: number;
  /** New lives of peers seen: heartbeats of another life (another nonce, an incarnation no lower). */
  restarts: number;
  /** This process's timers that fired more than half an interval late: its own stalls. */
  lateTimers: number;
  /** Of those, the freezes (more than an interval late) that tripped the freeze guard. */
  freezes: number;
}

/** Merges the three sources; the core and the transport are missing before the monitor started. */
export function heartbeatMonitorCounters(
  core: Readonly<HeartbeatCoreCounters> | undefined,
  transport: TransportCounters | undefined,
  wire: Readonly<DropCounters>,
): HeartbeatMonitorCounters {
  return {
    ...datagramTraffic(transport),
    heartbeatsIn: core?.heartbeatsReceived ?? 0,
    heartbeatsOut: core?.heartbeatsSent ?? 0,
    drops: {
      ...wire,
      'unknown-sender': core?.unknownSenders ?? 0,
      stale: core?.staleHeartbeats ?? 0,
    },
    suspicions: core?.suspicions ?? 0,
    deaths: core?.deaths ?? 0,
    restarts: core?.restarts ?? 0,
    lateTimers: core?.lateTimers ?? 0,
    freezes: core?.freezes ?? 0,
  };
}
