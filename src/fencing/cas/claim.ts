/**
 * Fencing over a compare-and-set store, with the claim that makes it hold at every interleaving. A
 * resource that refuses a token only once it has seen a higher one leaves a window: the new holder reads,
 * the old holder wakes from its pause and writes (its token is still the highest the resource has seen),
 * and the new holder then acts on what it read. A claim closes the window. The new holder raises the
 * record's fence to its token before it reads anything, so from then on every older holder's read and
 * write is refused, and the new holder's own reads and writes require the fence to be exactly its token.
 *
 * Each step is a read followed by a compare-and-set on the version read; a compare-and-set that fails
 * means another write came between, so the step reads again and judges afresh. The number of tries is
 * bounded: conflicts mean others are making progress, and a store that fails every compare-and-set
 * would otherwise loop forever.
 */
import { FenceError, InvalidArgumentError, InvalidOptionError, StaleTokenError } from '../../errors.js';
import { checkKnownKeys, checkNumber, describeReceived } from '../../options.js';
import { type FenceHolder, type FencingToken, resolveHolder } from '../token.js';
import type { CasStore, Versioned } from './cas-store.js';
import { CheckedStore } from './checked-store.js';

/** Options of {@link claimCas}. */
export interface ClaimCasOptions<V> {
  /**
   * The value to create the record with when the key has none. Without it a missing record is a
   * `FenceError` (`FDKIT_FENCE_MISSING`): a resource that should exist and does not is usually a
   * misspelt key or lost data, not a fresh start. `null` is a value like any other here.
   */
  readonly initial?: V;
  /**
   * Stops waiting for the store, in the claim and in every read and update under it (`lease.lost` is a
   * good one). The operation then rejects with the signal's reason; a compare-and-set already sent may
   * still land, which is safe to find out by claiming or reading again.
   */
  readonly signal?: AbortSignal;
  /** How many compare-and-sets the claim, and each update under it, tries before giving up. Default 10. */
  readonly maxAttempts?: number;
}

/**
 * A claimed key: reads and writes under the claim's token. Each fails with a `StaleTokenError` once a
 * newer holder has claimed the key, and with a `FenceError` when the record is gone
 * (`FDKIT_FENCE_MISSING`) or its fence went below the token (`FDKIT_FENCE_NOT_CLAIMED`: the store lost
 * data, say restored from a backup). With a lease as the holder, each also checks the lease first.
 */
export interface CasClaim<V> {
  /** The claimed key. */
  readonly key: string;
  /** The token the key is claimed with. */
  readonly token: FencingToken;
  /** The record's value, read under the claim. */
  read(): Promise<V>;
  /**
   * Replaces the value with `fn(value)`, in a compare-and-set against the version read, and resolves
   * with the new value. `fn` must be a pure function of its argument: it runs again on the fresh value
   * when another write came between, and its result is discarded when the claim turns out stale. It must
   * be synchronous, and not return `undefined`.
   */
  update(fn: (value: V) => V): Promise<V>;
}

const OWNER = 'claimCas';
const KNOWN = ['initial', 'signal', 'maxAttempts'];
/**
 * Ten tries in a row lost to other writers means heavy contention on one key, which fencing is not meant
 * for (one holder at a time writes), or a store whose compare-and-set fails when it should not.
 */
const MAX_ATTEMPTS_DEFAULT = 10;
const MAX_ATTEMPTS_MAX = 1000;

function checkArguments(store: unknown, key: unknown): void {
  const methods = store as { read?: unknown; compareAndSet?: unknown } | null;
  if (typeof methods?.read !== 'function' || typeof methods.compareAndSet !== 'function') {
    throw new InvalidArgumentError(
      'store',
      `${OWNER}: store must be a CasStore with read and compareAndSet methods, got ${describeReceived(store)}`,
    );
  }
  if (typeof key !== 'string' || key === '') {
    throw new InvalidArgumentError(
      'key',
      `${OWNER}: key must be a non-empty string, got ${describeReceived(key)}`,
    );
  }
}

function checkSignal(signal: unknown): AbortSignal | undefined {
  if (signal === undefined || signal instanceof AbortSignal) return signal;
  throw new InvalidOptionError(
    'FDKIT_INVALID_OPTION',
    'signal',
    `${OWNER}: option signal must be an AbortSignal, got ${describeReceived(signal)}`,
  );
}

/**
 * Claims `key` for `holder`: raises the record's fence to the holder's token, in the store, before
 * anything is read, so that no older holder can read or write it afterwards. Call it right after
 * acquiring the lease and before reading the resource; claiming again with the same token is a read.
 *
 * Rejects with a `StaleTokenError` when a newer token has already claimed the key, a `FenceError` when
 * the key has no record and no `initial` is given (`FDKIT_FENCE_MISSING`) or the store returns something
 * that is not a valid record (`FDKIT_FENCE_NULL`, `FDKIT_FENCE_TYPE`, `FDKIT_FENCE_STORE`), a
 * `LeaseError` when the holder is a lease that is no longer held, and with the store's own error when
 * the store cannot be reached.
 *
 * @example
 * ```ts
 * const store = new MemoryCasStore<{ balanceCents: number }>(); // or new EtcdCasStore(etcdClient)
 * const lease = await leases.acquire('billing', { ttlMs: 10_000 });
 * const account = await claimCas(store, 'account/42', lease, { initial: { balanceCents: 0 } });
 * await account.update((a) => ({ balanceCents: a.balanceCents + 500 }));
 * await account.read(); // { balanceCents: 500 }; a StaleTokenError once a newer holder has claimed it
 * ```
 */
export async function claimCas<V>(
  store: CasStore<V>,
  key: string,
  holder: FenceHolder,
  options: ClaimCasOptions<V> = {},
): Promise<CasClaim<V>> {
  checkArguments(store, key);
  const { token, check } = resolveHolder(OWNER, holder);
  // A null initial is a value to store (JSON has it), not an option left out, which is all that
  // checkKnownKeys means to refuse with null.
  checkKnownKeys(OWNER, options?.initial === null ? { ...options, initial: undefined } : options, KNOWN);
  const maxAttempts =
    options.maxAttempts === undefined
      ? MAX_ATTEMPTS_DEFAULT
      : checkNumber(OWNER, 'maxAttempts', options.maxAttempts, {
          min: 1,
          max: MAX_ATTEMPTS_MAX,
          integer: true,
        });
  const io = new CheckedStore(store, key, checkSignal(options.signal));
  const claim = new Claim(io, token, check, maxAttempts);
  for (let attempt = 0; attempt < maxAttempts; attempt++) {
    const record = await io.read(OWNER);
    if (record === undefined) {
      if (options.initial === undefined) {
        throw new FenceError(
          'FDKIT_FENCE_MISSING',
          key,
          `${OWNER}: no record at ${JSON.stringify(key)}, so nothing could refuse an older token; ` +
            'pass { initial } to create it with this claim',
        );
      }
      check();
      if (await io.compareAndSet(OWNER, undefined, { fence: token, value: options.initial })) return claim;
    } else {
      if (record.fence > token) throw new StaleTokenError(key, token, record.fence);
      if (record.fence === token) return claim;
      check();
      if (await io.compareAndSet(OWNER, record.version, { fence: token, value: record.value })) return claim;
    }
  }
  throw io.conflicts(OWNER, maxAttempts);
}

class Claim<V> implements CasClaim<V> {
  readonly key: string;

  constructor(
    private readonly io: CheckedStore<V>,
    readonly token: FencingToken,
    private readonly check: () => void,
    private readonly maxAttempts: number,
  ) {
    this.key = io.key;
  }

  async read(): Promise<V> {
    const record = this.judge('CasClaim.read', await this.io.read('CasClaim.read'));
    // After the read, not before: a holder that paused while waiting for the store learns it here,
    // before it acts on what it read.
    this.check();
    return record.value;
  }

  async update(fn: (value: V) => V): Promise<V> {
    const owner = 'CasClaim.update';
    if (typeof fn !== 'function') {
      throw new InvalidArgumentError('fn', `${owner}: fn must be a function, got ${describeReceived(fn)}`);
    }
    for (let attempt = 0; attempt < this.maxAttempts; attempt++) {
      const record = this.judge(owner, await this.io.read(owner));
      const next = fn(record.value);
      if (next === undefined) {
        throw new InvalidArgumentError(
          'fn',
          `${owner}: fn returned undefined; return the new value (a record cannot hold undefined)`,
        );
      }
      if (typeof (next as { then?: unknown } | null)?.then === 'function') {
        // A store would serialise the promise itself (JSON makes it {}), silently erasing the value.
        throw new InvalidArgumentError(
          'fn',
          `${owner}: fn returned a promise; fn must be synchronous, as it may run more than once`,
        );
      }
      this.check();
      if (await this.io.compareAndSet(owner, record.version, { fence: this.token, value: next })) return next;
    }
    throw this.io.conflicts(owner, this.maxAttempts);
  }

  /** `record` when its fence is this claim's token; the reason why not otherwise. */
  private judge(owner: string, record: Versioned<V> | undefined): Versioned<V> {
    const quoted = JSON.stringify(this.key);
    if (record === undefined) {
      throw new FenceError(
        'FDKIT_FENCE_MISSING',
        this.key,
        `${owner}: the record at ${quoted} is gone since it was claimed with token ${this.token}`,
      );
    }
    if (record.fence > this.token) throw new StaleTokenError(this.key, this.token, record.fence);
    if (record.fence < this.token) {
      throw new FenceError(
        'FDKIT_FENCE_NOT_CLAIMED',
        this.key,
        `${owner}: the fence at ${quoted} is ${record.fence}, below the token ${this.token} it was ` +
          'claimed with: the store has lost writes (restored from a backup?), so its value may be older ' +
          'than what this holder wrote',
      );
    }
    return record;
  }
}
