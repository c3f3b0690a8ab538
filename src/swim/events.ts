/**
 * What a SWIM member reports: member transitions (the vocabulary it shares with the heartbeat monitor,
 * in `src/membership/events.ts`) and application messages.
 */
import type { MemberEvent } from '../membership/events.js';

export type { MemberEvent, TransitionCause } from '../membership/events.js';

/** An application message: a direct `send`, or a `broadcast` that gossip delivered. */
export interface MessageEvent {
  readonly type: 'message';
  /** The sender of a direct message, the originator of a broadcast. */
  readonly from: string;
  readonly payload: Uint8Array;
  readonly broadcast: boolean;
  readonly atMs: number;
  readonly wallMs: number;
}

/** Everything a member reports. */
export type SwimEvent = MemberEvent | MessageEvent;
