/**
 * What the HTTP API reads of a member and of a leader hint: narrow ports, so that the handler serves a
 * `SwimNode` and a `LeaderHint` as well as anything shaped like them (a test's fake, an application's
 * own wrapper), and never reaches into either.
 */
import type { MemberEvent } from '../membership/events.js';
import type { MemberInfo } from '../swim/core-types.js';

/** The kinds of member events the API streams. */
export type HttpMemberEventName = MemberEvent['type'];

/** One member as the API reads it: the fields of a `MemberInfo` that `/v1/members` writes. */
export type HttpMember = Pick<
  MemberInfo,
  'name' | 'address' | 'state' | 'incarnation' | 'meta' | 'phi' | 'rttMs' | 'suspicion'
>;

/** What a graceful leave reports: `SwimNode.leave()` resolves with it. */
export interface HttpLeaveResult {
  /** Members that acknowledged the leave. */
  readonly acknowledged: number;
  /** Members live when the leave began. */
  readonly live: number;
  /** True when some did not acknowledge before the timeout. */
  readonly timedOut: boolean;
}

/** The member an HTTP handler serves: a started `SwimNode` is one. */
export interface HttpSource {
  /** Every member known, the local one included. */
  members(): readonly HttpMember[];
  /** The serving member itself. */
  readonly localMember: HttpMember;
  /** Lifeguard local health: 0 is healthy. */
  readonly localHealth: number;
  /** Broadcasts waiting in the gossip queue. */
  readonly pendingBroadcasts: number;
  /** Cumulative counters, by name. */
  counters(): object;
  /** Subscribes to one kind of member event. */
  on(event: HttpMemberEventName, listener: (event: MemberEvent) => void): unknown;
  /** Removes a listener that `on` added. */
  off(event: HttpMemberEventName, listener: (event: MemberEvent) => void): unknown;
  /** Leaves the cluster gracefully (`POST /v1/leave`). */
  leave(): Promise<HttpLeaveResult>;
  /** Joins through seeds (`POST /v1/join`); resolves with the number that answered. */
  join?(seeds: readonly string[]): Promise<number>;
}

/** A change of leader, as a `LeaderHint` emits it. */
export interface HttpLeaderChange {
  /** The new leader. */
  readonly leader: string;
  /** The leader before. */
  readonly previous: string;
  /** The hint's epoch after the change. */
  readonly epoch: number;
  /** Why it changed. */
  readonly cause: string;
  /** Wall time of the change, Unix ms. */
  readonly wallMs: number;
}

/** The leader hint an HTTP handler serves at `/v1/leader`: a `LeaderHint` is one. */
export interface HttpLeaderSource {
  /** The member named leader now; undefined once a split-brain resolver downed this side. */
  readonly leader: string | undefined;
  /** How many times the leader changed. */
  readonly epoch: number;
  /** True when the serving member is the leader. */
  readonly isLeader: boolean;
  /** Subscribes to changes of leader. */
  on(event: 'leader', listener: (change: HttpLeaderChange) => void): unknown;
  /** Removes a listener that `on` added. */
  off(event: 'leader', listener: (change: HttpLeaderChange) => void): unknown;
}

/** What `/metrics` serves: a prom-client `Registry` is one. */
export interface HttpMetricsSource {
  /** The Prometheus text exposition. */
  metrics(): Promise<string>;
  /** Its content type. */
  readonly contentType: string;
}
