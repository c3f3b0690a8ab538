/**
 * The rounding nudge behind every detector's `unavailableAtMs`: `nextUp`, the next double, and
 * `settleUnavailableAt`, which moves a formula's estimate past the few ulps by which it can be early.
 * The expected doubles are worked out from the spacing of doubles: 2^(e − 52) in [2^e, 2^(e+1)).
 */
import { describe, expect, it } from 'vitest';
import { nextUp, settleUnavailableAt } from '../../src/detector/unavailable-at.js';

/** The spacing of doubles in [512, 1024), where the estimates below lie: 2^(9 − 52). */
const ULP_1000 = 2 ** -43;

/** A predicate that records where it was asked, available before `turnMs`. */
function availableBefore(turnMs: number): { asked: number[]; isAvailableAt: (atMs: number) => boolean } {
  const asked: number[] = [];
  return {
    asked,
    isAvailableAt: (atMs) => {
      asked.push(atMs);
      // A runaway search fails here rather than spinning until the test times out.
      if (asked.length > 1000) throw new Error('more than 1000 probes');
      return atMs < turnMs;
    },
  };
}

describe('nextUp', () => {
  it('is the next double: one EPSILON above 1, half of one below −1 (twice as dense there)', () => {
    expect(nextUp(1)).toBe(1 + Number.EPSILON);
    expect(nextUp(-1)).toBe(-1 + Number.EPSILON / 2);
    expect(nextUp(1000)).toBe(1000 + ULP_1000);
    // beyond 2^53 the doubles are the even integers, below it every integer
    expect(nextUp(2 ** 53)).toBe(2 ** 53 + 2);
    expect(nextUp(2 ** 53 - 1)).toBe(2 ** 53);
    expect(nextUp(-(2 ** 53))).toBe(-(2 ** 53) + 1);
  });

  it('steps from either zero to the smallest subnormal, and from −MIN_VALUE to zero', () => {
    expect(nextUp(0)).toBe(Number.MIN_VALUE);
    expect(nextUp(-0)).toBe(Number.MIN_VALUE);
    expect(nextUp(-Number.MIN_VALUE) === 0).toBe(true);
  });

  it('leaves NaN and +Infinity as they are, and steps off the ends of the finite range', () => {
    expect(nextUp(Number.NaN)).toBeNaN();
    expect(nextUp(Number.POSITIVE_INFINITY)).toBe(Number.POSITIVE_INFINITY);
    expect(nextUp(Number.MAX_VALUE)).toBe(Number.POSITIVE_INFINITY);
    expect(nextUp(Number.NEGATIVE_INFINITY)).toBe(-Number.MAX_VALUE);
  });
});

describe('settleUnavailableAt', () => {
  it('returns an estimate at which the verdict has already turned, after asking once', () => {
    const p = availableBefore(1000);
    expect(settleUnavailableAt(1000, p.isAvailableAt)).toBe(1000);
    expect(p.asked).toEqual([1000]);
  });

  it('moves an estimate one ulp early to the next double, where the verdict turns', () => {
    const p = availableBefore(1000 + ULP_1000);
    expect(settleUnavailableAt(1000, p.isAvailableAt)).toBe(1000 + ULP_1000);
    expect(p.asked).toEqual([1000, 1000 + ULP_1000]);
    // the same below zero: the doubles above −1000 are as far apart
    const q = availableBefore(-1000 + ULP_1000);
    expect(settleUnavailableAt(-1000, q.isAvailableAt)).toBe(-1000 + ULP_1000);
  });

  it('finds a turn several ulps late, less than twice as far past the estimate as the turn', () => {
    // probes at 0, 1, 3 and 7 ulps: the first at or past a turn 4 ulps late is the one 7 ulps late
    const p = availableBefore(1000 + 4 * ULP_1000);
    const at = settleUnavailableAt(1000, p.isAvailableAt);
    expect(at).toBeGreaterThanOrEqual(1000 + 4 * ULP_1000);
    expect(at).toBeLessThan(1000 + 8 * ULP_1000);
    expect(p.asked).toEqual([1000, 1000 + ULP_1000, 1000 + 3 * ULP_1000, 1000 + 7 * ULP_1000]);
    // a formula wrong by a whole second is still caught, after some 53 doublings of 2^−43 ms
    const far = availableBefore(2000);
    const farAt = settleUnavailableAt(1000, far.isAvailableAt);
    expect(farAt).toBeGreaterThanOrEqual(2000);
    expect(farAt).toBeLessThan(3000);
  });

  it('gives +Infinity for a verdict that never turns, after at most 64 probes', () => {
    const p = availableBefore(Number.POSITIVE_INFINITY);
    expect(settleUnavailableAt(1000, p.isAvailableAt)).toBe(Number.POSITIVE_INFINITY);
    expect(p.asked.length).toBeGreaterThan(0);
    expect(p.asked.length).toBeLessThanOrEqual(64);
  });

  it.each([Number.POSITIVE_INFINITY, Number.NaN])(
    'gives +Infinity for the estimate %d without asking (a detector rejects that time)',
    (estimate) => {
      const p = availableBefore(1000);
      expect(settleUnavailableAt(estimate, p.isAvailableAt)).toBe(Number.POSITIVE_INFINITY);
      expect(p.asked).toEqual([]);
    },
  );
});
