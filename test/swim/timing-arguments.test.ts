/**
 * `expectedTiming`'s cluster size argument.
 */
import { describe, expect, it } from 'vitest';
import { expectedTiming } from '../../src/index.js';
import { expectOptionError, NON_FINITE, shown } from '../support/validation.js';

describe('expectedTiming clusterSize', () => {
  const range = 'an integer >= 2 and <= 10000000';

  it.each(
    [1, 0, -1, -2, 10_000_001, 2.5, 1.999, Number.MAX_SAFE_INTEGER, ...NON_FINITE, '10', null].map(
      (value) => ({ value, label: shown(value) }),
    ),
  )('rejects $label', ({ value }) => {
    const e = expectOptionError(() => expectedTiming({}, value as number), 'clusterSize');
    expect(e.message).toContain('expectedTiming');
    expect(e.message).toContain(range);
    expect(e.message).toContain(`got ${shown(value)}`);
  });

  it.each([2, 3, 10, 32, 33, 10_000_000])('accepts %d and returns finite positive timings', (n) => {
    const timing = expectedTiming({}, n);
    for (const value of Object.values(timing)) {
      expect(Number.isFinite(value)).toBe(true);
      expect(value).toBeGreaterThan(0);
    }
  });

  it('reports an invalid field before an invalid cluster size', () => {
    expectOptionError(() => expectedTiming({ gossipNodes: 0 }, 0), 'gossipNodes');
  });
});
