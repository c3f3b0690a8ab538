/**
 * What a SWIM member reports: member transitions (the vocabulary it shares with the heartbeat monitor,
 * {@link MemberEvent}) and application messages.
 */
import type { MemberEvent } from '../membership/events.js';

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

/** Everything a member reports. */
export type SwimEvent = MemberEvent | MessageEvent;
