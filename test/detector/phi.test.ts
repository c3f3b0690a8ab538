import { describe, expect, it } from 'vitest';
import { PHI_FACTOR, phi } from '../../src/index.js';

// Reference values worked out by hand from Akka's logistic approximation of the normal CDF:
//   y = (t − mean) / sd,  e = exp(−y·(1.5976 + 0.070566·y²)),
//   phi = −log10(e / (1 + e)) when t > mean, else −log10(1 − 1 / (1 + e)).
describe('phi (normal model, Akka formula)', () => {
  it('is log10(2) at the mean: half the heartbeats arrive later than the mean', () => {
    // y = 0, e = exp(0) = 1, phi = −log10(1 − 1/2) = log10 2
    expect(phi(1000, 1000, 100)).toBe(0.3010299956639812);
  });

  it('matches the hand-computed value three deviations late', () => {
    // y = 3, y·(1.5976 + 0.070566·9) = 3 · 2.232694 = 6.698082, e = exp(−6.698082) = 0.001233275057243593
    // phi = −log10(0.001233275057243593 / 1.001233275057243593) = 2.9094753264849538
    expect(phi(1300, 1000, 100)).toBeCloseTo(2.9094753264849538, 12);
  });

  it('matches the hand-computed value five deviations late', () => {
    // y = 5, 5·(1.5976 + 0.070566·25) = 5 · 3.36175 = 16.80875, e = 5.0124797060309684e-8
    // phi = −log10(e / (1 + e)) = 7.299947394460206
    expect(phi(1500, 1000, 100)).toBeCloseTo(7.299947394460206, 12);
  });

  it('matches the hand-computed value two deviations early', () => {
    // y = −2, −2·(1.5976 + 0.070566·4) = −3.759728, e = exp(3.759728) = 42.93674559550094
    // phi = −log10(1 − 1/43.93674559550094) = 0.009998761629963108
    expect(phi(800, 1000, 100)).toBeCloseTo(0.009998761629963108, 14);
  });

  it('agrees with the true normal tail within the approximation error Akka quotes', () => {
    // P(Z > 3) = 0.0013498980316301; the approximation's CDF error is at most 0.00014 around y = ±3.16.
    const approxTail = 10 ** -phi(1300, 1000, 100);
    expect(Math.abs(approxTail - 0.0013498980316301)).toBeLessThan(0.00014);
  });

  it('is +Infinity where the tail underflows, and exactly 0 (not −0) far before the mean', () => {
    expect(phi(1e6, 1000, 100)).toBe(Number.POSITIVE_INFINITY);
    const early = phi(-1e6, 1000, 100);
    expect(early).toBe(0);
    expect(Object.is(early, -0)).toBe(false);
  });

  it('grows with silence', () => {
    let previous = -1;
    for (let t = 0; t <= 12_000; t += 25) {
      const value = phi(t, 1000, 200);
      expect(value).toBeGreaterThanOrEqual(previous);
      previous = value;
    }
    expect(previous).toBe(Number.POSITIVE_INFINITY);
  });
});

describe('PHI_FACTOR', () => {
  it("is Cassandra's 1 / ln 10, so PHI_FACTOR · t / mean = −log10(exp(−t / mean))", () => {
    expect(PHI_FACTOR).toBeCloseTo(Math.LOG10E, 15);
    // an exponential model with mean 1000 ms after 2500 ms of silence: P_later = e^−2.5
    expect(PHI_FACTOR * (2500 / 1000)).toBeCloseTo(-Math.log10(Math.exp(-2.5)), 14);
  });
});
