/**
 * Fencing tokens: numbers that a lock service hands out in increasing order, one per grant, so that a
 * resource can tell a newer lease holder from an older one by comparing them (Kleppmann, "How to do
 * distributed locking", 2016; Burrows, "The Chubby lock service", OSDI 2006, calls them sequencers).
 *
 * They are `bigint` everywhere in fdkit: the sources are 64-bit counters (etcd revisions are int64,
 * ZooKeeper's zxids carry the epoch in their upper 32 bits and pass 2^53 with the 2,097,152nd leader
 * election), a `number` would round them in silence above 2^53, and SQL databases bind a `bigint` as
 * their 64-bit INTEGER/BIGINT. The range is that of a signed 64-bit integer from 0, so that every token
 * fits the column it is stored in. Tokens cross JSON as decimal strings (`token.toString()`, `BigInt(s)`).
 */
import { InvalidArgumentError } from '../errors.js';

/** A fencing token: a `bigint` in [0, 2^63 − 1]; higher means a later grant of the lease. */
export type FencingToken = bigint;

/** The largest token, the largest signed 64-bit integer. */
export const FENCING_TOKEN_MAX: FencingToken = 2n ** 63n - 1n;

/** Returns `token` when it is a valid {@link FencingToken}; throws an {@link InvalidArgumentError} otherwise. */
export function checkToken(owner: string, token: unknown): FencingToken {
  if (typeof token !== 'bigint' || token < 0n || token > FENCING_TOKEN_MAX) {
    const got =
      typeof token === 'bigint' ? `${token}n` : typeof token === 'number' ? String(token) : typeof token;
    throw new InvalidArgumentError(
      'token',
      `${owner}: token must be a bigint in [0, 2^63 - 1], got ${got}` +
        (typeof token === 'number' ? ' (a number: pass BigInt(value))' : ''),
    );
  }
  return token;
}

/**
 * What a fenced write needs of a lease: its token, and a check, made at the moment of each write, that
 * the lease is still held. `Lease` is one. The check matters because the `lost` signal is a timer, and
 * a busy or paused event loop runs timers late; reading the clock does not wait for the loop.
 */
export interface TokenHolder {
  /** The fencing token of the grant. */
  readonly token: FencingToken;
  /** Throws (a `LeaseError`) unless the lease is held right now, renewal not overdue. */
  throwUnlessHeld(): void;
}

/**
 * Who writes under a fence: a {@link TokenHolder} (a lease, checked before every statement), or a bare
 * token, for tokens from elsewhere or when only the resource is to judge.
 */
export type FenceHolder = FencingToken | TokenHolder;

/** The checked token of `holder`, and the lease check to run before each write (none for a bare token). */
export function resolveHolder(
  owner: string,
  holder: unknown,
): { readonly token: FencingToken; readonly check: () => void } {
  if (typeof holder === 'object' && holder !== null && 'token' in holder) {
    const throwUnlessHeld = (holder as { throwUnlessHeld?: unknown }).throwUnlessHeld;
    if (typeof throwUnlessHeld !== 'function') {
      throw new InvalidArgumentError(
        'holder',
        `${owner}: holder must be a bigint token or a lease with token and throwUnlessHeld(), got an object without throwUnlessHeld`,
      );
    }
    const token = checkToken(owner, (holder as { token: unknown }).token);
    return { token, check: () => throwUnlessHeld.call(holder) };
  }
  return { token: checkToken(owner, holder), check: noCheck };
}

function noCheck(): void {}
