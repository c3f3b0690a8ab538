/**
 * What the fuzzer and its target cluster (`cluster-child.ts`, a child process) say to each other over
 * the fork's IPC channel: one request, one reply with the same id.
 */
import type { NodeCounters } from '../../src/node/node-counters.js';

/** A request of the fuzzer. `mark` starts counting state changes afresh; `exit` shuts the members down. */
export type ClusterRequest =
  | { readonly id: number; readonly type: 'status' }
  | { readonly id: number; readonly type: 'mark' }
  | { readonly id: number; readonly type: 'captures' }
  | { readonly id: number; readonly type: 'received' }
  | { readonly id: number; readonly type: 'exit' };

/** One member's view of one member. */
export interface HeldMember {
  readonly name: string;
  readonly state: string;
  readonly incarnation: number;
}

/** A member event (alive, suspect, dead, left, update) one member reported, with its wall time. */
export interface StateChange {
  /** The member that reported it. */
  readonly at: string;
  readonly type: string;
  /** The member it is about. */
  readonly member: string;
  readonly incarnation: number;
  /** `performance.timeOrigin + performance.now()` of the child: comparable with the fuzzer's. */
  readonly tMs: number;
}

/** One member of the cluster, as `status` reports it. */
export interface MemberStatus {
  readonly name: string;
  readonly address: string;
  readonly counters: NodeCounters;
  readonly view: readonly HeldMember[];
  /** Inbound stream connections open now. */
  readonly connectionsOpen: number;
}

/** The answer to `status`. */
export interface ClusterStatus {
  readonly id: number;
  readonly type: 'status';
  readonly members: readonly MemberStatus[];
  /** State changes since the last `mark`: how many, and the first few hundred. */
  readonly changeCount: number;
  readonly changes: readonly StateChange[];
  /** Uncaught exceptions and unhandled rejections in the child, with their messages. */
  readonly exceptions: readonly string[];
  /** Log lines at error level (warnings are expected under attack and not collected). */
  readonly errorLogs: number;
  readonly rssBytes: number;
  readonly heapUsedBytes: number;
  /** Event-loop delay since the last `mark` (perf_hooks monitorEventLoopDelay), in ms. */
  readonly loopDelayMs: { readonly p50: number; readonly p99: number; readonly max: number };
}

/** Datagrams and stream bodies the members received from each other, as they arrived (sealed or not). */
export interface Captures {
  readonly id: number;
  readonly type: 'captures';
  /** Base64 of each, the earliest first. */
  readonly datagrams: readonly string[];
  readonly streams: readonly string[];
}

/** Every reply. `ready` is sent once, unasked, when the cluster has formed. */
export type ClusterReply =
  | ClusterStatus
  | Captures
  | { readonly id: number; readonly type: 'ok' }
  | { readonly id: number; readonly type: 'received'; readonly datagramsIn: readonly number[] }
  | { readonly id: 0; readonly type: 'ready'; readonly names: readonly string[] }
  | { readonly id: 0; readonly type: 'failed'; readonly message: string };
