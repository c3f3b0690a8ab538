/**
 * Member transitions, as both membership protocols report them: SWIM and the heartbeat
 * monitor speak the same {@link MemberEvent}, so one consumer serves both. Every
 * transition carries enough to explain it afterwards: the previous state, the cause, who accused, how
 * many members confirmed, and the local health at the time.
 */
import type { MemberStateName } from './member-state.js';

/** Why a transition happened. Append-only: agents print these names, so they are never renamed. */
export type TransitionCause =
  /** A member was heard of for the first time. */
  | 'joined'
  /** This member's own probe of it failed. */
  | 'probe-failed'
  /** Another member's suspicion reached this member. */
  | 'suspect-gossip'
  /** The suspicion ran out without a refutation. */
  | 'suspicion-timeout'
  /** The suspect proved it is alive with a higher incarnation. */
  | 'refuted'
  /** Another member's declaration of death reached this member. */
  | 'dead-gossip'
  /** The member announced a graceful leave. */
  | 'left'
  /** A member held dead or left came back. */
  | 'rejoined'
  /** The member changed its metadata. */
  | 'metadata'
  /**
   * Heartbeat monitor: the phi of the member's silence reached the suspicion threshold (`suspect`), or
   * the death threshold (`dead`).
   */
  | 'phi-threshold'
  /** Heartbeat monitor: heartbeats of the same life came again from a suspected member. */
  | 'heartbeat-resumed'
  /**
   * This member's connection to the member's port was refused (after its watch closed, or its ack was
   * late): its process is gone while its host is up.
   */
  | 'connection-refused'
  /**
   * A new life of the member at another address: its old address no longer answered (it was suspected,
   * dead or left, or a ping of it went unanswered). Not a metadata change, which is `metadata`.
   */
  | 'address-changed';

/** A change in the state of a member, or of its metadata (`update`). */
export interface MemberEvent {
  /**
   * The member's state after the transition, or `update` when it stayed alive and only its metadata or
   * its address changed (the cause tells which). The heartbeat monitor reports `alive`, `suspect` and `dead` only.
   */
  readonly type: 'alive' | 'suspect' | 'dead' | 'left' | 'update';
  /** Name of the member the event is about. */
  readonly member: string;
  /** Its address, as this member knows it at the time of the event. */
  readonly address: string;
  /**
   * The incarnation of its life that the event is about (unsigned 32-bit): for SWIM, the one this member
   * now holds; for the heartbeat monitor, the one of the heartbeats heard last (0 before the first).
   */
  readonly incarnation: number;
  /** Its state before, or `unknown` when it was just discovered. */
  readonly previous: MemberStateName | 'unknown';
  /** Monotonic time of the event in ms. */
  readonly atMs: number;
  /** Wall time of the event, Unix ms. */
  readonly wallMs: number;
  /** Why it happened. */
  readonly cause: TransitionCause;
  /** Who raised the suspicion or declared the death, when someone did. */
  readonly accuser?: string;
  /** Independent confirmations of the suspicion so far (suspect and dead events). */
  readonly confirmations: number;
  /** This member's Lifeguard health score when the event happened: 0 is healthy. */
  readonly localHealth: number;
}
