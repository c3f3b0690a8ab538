/** checkTimings (lease-timings.ts): the safety margin is at most half the TTL. */
import { describe, expect, it } from 'vitest';
import { checkTimings, grantedTimings } from '../../src/fencing/lease-timings.js';

describe('checkTimings: safetyMarginMs', () => {
  it('takes half the TTL, not more', () => {
    expect(checkTimings('acquire', { ttlMs: 10_000, safetyMarginMs: 5000 }).safetyMarginMs).toBe(5000);
    expect(() => checkTimings('acquire', { ttlMs: 10_000, safetyMarginMs: 5001 })).toThrow(
      /^acquire: option safetyMarginMs /,
    );
  });
});

describe('grantedTimings: the retry period left out', () => {
  it('is a third of the granted TTL when the renew deadline given leaves room for more', () => {
    const checked = checkTimings('acquire', { ttlMs: 9000, renewDeadlineMs: 8000 });
    expect(grantedTimings(checked, 9000)).toMatchObject({ renewDeadlineMs: 8000, retryPeriodMs: 3000 });
  });
});
