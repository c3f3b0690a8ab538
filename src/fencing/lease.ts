/**
 * Leases with fencing tokens, independent of the lock service behind them. A lease gives liveness: one
 * holder at a time works, and a holder that dies is replaced once its TTL runs out. It cannot give safety
 * on its own, because a holder that pauses (a 40 s garbage collection, a stopped VM) cannot notice that
 * its lease ended, and acts on it when it wakes. The token is what gives safety: it only ever increases,
 * so the resource can refuse the woken holder's writes (see `fencing-guard.ts`, `fenced-update.ts`).
 *
 * The holder's own view is kept as safe as a clock allows: its deadline is measured on the monotonic
 * clock from when each keep-alive was *sent* (the lock service renewed no earlier than that), less a
 * safety margin for the two clocks' rates, so that `lost` fires before the service can hand the lease to
 * anyone else, and a holder that wakes from a pause finds it lost before it acts (`throwIfLost()`).
 */
import { checkKnownKeys, checkNumber } from '../options.js';
import type { FencingToken } from './token.js';

/** Options of {@link LeaseProvider.acquire}. */
export interface AcquireOptions {
  /**
   * How long the lock service keeps the lease without a keep-alive, in ms. Services with coarser units
   * round it up (etcd counts whole seconds and has a floor); {@link Lease.ttlMs} is what was granted.
   */
  readonly ttlMs: number;
  /**
   * How much earlier than the TTL the holder gives the lease up, in ms; at most half the TTL. By default
   * {@link defaultSafetyMarginMs} of the granted TTL.
   */
  readonly safetyMarginMs?: number;
  /** Stops waiting for the lease; the call then rejects with the signal's reason and holds nothing. */
  readonly signal?: AbortSignal;
}

/** Options of {@link Lease.release}. */
export interface ReleaseOptions {
  /** Stops waiting for the lock service to confirm; the lease is given up locally either way. */
  readonly signal?: AbortSignal;
}

/**
 * A held lease. It is kept alive in the background (every third of its TTL) until it is released or
 * lost; `lost` then aborts, with a `LeaseError` as its reason.
 */
export interface Lease {
  /** The name it was acquired under. */
  readonly name: string;
  /**
   * The fencing token of this grant: greater than the token of every earlier holder of this name. Pass
   * it with every write to a fenced resource.
   */
  readonly token: FencingToken;
  /** The TTL the lock service granted, in ms (at least the requested one). */
  readonly ttlMs: number;
  /** The safety margin in use, in ms. */
  readonly safetyMarginMs: number;
  /**
   * The provider clock's monotonic time (ms) from which this holder must consider the lease lost: the
   * send time of the last keep-alive the service confirmed, plus the TTL, less the safety margin.
   */
  readonly expiresAtMs: number;
  /** Aborts once the lease is lost or released; its reason is a `LeaseError` that says which. */
  readonly lost: AbortSignal;
  /**
   * Throws the `LeaseError` of a lost lease. Reads the clock itself, so a holder that has just woken from
   * a pause learns of the loss here even before the timer behind `lost` has had a chance to run.
   */
  throwIfLost(): void;
  /**
   * Gives the lease up: stops the keep-alives, aborts `lost` (`FDKIT_LEASE_RELEASED`) and deletes the
   * lock, so the next acquirer need not wait for the TTL. Calling it again does nothing.
   */
  release(options?: ReleaseOptions): Promise<void>;
}

/**
 * Grants leases on names; at most one holder per name at a time, with a fencing token per grant.
 *
 * @example
 * ```ts
 * const leases = await createEtcdLeaseProvider({ hosts: 'http://127.0.0.1:2379' });
 * const lease = await leases.acquire('billing', { ttlMs: 10_000 }); // waits while another holds it
 * lease.lost.addEventListener('abort', () => console.log('lost:', lease.lost.reason));
 * while (more()) {
 *   lease.throwIfLost();
 *   fencedUpdate(db, { table: 'invoices', set: { paid: 1 }, where: { id: next() } }, lease.token);
 * }
 * await lease.release();
 * await leases.close();
 * ```
 */
export interface LeaseProvider {
  /** Waits until the lease on `name` is free, takes it, and starts keeping it alive. */
  acquire(name: string, options: AcquireOptions): Promise<Lease>;
  /** Releases every lease this provider holds and disconnects; acquiring afterwards rejects. */
  close(): Promise<void>;
}

/**
 * The default safety margin for a TTL, in ms: 1 % of it plus 2 ms, the allowance Redis's Redlock makes for
 * clock drift. Two hosts' monotonic clocks run at rates within about 100 ppm of each other (quartz), and
 * NTP slews a clock by at most 500 ppm, so 1 % covers the worst of both more than ten times over; the
 * 2 ms cover reading the clock and scheduling. A 10 s TTL gives 102 ms, a 2 s TTL 22 ms.
 */
export function defaultSafetyMarginMs(ttlMs: number): number {
  return Math.min(ttlMs / 2, Math.ceil(ttlMs / 100) + 2);
}

/** Acquire options after checking. */
export interface ResolvedAcquireOptions {
  readonly ttlMs: number;
  /** The caller's margin; undefined for the default of the TTL that the service grants. */
  readonly safetyMarginMs: number | undefined;
  readonly signal: AbortSignal | undefined;
}

/** Longest TTL accepted, one day: a lease that outlives its holder for longer is a configuration error. */
const TTL_MS_MAX = 86_400_000;

/** Checks the options of an `acquire` call, for `owner` (the provider's name, for messages). */
export function resolveAcquireOptions(owner: string, options: AcquireOptions): ResolvedAcquireOptions {
  checkKnownKeys(owner, options, ['ttlMs', 'safetyMarginMs', 'signal']);
  const ttlMs = checkNumber(owner, 'ttlMs', options.ttlMs, { min: 1, max: TTL_MS_MAX, integer: true });
  const safetyMarginMs =
    options.safetyMarginMs === undefined
      ? undefined
      : checkNumber(owner, 'safetyMarginMs', options.safetyMarginMs, { min: 0, max: ttlMs / 2 });
  return { ttlMs, safetyMarginMs, signal: options.signal };
}
