/**
 * The application's delegates as a node hands them to its core. The core has no logger: it counts a
 * delegate that throws (`delegateErrors`) and steps around it. The node wraps each hook so that the same
 * mistake is also a warn line an operator can read, and bounds the application state by its own
 * `streamBytesMax`, which the core does not know.
 */
import type { Logger } from '../runtime/logger.js';
import { APP_STATE_BYTES_MAX } from '../swim/delegate-guard.js';
import type { CandidateMember, NameConflict, SwimDelegates } from '../swim/delegates.js';

/**
 * The largest application state a node sends: a quarter of its `streamBytesMax`, within
 * {@link APP_STATE_BYTES_MAX}, so that the member list keeps most of the stream.
 */
export function appStateBytesMax(streamBytesMax: number): number {
  return Math.min(APP_STATE_BYTES_MAX, Math.floor(streamBytesMax / 4));
}

/** `delegates` with each hook's failures logged to `log`; a state over `stateBytesMax` is refused. */
export function loggedDelegates(delegates: SwimDelegates, log: Logger, stateBytesMax: number): SwimDelegates {
  // A throw is passed on: the core's fence applies the hook's fallback and counts it.
  const fenced = <T>(hook: string, call: () => T): T => {
    try {
      return call();
    } catch (error) {
      log.warn(
        { delegate: hook, error: String(error) },
        `delegate ${hook} threw; the protocol went on without it`,
      );
      throw error;
    }
  };
  const reason = (hook: string, answer: unknown, about: string): string | undefined => {
    if (answer !== undefined && typeof answer !== 'string') {
      log.warn(
        { delegate: hook },
        `delegate ${hook} answered neither a reason nor undefined; taken as a refusal`,
      );
    } else if (answer !== undefined) {
      log.debug({ delegate: hook, about, reason: answer }, `delegate ${hook} refused`);
    }
    return answer as string | undefined;
  };
  const out: {
    filterAlive?: (member: CandidateMember) => string | undefined;
    filterMerge?: (members: readonly CandidateMember[], join: boolean) => string | undefined;
    localState?: (join: boolean) => Uint8Array;
    mergeRemoteState?: (state: Uint8Array, join: boolean) => void;
    notifyConflict?: (conflict: NameConflict) => void;
  } = {};
  if (delegates.filterAlive !== undefined) {
    out.filterAlive = (member) =>
      reason(
        'filterAlive',
        fenced('filterAlive', () => delegates.filterAlive?.(member)),
        member.name,
      );
  }
  if (delegates.filterMerge !== undefined) {
    out.filterMerge = (members, join) =>
      reason(
        'filterMerge',
        fenced('filterMerge', () => delegates.filterMerge?.(members, join)),
        `${members.length} members`,
      );
  }
  if (delegates.localState !== undefined) {
    out.localState = (join) => {
      const state = fenced('localState', () => delegates.localState?.(join));
      if (state instanceof Uint8Array && state.length <= stateBytesMax) return state;
      const problem =
        state instanceof Uint8Array
          ? `${state.length} bytes of state, more than ${stateBytesMax} (a quarter of streamBytesMax)`
          : 'not a Uint8Array';
      log.warn(
        { delegate: 'localState' },
        `delegate localState answered ${problem}; the exchange goes without it`,
      );
      throw new RangeError(`localState: ${problem}`);
    };
  }
  if (delegates.mergeRemoteState !== undefined) {
    out.mergeRemoteState = (state, join) =>
      fenced('mergeRemoteState', () => delegates.mergeRemoteState?.(state, join));
  }
  if (delegates.notifyConflict !== undefined) {
    out.notifyConflict = (c) => fenced('notifyConflict', () => delegates.notifyConflict?.(c));
  }
  return out;
}
