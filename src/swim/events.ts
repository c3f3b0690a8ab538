/**
 * What a SWIM member reports: member transitions (the vocabulary it shares with the heartbeat monitor,
 * {@link MemberEvent}), application messages, name conflicts, and this member's own declared death and
 * refutations.
 */
import type { MemberEvent } from '../membership/events.js';
import type { NameConflict } from './delegates.js';

export type { MemberEvent, TransitionCause } from '../membership/events.js';

/** An application message: a direct `send`, or a `broadcast` that gossip delivered. */
export interface MessageEvent {
  /** Discriminant of {@link SwimEvent}. */
  readonly type: 'message';
  /** The sender of a direct message, the originator of a broadcast. */
  readonly from: string;
  /** The application's bytes, as sent (at most 64,512). */
  readonly payload: Uint8Array;
  /** True for a broadcast, reported once per member however often gossip brings it; false for a `send`. */
  readonly broadcast: boolean;
  /** Monotonic time of arrival in ms, on the member's clock. */
  readonly atMs: number;
  /** Wall time of arrival, Unix ms. */
  readonly wallMs: number;
}

/**
 * Two addresses claim one name (see docs/design.md, "Name conflicts"): reported by a member that holds the
 * name and hears another address claim it, and by each claimant once told of it (`self` true). Reported
 * once per pair of addresses and outcome within a push-pull interval, however often gossip repeats it.
 */
export interface ConflictEvent extends NameConflict {
  /** Discriminant of {@link SwimEvent}. */
  readonly type: 'conflict';
  /** Monotonic time of the event in ms, on the member's clock. */
  readonly atMs: number;
  /** Wall time of the event, Unix ms. */
  readonly wallMs: number;
}

/**
 * Another member declared this member dead: it refuted at once with a higher incarnation (`refuted`), or
 * it could not because it is leaving or stopped. Either way part of the cluster held it dead for a while;
 * an application may rejoin, or raise an alarm. Reported once per incarnation declared dead.
 */
export interface DeclaredDeadEvent {
  /** Discriminant of {@link SwimEvent}. */
  readonly type: 'declared-dead';
  /** This member's own name. */
  readonly member: string;
  /** The member that declared the death. */
  readonly accuser: string;
  /** The incarnation the death was declared at. */
  readonly incarnation: number;
  /** True when this member answered with an alive statement at a higher incarnation. */
  readonly refuted: boolean;
  /** Monotonic time of the event in ms, on the member's clock. */
  readonly atMs: number;
  /** Wall time of the event, Unix ms. */
  readonly wallMs: number;
}

/**
 * This member heard another member hold it suspect, dead or left, at its current incarnation or an older
 * life's (after a pause, or a restart under the same name), and answered with its alive statement. The
 * members that held it so see it come back: a leader hint treats it as a comeback too. Reported once per
 * incarnation accused, however many copies of the accusation gossip brings, and only while running.
 */
export interface RefutedEvent {
  /** Discriminant of {@link SwimEvent}. */
  readonly type: 'refuted';
  /** This member's own name. */
  readonly member: string;
  /** The member whose statement it was (this member's own name for its own leave of an older life). */
  readonly accuser: string;
  /** What the statement held this member to be. */
  readonly held: 'suspect' | 'dead' | 'left';
  /** The incarnation the statement was about. */
  readonly incarnation: number;
  /** Monotonic time of the event in ms, on the member's clock. */
  readonly atMs: number;
  /** Wall time of the event, Unix ms. */
  readonly wallMs: number;
}

/** Everything a member reports. */
export type SwimEvent = MemberEvent | MessageEvent | ConflictEvent | DeclaredDeadEvent | RefutedEvent;

const MEMBER_EVENT_TYPES: ReadonlySet<SwimEvent['type']> = new Set([
  'alive',
  'suspect',
  'dead',
  'left',
  'update',
]);

/** Whether `event` is a member transition: the events a membership consumer (metrics, a leader hint) reads. */
export function isMemberEvent(event: SwimEvent): event is MemberEvent {
  return MEMBER_EVENT_TYPES.has(event.type);
}
