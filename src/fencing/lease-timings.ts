/**
 * A lease's timings, in Kubernetes' terms (client-go's leader election): the lease duration (`ttlMs`),
 * the renew deadline, after which a holder whose renewals are not confirmed stops acting (Chubby's
 * jeopardy, `lease-state.ts`), and the retry period between keep-alives. The holder's own end of the
 * lease comes a safety margin before the TTL, for the two clocks' rates.
 *
 * The caller's timings are checked against the TTL it asked for; the lock service may grant more (etcd
 * rounds up to whole seconds, and raises a TTL to its floor). Timings the caller gave are kept as given,
 * since they say how soon this holder must stop, which a longer grant does not change; the ones left out
 * are fractions of the granted TTL. Both ways they stay valid for the grant, because a longer TTL only
 * moves the lost deadline later.
 */
import { InvalidOptionError } from '../errors.js';
import { checkNumber } from '../options.js';

/** The timing options of `acquire`; see {@link AcquireOptions}. */
export interface LeaseTimings {
  /**
   * How long the lock service keeps the lease without a keep-alive (Kubernetes' lease duration), in ms.
   * Services with coarser units round it up (etcd counts whole seconds and has a floor); the lease's
   * `ttlMs` is what was granted.
   */
  readonly ttlMs: number;
  /**
   * How long after the send time of the last confirmed keep-alive the holder may go on acting, in ms;
   * past it the lease is in jeopardy until a keep-alive is confirmed again. Less than `ttlMs` less the
   * safety margin. Default two thirds of the granted TTL (Kubernetes' 10 s of 15 s), at most the TTL less
   * the margin.
   */
  readonly renewDeadlineMs?: number;
  /**
   * The interval between keep-alives, in ms; less than the renew deadline. Default a third of the
   * granted TTL (as etcd's Go client keeps leases alive), at most half the renew deadline.
   */
  readonly retryPeriodMs?: number;
}

/**
 * Kubernetes' leader-election timings (client-go's `LeaderElectionConfig` as kube-controller-manager
 * and kube-scheduler run it by default): a 15 s lease, a 10 s renew deadline, a keep-alive every 2 s.
 *
 * @example
 * ```ts
 * const lease = await leases.acquire('billing', { ...KUBERNETES_LEASE_TIMINGS, signal });
 * ```
 */
export const KUBERNETES_LEASE_TIMINGS = Object.freeze({
  /** client-go's `LeaseDuration`: 15 s. */
  ttlMs: 15_000,
  /** client-go's `RenewDeadline`: 10 s. */
  renewDeadlineMs: 10_000,
  /** client-go's `RetryPeriod`: 2 s. */
  retryPeriodMs: 2_000,
} as const);

/**
 * Both clocks' worst rate error, as a fraction: the Linux kernel's clock discipline (ntpd,
 * systemd-timesyncd) moves a clock's frequency by at most 500 ppm (`MAXFREQ` in `linux/timex.h`), and
 * the holder's and the service's clocks may be off in opposite directions.
 */
const CLOCK_RATE_ERROR = 2 * 500e-6;

/**
 * The smallest safety margin accepted for a TTL, in ms: what the two clocks' rates can differ by over
 * the TTL, 0.1 % of it (2 × 500 ppm, the kernel's bound on each clock's frequency correction). A 10 s
 * TTL needs at least 10 ms.
 */
export function minimumSafetyMarginMs(ttlMs: number): number {
  return ttlMs * CLOCK_RATE_ERROR;
}

/**
 * The default safety margin for a TTL, in ms: 1 % of it plus 2 ms, the allowance Redis's Redlock makes for
 * clock drift. That is ten times {@link minimumSafetyMarginMs}, the most two clocks disciplined by the
 * kernel can drift apart (2 × 500 ppm), and quartz alone stays within about 100 ppm; the 2 ms cover
 * reading the clock and scheduling. A 10 s TTL gives 102 ms, a 2 s TTL 22 ms. (chrony slews faster by
 * default, up to 83,333 ppm while it corrects a large offset: see docs/leases.md.)
 */
export function defaultSafetyMarginMs(ttlMs: number): number {
  return Math.min(ttlMs / 2, Math.ceil(ttlMs / 100) + 2);
}

/** The timings of a held lease, as granted. */
export interface GrantedTimings {
  readonly ttlMs: number;
  readonly safetyMarginMs: number;
  readonly renewDeadlineMs: number;
  readonly retryPeriodMs: number;
}

/** Timing options after checking; undefined where the default of the granted TTL applies. */
export interface CheckedTimings {
  readonly ttlMs: number;
  readonly safetyMarginMs: number | undefined;
  readonly renewDeadlineMs: number | undefined;
  readonly retryPeriodMs: number | undefined;
}

/** Longest TTL accepted, one day: a lease that outlives its holder for longer is a configuration error. */
const TTL_MS_MAX = 86_400_000;

function lessThan(owner: string, option: string, value: number, bound: number, what: string): void {
  if (value < bound) return;
  throw new InvalidOptionError(
    'FDKIT_INVALID_OPTION',
    option,
    `${owner}: option ${option} must be less than ${what} (${+bound.toFixed(3)}), got ${value}`,
  );
}

/** The renew deadline and retry period that apply for `ttlMs` and the margin, where not given. */
function defaults(
  ttlMs: number,
  safetyMarginMs: number,
  renewDeadlineMs: number | undefined,
  retryPeriodMs: number | undefined,
): { renewDeadlineMs: number; retryPeriodMs: number } {
  const renew = renewDeadlineMs ?? Math.min((ttlMs * 2) / 3, ttlMs - safetyMarginMs);
  return { renewDeadlineMs: renew, retryPeriodMs: retryPeriodMs ?? Math.min(ttlMs / 3, renew / 2) };
}

/**
 * Checks the timing options of an `acquire` call for `owner` (named in messages): each a number in
 * range, and retryPeriodMs < renewDeadlineMs < ttlMs - safetyMarginMs, with defaults where left out.
 */
export function checkTimings(
  owner: string,
  options: LeaseTimings & { safetyMarginMs?: number },
): CheckedTimings {
  const ttlMs = checkNumber(owner, 'ttlMs', options.ttlMs, { min: 1, max: TTL_MS_MAX, integer: true });
  const safetyMarginMs =
    options.safetyMarginMs === undefined
      ? undefined
      : checkNumber(owner, 'safetyMarginMs', options.safetyMarginMs, {
          min: minimumSafetyMarginMs(ttlMs),
          max: ttlMs / 2,
        });
  const margin = safetyMarginMs ?? defaultSafetyMarginMs(ttlMs);
  const positive = { min: 0, minExclusive: true } as const;
  const renewDeadlineMs =
    options.renewDeadlineMs === undefined
      ? undefined
      : checkNumber(owner, 'renewDeadlineMs', options.renewDeadlineMs, positive);
  if (renewDeadlineMs !== undefined) {
    lessThan(owner, 'renewDeadlineMs', renewDeadlineMs, ttlMs - margin, 'ttlMs - safetyMarginMs');
  }
  const retryPeriodMs =
    options.retryPeriodMs === undefined
      ? undefined
      : checkNumber(owner, 'retryPeriodMs', options.retryPeriodMs, positive);
  if (retryPeriodMs !== undefined) {
    const renew = defaults(ttlMs, margin, renewDeadlineMs, retryPeriodMs).renewDeadlineMs;
    lessThan(owner, 'retryPeriodMs', retryPeriodMs, renew, 'renewDeadlineMs');
  }
  return { ttlMs, safetyMarginMs, renewDeadlineMs, retryPeriodMs };
}

/**
 * The timings of a lease granted for `grantedTtlMs` (at least the requested TTL). The margin is never
 * below {@link minimumSafetyMarginMs} of the granted TTL, since the clocks drift over what was granted.
 */
export function grantedTimings(checked: CheckedTimings, grantedTtlMs: number): GrantedTimings {
  const safetyMarginMs = Math.max(
    checked.safetyMarginMs ?? defaultSafetyMarginMs(grantedTtlMs),
    minimumSafetyMarginMs(grantedTtlMs),
  );
  return {
    ttlMs: grantedTtlMs,
    safetyMarginMs,
    ...defaults(grantedTtlMs, safetyMarginMs, checked.renewDeadlineMs, checked.retryPeriodMs),
  };
}
