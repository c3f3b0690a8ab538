/**
 * Where a detector's verdict turns. Every detector here suspects a silent peer more the longer the silence
 * lasts, so after a heartbeat there is one moment from which it holds the peer unavailable until the next
 * heartbeat. Each detector computes that moment from its formula (the inverse of phi, the timeout, Chen's
 * expected arrival plus the margin); rounding can put the formula's answer a few ulps before the instant
 * at which `isAvailable` actually turns false, and this nudges it past them, so that callers which
 * schedule on it (the trace replay, timers) never see an available peer at the moment they were promised
 * an unavailable one.
 */

const float = new Float64Array(1);
const bits = new BigUint64Array(float.buffer);

/** The smallest double above `x` (`x` itself for NaN and +Infinity). */
export function nextUp(x: number): number {
  if (Number.isNaN(x) || x === Number.POSITIVE_INFINITY) return x;
  if (x === 0) return Number.MIN_VALUE;
  float[0] = x;
  bits[0] = x > 0 ? bits[0]! + 1n : bits[0]! - 1n;
  return float[0];
}

// Far more than the error of any formula here, which is a few ulps; bounds the loop whatever happens.
const NUDGES_MAX = 64;

/**
 * The first time at or after `estimateMs` at which `isAvailableAt` is false, searched in steps of one
 * ulp that double each time: `estimateMs`, then 1, 3, 7, … ulps later, which is exact while the estimate
 * is at most one ulp early and less than twice as far past the estimate as the turn beyond that.
 * `estimateMs` comes from the detector's formula and is at most a few ulps early, so this returns after a
 * step or two. +Infinity if the verdict never turns within the search, and, without asking
 * `isAvailableAt`, for an estimate that is +Infinity or NaN (a detector that has not heard a heartbeat).
 */
export function settleUnavailableAt(estimateMs: number, isAvailableAt: (atMs: number) => boolean): number {
  let at = estimateMs;
  if (!(at < Number.POSITIVE_INFINITY)) return Number.POSITIVE_INFINITY;
  let step = nextUp(Math.abs(at)) - Math.abs(at);
  for (let i = 0; i < NUDGES_MAX; i++) {
    if (!isAvailableAt(at)) return at;
    at += step;
    step *= 2;
  }
  return Number.POSITIVE_INFINITY;
}
