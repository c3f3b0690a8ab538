/**
 * The phi function of the accrual failure detector (Hayashibara, Défago, Yared and Katayama, "The φ
 * accrual failure detector", SRDS 2004): φ = −log10(P_later(t)), the improbability of a silence of t ms
 * given the observed heartbeat inter-arrival times.
 *
 * Two models of inter-arrival times are provided:
 * - normal, with the logistic approximation of the normal CDF that Akka's `PhiAccrualFailureDetector`
 *   uses (`1 / (1 + e^(−y(1.5976 + 0.070566 y²)))`, error at most 0.00014 at y = ±3.16), computed exactly
 *   as Akka computes it so that the numbers agree to the last bit;
 * - exponential, as Cassandra's `FailureDetector` computes it: φ = t / mean × (1 / ln 10).
 */
import { InvalidArgumentError } from '../errors.js';

/** Cassandra's PHI_FACTOR, 1 / ln(10): turns t / mean into −log10(e^(−t / mean)). */
export const PHI_FACTOR = 1 / Math.LN10;

/**
 * Phi of the normal model without argument checks, for the detectors' hot path. Callers guarantee a
 * finite mean and a positive standard deviation; the result is then never NaN and never negative.
 */
export function normalPhiUnchecked(timeDiffMs: number, meanMs: number, stdDeviationMs: number): number {
  const y = (timeDiffMs - meanMs) / stdDeviationMs;
  const e = Math.exp(-y * (1.5976 + 0.070566 * y * y));
  // The two branches are Akka's: each avoids the cancellation the other would suffer on its side.
  // Adding 0 turns the −0 that −log10(1) gives into 0.
  return (timeDiffMs > meanMs ? -Math.log10(e / (1 + e)) : -Math.log10(1 - 1 / (1 + e))) + 0;
}

/**
 * Phi of the normal model: how improbable a silence of `timeDiffMs` is when heartbeat intervals follow
 * N(`meanMs`, `stdDeviationMs`²). Returns +Infinity where the tail underflows, never NaN or a negative
 * number.
 *
 * @example
 * ```ts
 * phi(1000, 1000, 100); // 0.30103 (= log10 2: half the heartbeats arrive later than the mean)
 * phi(1300, 1000, 100); // 2.87: three deviations late
 * ```
 * @throws {@link InvalidArgumentError} when `timeDiffMs` is NaN, `meanMs` is not finite or
 * `stdDeviationMs` is not a finite positive number.
 */
export function phi(timeDiffMs: number, meanMs: number, stdDeviationMs: number): number {
  if (Number.isNaN(timeDiffMs)) {
    throw new InvalidArgumentError('timeDiffMs', 'phi: timeDiffMs must be a number, got NaN');
  }
  if (!Number.isFinite(meanMs)) {
    throw new InvalidArgumentError('meanMs', `phi: meanMs must be a finite number, got ${meanMs}`);
  }
  if (!Number.isFinite(stdDeviationMs) || stdDeviationMs <= 0) {
    throw new InvalidArgumentError(
      'stdDeviationMs',
      `phi: stdDeviationMs must be a finite number > 0, got ${stdDeviationMs}`,
    );
  }
  return normalPhiUnchecked(timeDiffMs, meanMs, stdDeviationMs);
}

/**
 * Phi of the exponential model without argument checks: Cassandra's `PHI_FACTOR × t / mean`, 0 for t ≤ 0.
 * Callers guarantee a finite positive mean.
 */
export function exponentialPhiUnchecked(timeDiffMs: number, meanMs: number): number {
  return timeDiffMs > 0 ? PHI_FACTOR * (timeDiffMs / meanMs) : 0;
}

// The coefficients of the logistic approximation in normalPhiUnchecked.
const LOGISTIC_LINEAR = 1.5976;
const LOGISTIC_CUBIC = 0.070566;

/**
 * The inverse of the normal model's phi, in standard deviations: the `y` at which a silence of
 * `mean + y × stdDeviation` has phi `level`. Both branches of {@link normalPhiUnchecked} compute
 * phi = log10(1 + e^(y(1.5976 + 0.070566 y²))), so y is the one real root of the cubic
 * 0.070566 y³ + 1.5976 y = ln(10^level − 1) (its left side is odd and strictly increasing). Newton's
 * method started above the root descends onto it monotonically, the cubic being convex there.
 *
 * The root is exact to rounding: phi evaluated at `mean + y × stdDeviation` may fall short of `level` by
 * an ulp or so, which callers that schedule on it must allow for. `level` must be a finite number > 0
 * (unchecked: this serves the detectors' scheduling, which validated it).
 */
export function normalDeviationsAtPhi(level: number): number {
  const x = level * Math.LN10;
  // ln(10^level − 1) = x + ln(1 − e^−x), without overflow for large levels; expm1 keeps the digits of
  // 1 − e^−x that 1 − exp(−x) would cancel for small ones (exp(−x) rounds to 1 below level 5e−17).
  const c = x + Math.log(-Math.expm1(-x));
  const target = Math.abs(c);
  // Both bounds lie above the root: each term alone is below the target there.
  let y = Math.min(target / LOGISTIC_LINEAR, Math.cbrt(target / LOGISTIC_CUBIC));
  for (let i = 0; i < 64; i++) {
    const f = y * (LOGISTIC_LINEAR + LOGISTIC_CUBIC * y * y) - target;
    const next = y - f / (LOGISTIC_LINEAR + 3 * LOGISTIC_CUBIC * y * y);
    if (!(next < y)) break; // converged: rounding stops the descent
    y = next;
  }
  return c < 0 ? -y : y;
}
