/**
 * The resource side of fencing for anything that can compare numbers: remember, per resource, the highest
 * token seen, and let a write through only when its token is at least that high (Kleppmann, "How to do
 * distributed locking", 2016). A holder that paused past its lease and wakes up carries a lower token
 * than the holder that replaced it, so its writes are refused once the new holder's token has been seen;
 * the lease itself only tells holders when to stop, it cannot stop one that is not running to hear it.
 *
 * "Once seen" is the catch: a new holder that reads before its first write leaves the stale one a gap
 * between that read and that write. Close it with a claim: `enforce(resource, lease.token)` as soon as
 * the lease is acquired, before reading (docs/fencing.md).
 *
 * Check and update are one synchronous step, so within a process no other check can come between them.
 * Across processes the same rule has to run inside the resource: see `fenced-update.ts` for SQL.
 */
import { InvalidArgumentError, StaleTokenError } from '../errors.js';
import { checkKnownKeys } from '../options.js';
import { checkToken, type FencingToken } from './token.js';

/**
 * Where a {@link FencingGuard} keeps the highest token of each resource. Both methods are synchronous,
 * which is what makes a check atomic: an implementation may write through to a synchronous database
 * (better-sqlite3) to survive restarts, never to an asynchronous one.
 */
export interface FenceStore {
  /** The highest token recorded for `resource`, or undefined when none was. */
  get(resource: string): FencingToken | undefined;
  /** Records `token` as the highest for `resource`; called only with a token at least the current one. */
  set(resource: string, token: FencingToken): void;
}

/** Options of {@link FencingGuard}. */
export interface FencingGuardOptions {
  /** Where the highest tokens live; an in-memory map by default (one entry per resource name). */
  readonly store?: FenceStore;
}

/** The outcome of {@link FencingGuard.check}. */
export interface FenceCheck {
  /** True when the token was at least the highest seen; it is then the highest. */
  readonly accepted: boolean;
  /** The highest token seen for the resource after this check. */
  readonly highest: FencingToken;
}

const OWNER = 'FencingGuard';

/**
 * Admits writes to named resources in fencing-token order.
 *
 * @example
 * ```ts
 * const guard = new FencingGuard();
 * guard.check('invoices', 33n); // { accepted: true, highest: 33n }
 * guard.check('invoices', 34n); // { accepted: true, highest: 34n }: a new holder
 * guard.check('invoices', 33n); // { accepted: false, highest: 34n }: the old holder woke up
 * guard.enforce('invoices', 33n); // throws StaleTokenError (resource, token 33n, highest 34n)
 * ```
 */
export class FencingGuard {
  private readonly store: FenceStore;

  constructor(options: FencingGuardOptions = {}) {
    checkKnownKeys(OWNER, options, ['store']);
    this.store = options.store ?? new Map<string, FencingToken>();
  }

  /**
   * Accepts `token` for `resource` when it is at least the highest token seen there, recording it as the
   * new highest; refuses it otherwise. An equal token is accepted: it is the current holder writing again.
   */
  check(resource: string, token: FencingToken): FenceCheck {
    if (typeof resource !== 'string') {
      throw new InvalidArgumentError(
        'resource',
        `${OWNER}.check: resource must be a string, got ${typeof resource}`,
      );
    }
    checkToken(`${OWNER}.check`, token);
    const highest = this.store.get(resource);
    if (highest !== undefined && token < highest) return { accepted: false, highest };
    if (highest !== token) this.store.set(resource, token);
    return { accepted: true, highest: token };
  }

  /** Like {@link FencingGuard.check}, but throws a {@link StaleTokenError} instead of refusing. */
  enforce(resource: string, token: FencingToken): void {
    const result = this.check(resource, token);
    if (!result.accepted) throw new StaleTokenError(resource, token, result.highest);
  }

  /** The highest token seen for `resource`, or undefined when it has seen none. */
  highest(resource: string): FencingToken | undefined {
    return this.store.get(resource);
  }
}
