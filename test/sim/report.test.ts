/**
 * The report's quantiles (nearest rank).
 */
import { describe, expect, it } from 'vitest';
import { quantiles } from '../../src/sim/report.js';

describe('quantiles (nearest rank)', () => {
  it.each<[number[], { p50: number; p99: number; max: number }]>([
    [[5], { p50: 5, p99: 5, max: 5 }],
    [[3, 1, 2], { p50: 2, p99: 3, max: 3 }],
    [[4, 4, 1, 1], { p50: 1, p99: 4, max: 4 }],
    [[10, 2, 8, 4, 6, 1, 9, 3, 7, 5], { p50: 5, p99: 10, max: 10 }],
    [Array.from({ length: 100 }, (_, i) => 100 - i), { p50: 50, p99: 99, max: 100 }],
    [Array.from({ length: 200 }, (_, i) => i + 1), { p50: 100, p99: 198, max: 200 }],
    [Array.from({ length: 1000 }, (_, i) => (i * 7919) % 1000), { p50: 499, p99: 989, max: 999 }],
    [[-3, 0.5, 2.25], { p50: 0.5, p99: 2.25, max: 2.25 }],
  ])('of %j', (values, expected) => {
    const copy = [...values];
    expect(quantiles(values)).toEqual(expected);
    expect(values).toEqual(copy);
  });

  it('is null for an empty list', () => {
    expect(quantiles([])).toBeNull();
  });
});
