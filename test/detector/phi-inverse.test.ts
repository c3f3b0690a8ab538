/**
 * The inverse of phi the heartbeat monitor schedules on (`normalDeviationsAtPhi`,
 * `PhiAccrualDetector.silenceAtPhi`): at the silence it gives, phi equals the level to rounding, and a
 * hair earlier it is below, for any level and any history (fast-check, fixed seed).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normalDeviationsAtPhi, phi } from '../../src/detector/phi.js';
import { PhiAccrualDetector } from '../../src/detector/phi-accrual.js';
import { expectArgumentError } from '../support/validation.js';

const options = { seed: 42, numRuns: 1000 };

/**
 * ln(10^level − 1), by the series ln(x) + x/2 + x²/24 of ln(e^x − 1) (x = level·ln 10) where 10^level
 * is too close to 1 to subtract, and as level·ln 10 where 10^level overflows (ln(1 − 10^−level) is
 * below 1e−300 there).
 */
function lnTenToTheLevelMinusOne(level: number): number {
  const x = level * Math.LN10;
  if (level < 1e-3) return Math.log(x) + x / 2 + (x * x) / 24;
  if (level > 300) return x;
  return Math.log(10 ** level - 1);
}

/** The real root y >= 0 of 0.070566 y³ + 1.5976 y = target, bisected down to adjacent doubles. */
function cubicRoot(target: number): number {
  let lo = 0;
  let hi = 1 + target; // 1.5976 y > target beyond it
  for (let i = 0; i < 5000; i++) {
    const mid = lo + (hi - lo) / 2;
    if (mid === lo || mid === hi) break;
    if (mid * (1.5976 + 0.070566 * mid * mid) < target) lo = mid;
    else hi = mid;
  }
  return lo;
}
/** Levels from tiny to where the normal tail underflows (phi turns +Infinity near 308). */
const level = fc.oneof(
  fc.double({ min: 1e-3, max: 300, noNaN: true }),
  fc.constantFrom(0.01, Math.log10(2), 1, 5, 8, 12, 16, 100, 300),
);

describe('normalDeviationsAtPhi', () => {
  it('phi at mean + y·sd is the level, to rounding, and lower a hair earlier', () => {
    fc.assert(
      fc.property(level, fc.double({ min: 1, max: 10_000, noNaN: true }), (l, sd) => {
        const y = normalDeviationsAtPhi(l);
        const at = 1000 + y * sd;
        expect(Math.abs(phi(at, 1000, sd) - l)).toBeLessThanOrEqual(1e-9 * l);
        expect(phi(at - 1e-6 * sd, 1000, sd)).toBeLessThan(l);
      }),
      options,
    );
  });

  it('solves the cubic over the whole range of levels, from 1e−300 to 1e300 (bisection oracle)', () => {
    for (const l of [
      ...Array.from({ length: 61 }, (_, k) => 10 ** (10 * k - 300)),
      ...[1e-20, 1e-16, 3e-12, 1e-8, 1e-4, 0.01, 0.2, Math.log10(2), 0.5, 3, 8, 42, 323, 5e5],
    ]) {
      const c = lnTenToTheLevelMinusOne(l);
      const root = cubicRoot(Math.abs(c));
      const expected = c < 0 ? -root : root;
      const y = normalDeviationsAtPhi(l);
      expect(Math.abs(y - expected), `level ${l}: ${y} vs ${expected}`).toBeLessThanOrEqual(
        1e-12 * Math.max(1, Math.abs(expected)),
      );
    }
  });

  it('is 0 at log10 2 (phi at the mean), negative below it, and increasing', () => {
    expect(Math.abs(normalDeviationsAtPhi(Math.log10(2)))).toBeLessThan(1e-7);
    expect(normalDeviationsAtPhi(0.1)).toBeLessThan(0);
    const levels = [0.01, 0.1, 0.5, 1, 5, 12, 50, 300];
    const ys = levels.map(normalDeviationsAtPhi);
    for (let i = 1; i < ys.length; i++) expect(ys[i]!).toBeGreaterThan(ys[i - 1]!);
  });
});

describe('PhiAccrualDetector.silenceAtPhi', () => {
  const history = fc.array(fc.double({ min: 1, max: 5000, noNaN: true }), { minLength: 0, maxLength: 40 });

  it.each(['normal', 'exponential'] as const)(
    '%s: phi at last heartbeat + silenceAtPhi(level) is the level, for any history',
    (distribution) => {
      fc.assert(
        fc.property(history, level, fc.double({ min: 0, max: 5000, noNaN: true }), (gaps, l, pause) => {
          const d = new PhiAccrualDetector({
            distribution,
            acceptableHeartbeatPauseMs: pause,
            threshold: 1000,
          });
          let t = 10_000;
          d.heartbeat(t);
          for (const gap of gaps) {
            t += gap;
            d.heartbeat(t);
          }
          const silence = d.silenceAtPhi(l);
          if (silence <= 0) return; // the level is below phi at the heartbeat itself
          const at = d.phi(t + silence);
          expect(Math.abs(at - l)).toBeLessThanOrEqual(1e-9 * Math.max(1, l));
          expect(d.phi(t + silence * (1 - 1e-6) - 1e-6)).toBeLessThan(l);
        }),
        options,
      );
    },
  );

  it('is NaN before the first heartbeat, and rejects a level that is not finite and > 0', () => {
    const d = new PhiAccrualDetector();
    expect(d.silenceAtPhi(8)).toBeNaN();
    for (const bad of [0, -0, -1, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
      const e = expectArgumentError(() => d.silenceAtPhi(bad), 'level');
      expect(e.message).toBe(`PhiAccrualDetector: level must be a finite number > 0, got ${bad}`);
    }
  });

  it('is a number, never NaN, for the largest levels, where 10^level overflows', () => {
    const d = new PhiAccrualDetector();
    d.heartbeat(0);
    const huge = d.silenceAtPhi(1e300);
    expect(huge).toBeGreaterThan(1e100);
    const largest = d.silenceAtPhi(Number.MAX_VALUE);
    expect(largest).not.toBeNaN();
    expect(largest).toBeGreaterThanOrEqual(huge);
  });
});
