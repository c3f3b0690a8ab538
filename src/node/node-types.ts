/**
 * The public types of a `SwimNode`'s methods and events, apart from the class, which `node.ts`
 * holds.
 */
import type {
  ConflictEvent,
  DeclaredDeadEvent,
  MemberEvent,
  MessageEvent,
  RefutedEvent,
} from '../swim/events.js';

/** The events of a `SwimNode`, by name. */
export interface NodeEventMap {
  /** A member joined, was refuted alive after a suspicion, or came back after it was dead or left. */
  alive: [MemberEvent];
  /** A member is suspected: this member's probe failed, or another member's suspicion reached it. */
  suspect: [MemberEvent];
  /** A member is dead: its suspicion timed out, another member declared it, or its port refused. */
  dead: [MemberEvent];
  /** A member announced a graceful leave (`SwimNode.leave`). */
  left: [MemberEvent];
  /** An alive member changed its metadata; its state did not change. */
  update: [MemberEvent];
  /** An application message arrived: a direct send, or a broadcast delivered by gossip. */
  message: [MessageEvent];
  /** Two addresses claim one name; `self` when this member is one of them (also logged at warn). */
  conflict: [ConflictEvent];
  /** Another member declared this one dead; it refuted unless it was leaving (`fdkit agent` logs it). */
  'declared-dead': [DeclaredDeadEvent];
  /** Another member held this one suspect, dead or left (after a pause, or of an older life): it answered. */
  refuted: [RefutedEvent];
  /**
   * A direct probe's ack came back: its round trip, in ms (`MemberInfo.rttMs` smooths them per member).
   * Emitted only while someone listens, with a number and nothing else, so that a probe a second costs
   * nothing more for being measured. Not in `events()`.
   */
  rtt: [ms: number];
  /**
   * A state exchange this member started was answered and merged: ms from its request to the merged
   * reply. Emitted only while someone listens. Not in `events()`.
   */
  'push-pull': [ms: number];
}

/** Options of `SwimNode.join`. */
export interface JoinOptions {
  /**
   * Stops waiting for the seeds' answers, rejecting with an `AbortError` (`FDKIT_ABORTED`, the signal's
   * reason as its `cause`); the member keeps retrying its seeds in the background.
   */
  readonly signal?: AbortSignal;
}

/** Options of `SwimNode.leave`. */
export interface LeaveOptions {
  /** How long to wait for the leave to spread; the node's `leaveTimeoutMs` by default. */
  readonly timeoutMs?: number;
  /** Stops waiting for the leave to spread; the leave itself has been announced and keeps spreading. */
  readonly signal?: AbortSignal;
}

/** What `SwimNode.leave` saw. */
export interface LeaveResult {
  /** How many of the members live at the leave acknowledged it before `leave()` resolved. */
  readonly acknowledged: number;
  /** How many members other than this one were alive or suspect at the leave. */
  readonly live: number;
  /** True when some did not acknowledge in time (or the signal aborted the wait). */
  readonly timedOut: boolean;
}
