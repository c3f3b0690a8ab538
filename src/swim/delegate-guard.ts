/**
 * The application's delegates (`delegates.ts`) as the protocol calls them: each call is fenced, so that
 * a delegate that throws or answers nonsense costs a counter, never a handler. The filters fail closed
 * (a broken filter refuses, as memberlist treats its delegates' errors), the state hooks fail empty. The
 * core has no logger: the count is what it reports, and a node wraps the delegates to log (`node/`).
 */
import { InvalidOptionError } from '../errors.js';
import { describeReceived } from '../options.js';
import type { SwimCounters } from './counters.js';
import type { CandidateMember, SwimDelegates } from './delegates.js';
import { utf8Length } from './message-size.js';
import type { MemberList } from './messages.js';

/**
 * Largest application state a member sends in one state exchange: 8 MiB, a quarter of the default
 * `streamBytesMax` (32 MiB), so that the member list keeps the rest of the stream. A node lowers it to a
 * quarter of its own `streamBytesMax`. A larger state is not sent (the exchange goes out without it).
 */
export const APP_STATE_BYTES_MAX = 8 * 1024 * 1024;

/** A refusal's reason travels in one length-prefixed string: at most this many bytes of UTF-8. */
const REASON_BYTES_MAX = 255;

const EMPTY = new Uint8Array(0);

const DELEGATE_KEYS = [
  'filterAlive',
  'filterMerge',
  'localState',
  'mergeRemoteState',
  'notifyConflict',
] as const;

/**
 * Checks the `delegates` option of `owner`: an object whose present hooks are functions.
 *
 * @throws {@link InvalidOptionError} naming `delegates` or `delegates.<hook>` and the value received.
 */
export function checkDelegates(owner: string, delegates: unknown): SwimDelegates | undefined {
  if (delegates === undefined) return undefined;
  if (typeof delegates !== 'object' || delegates === null || Array.isArray(delegates)) {
    throw new InvalidOptionError(
      'FDKIT_INVALID_OPTION',
      'delegates',
      `${owner}: option delegates must be an object of hooks, got ${describeReceived(delegates)}`,
    );
  }
  for (const key of DELEGATE_KEYS) {
    // Read through the prototype too: a class instance's methods are delegates as well.
    const hook: unknown = (delegates as Record<string, unknown>)[key];
    if (hook !== undefined && typeof hook !== 'function') {
      throw new InvalidOptionError(
        'FDKIT_INVALID_OPTION',
        `delegates.${key}`,
        `${owner}: option delegates.${key} must be a function, got ${describeReceived(hook)}`,
      );
    }
  }
  return delegates as SwimDelegates;
}

/** The delegates of one member, fenced; a member without delegates has one over `{}`. */
export class DelegateGuard {
  constructor(
    private readonly delegates: SwimDelegates,
    private readonly counters: SwimCounters,
  ) {}

  /** Whether an alive filter is installed (callers skip building its argument otherwise). */
  get filtersAlive(): boolean {
    return this.delegates.filterAlive !== undefined;
  }

  /** The alive filter's reason to refuse `member`, or undefined to accept it. */
  filterAlive(member: CandidateMember): string | undefined {
    const d = this.delegates;
    if (d.filterAlive === undefined) return undefined;
    const candidate: CandidateMember = {
      name: member.name,
      address: member.address,
      meta: member.meta,
      incarnation: member.incarnation,
    };
    return this.verdict(() => d.filterAlive?.(candidate), 'the alive filter');
  }

  /** The merge filter's reason to refuse the first `count` entries of `members`, or undefined. */
  filterMerge(members: MemberList, count: number, join: boolean): string | undefined {
    const d = this.delegates;
    if (d.filterMerge === undefined) return undefined;
    const candidates: CandidateMember[] = new Array(count);
    for (let i = 0; i < count; i++) {
      candidates[i] = {
        name: members.names[i]!,
        address: members.addresses[i]!,
        meta: members.metas[i]!,
        incarnation: members.incarnations[i]!,
      };
    }
    return this.verdict(() => d.filterMerge?.(candidates, join), 'the merge filter');
  }

  /** The application's state for an exchange; empty when there is none or it is unusable. */
  localState(join: boolean): Uint8Array {
    const d = this.delegates;
    if (d.localState === undefined) return EMPTY;
    try {
      const state: unknown = d.localState(join);
      if (state instanceof Uint8Array && state.length <= APP_STATE_BYTES_MAX) return state;
    } catch {
      // Counted below: the exchange goes out without application state.
    }
    this.counters.delegateErrors++;
    return EMPTY;
  }

  /** Hands a peer's application state to the application; a throw is counted and goes no further. */
  mergeRemoteState(state: Uint8Array, join: boolean): void {
    const d = this.delegates;
    if (d.mergeRemoteState === undefined || state.length === 0) return;
    try {
      d.mergeRemoteState(state, join);
    } catch {
      this.counters.delegateErrors++;
    }
  }

  private verdict(filter: () => unknown, what: string): string | undefined {
    let answer: unknown;
    try {
      answer = filter();
    } catch {
      this.counters.delegateErrors++;
      return `${what} failed`;
    }
    if (answer === undefined) return undefined;
    if (typeof answer !== 'string') {
      this.counters.delegateErrors++;
      return `${what} failed`;
    }
    return answer === '' ? `refused by ${what}` : shortened(answer);
  }
}

/**
 * `reason` as the wire carries it: lone surrogates and U+FFFD (which the wire refuses) replaced by `?`,
 * cut to whole code points within {@link REASON_BYTES_MAX} bytes of UTF-8.
 */
function shortened(reason: string): string {
  let out = '';
  let bytes = 0;
  for (const ch of reason) {
    const c = ch.charCodeAt(0);
    const text = ch === '\ufffd' || (ch.length === 1 && c >= 0xd800 && c <= 0xdfff) ? '?' : ch;
    bytes += utf8Length(text);
    if (bytes > REASON_BYTES_MAX) break;
    out += text;
  }
  return out;
}
