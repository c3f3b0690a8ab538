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
 * anyone else, and a holder that wakes from a pause finds it lost before it acts (`throwIfLost()`). Before
 * that, a renewal overdue by the renew deadline puts it in jeopardy (`lease-state.ts`), in which it must
 * not act either (`throwUnlessHeld()`). docs/leases.md has the states, the timings and what etcd gives.
 */
import type { EventEmitter } from 'node:events';
import { checkKnownKeys } from '../options.js';
import type { LeaseEventMap, LeaseStateName } from './lease-state.js';
import { type CheckedTimings, checkTimings, type LeaseTimings } from './lease-timings.js';
import type { FencingToken, TokenHolder } from './token.js';

/**
 * Options of {@link LeaseProvider.acquire}: the timings (`ttlMs`, `renewDeadlineMs`, `retryPeriodMs`;
 * {@link KUBERNETES_LEASE_TIMINGS} is Kubernetes' set), the safety margin and an abort signal.
 */
export interface AcquireOptions extends LeaseTimings {
  /**
   * How much earlier than the TTL the holder gives the lease up, in ms: at least 0.1 % of the TTL (two
   * clocks slewed at the kernel's 500 ppm limit, in opposite directions) and at most half of it. By
   * default {@link defaultSafetyMarginMs} of the granted TTL.
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
 * A held lease. It is kept alive in the background (every `retryPeriodMs`) until it is released or
 * lost. Its {@link Lease.state} is `held` while keep-alives are confirmed in time, `jeopardy` once a
 * renewal is overdue (stop acting, it may come back), `lost` at the end; the events `jeopardy`, `safe`
 * and `lost` announce each change (see {@link LeaseEventMap}), and `lost` also aborts, with a
 * `LeaseError` as its reason.
 */
export interface Lease extends TokenHolder, EventEmitter<LeaseEventMap> {
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
  /** The renew deadline in use, in ms: how long after a confirmed keep-alive's send time it may act. */
  readonly renewDeadlineMs: number;
  /** The interval between keep-alives, in ms. */
  readonly retryPeriodMs: number;
  /**
   * The provider clock's monotonic time (ms) from which this holder must consider the lease lost: the
   * send time of the last keep-alive the service confirmed, plus the TTL, less the safety margin.
   */
  readonly expiresAtMs: number;
  /**
   * The provider clock's monotonic time (ms) from which the lease is in jeopardy: the send time of the
   * last keep-alive the service confirmed, plus the renew deadline.
   */
  readonly jeopardyAtMs: number;
  /**
   * `held`, `jeopardy` or `lost`, right now: reads the clock, so it is right even when the timers behind
   * the events are late (a busy event loop, a pause).
   */
  readonly state: LeaseStateName;
  /** Aborts once the lease is lost or released; its reason is a `LeaseError` that says which. */
  readonly lost: AbortSignal;
  /**
   * Throws the `LeaseError` of a lost lease. Reads the clock itself, so a holder that has just woken from
   * a pause learns of the loss here even before the timer behind `lost` has had a chance to run.
   */
  throwIfLost(): void;
  /**
   * Throws unless the lease is {@link Lease.state | held}: a `FDKIT_LEASE_JEOPARDY` `LeaseError` in
   * jeopardy, the reason of the loss once lost. Call it right before each write; fdkit's fenced writes
   * do when given the lease.
   */
  throwUnlessHeld(): void;
  /**
   * Gives the lease up: stops the keep-alives, aborts `lost` (`FDKIT_LEASE_RELEASED`) and deletes the
   * lock, so the next acquirer need not wait for the TTL. Calling it again does nothing.
   */
  release(options?: ReleaseOptions): Promise<void>;
}

/**
 * Grants leases on names; at most one holder per name at a time, with a fencing token per grant. `L` is
 * what a provider's leases offer beyond {@link Lease} (an etcd lease's revision, for one).
 *
 * @example
 * ```ts
 * const leases = await createEtcdLeaseProvider({ hosts: 'http://127.0.0.1:2379' });
 * const lease = await leases.acquire('billing', { ...KUBERNETES_LEASE_TIMINGS }); // waits while another holds it
 * lease.on('jeopardy', (e) => console.log(e.message)).on('lost', (e) => console.log('lost:', e.code));
 * while (more()) {
 *   lease.throwUnlessHeld(); // held, not merely not lost: a renewal is not overdue
 *   fencedUpdate(db, { table: 'invoices', set: { paid: 1 }, where: { id: next() } }, lease.token);
 * }
 * await lease.release();
 * await leases.close();
 * ```
 */
export interface LeaseProvider<L extends Lease = Lease> {
  /** Waits until the lease on `name` is free, takes it, and starts keeping it alive. */
  acquire(name: string, options: AcquireOptions): Promise<L>;
  /** Releases every lease this provider holds and disconnects; acquiring afterwards rejects. */
  close(): Promise<void>;
}

/** Acquire options after checking; timings left out are undefined, for the defaults of the granted TTL. */
export interface ResolvedAcquireOptions extends CheckedTimings {
  readonly signal: AbortSignal | undefined;
}

const KNOWN = ['ttlMs', 'renewDeadlineMs', 'retryPeriodMs', 'safetyMarginMs', 'signal'];

/** Checks the options of an `acquire` call, for `owner` (the provider's name, for messages). */
export function resolveAcquireOptions(owner: string, options: AcquireOptions): ResolvedAcquireOptions {
  checkKnownKeys(owner, options, KNOWN);
  return { ...checkTimings(owner, options), signal: options.signal };
}
