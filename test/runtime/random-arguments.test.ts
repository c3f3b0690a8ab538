/**
 * `Random`'s seed and `int()` arguments.
 */
import { describe, expect, it } from 'vitest';
import { Random } from '../../src/index.js';
import { expectArgumentError, NON_FINITE, shown } from '../support/validation.js';

describe('Random seed', () => {
  it.each(
    [1.5, -0.5, Number.NaN, ...NON_FINITE.slice(1), 2 ** 53, -(2 ** 53), 1e300, '1', null].map((seed) => ({
      seed,
      label: shown(seed),
    })),
  )('rejects the seed $label', ({ seed }) => {
    const e = expectArgumentError(() => new Random(seed as number), 'seed');
    expect(e.message).toContain('safe integer');
  });

  it.each([0, 1, -1, 2 ** 32, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER])(
    'accepts the seed %d',
    (seed) => {
      const a = new Random(seed);
      const b = new Random(seed);
      expect(a.seed).toBe(seed);
      expect([a.nextUint32(), a.nextUint32()]).toEqual([b.nextUint32(), b.nextUint32()]);
    },
  );

  it.each([0, -1, 0.5, 2 ** 32 + 1, Number.NaN, Number.POSITIVE_INFINITY])('int() rejects n = %s', (n) => {
    expectArgumentError(() => new Random(1).int(n), 'n');
  });
});
