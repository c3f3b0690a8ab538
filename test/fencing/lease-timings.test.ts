/** checkTimings (lease-timings.ts): the safety margin is at most half the TTL. */
import { describe, expect, it } from 'vitest';
import { checkTimings } from '../../src/fencing/lease-timings.js';

describe('checkTimings: safetyMarginMs', () => {
  it('takes half the TTL, not more', () => {
    expect(checkTimings('acquire', { ttlMs: 10_000, safetyMarginMs: 5000 }).safetyMarginMs).toBe(5000);
    expect(() => checkTimings('acquire', { ttlMs: 10_000, safetyMarginMs: 5001 })).toThrow(
      /^acquire: option safetyMarginMs /,
    );
  });
});
