/**
 * The statistics and formats every bench shares (`bench/support/stats.ts`, `bench/support/format.ts`).
 * Each expected value is worked out by hand in the comment beside it, not by the code under test.
 */
import { describe, expect, it } from 'vitest';
import {
  fixedDigits,
  formatNumber,
  formatRatio,
  formatSpread,
  formatTable,
  markdownTable,
  plainDigits,
} from '../../bench/support/format.js';
import { median, quantile, ratio, round, spread, total } from '../../bench/support/stats.js';

describe('median and quantile', () => {
  it('takes the middle value of an odd count, whatever the order', () => {
    // sorted: 1 3 7 9 20 -> the third
    expect(median([9, 1, 20, 7, 3])).toBe(7);
  });

  it('takes the mean of the two middle values of an even count', () => {
    // sorted: 2 4 10 40 -> (4 + 10) / 2
    expect(median([40, 2, 10, 4])).toBe(7);
  });

  it('interpolates between order statistics', () => {
    // sorted 10 20 30 40 50: position (5 - 1) * 0.9 = 3.6 -> 40 + 0.6 * (50 - 40) = 46
    expect(quantile([50, 10, 40, 20, 30], 0.9)).toBeCloseTo(46, 12);
    // position 4 * 0.25 = 1 -> exactly the second: 20
    expect(quantile([50, 10, 40, 20, 30], 0.25)).toBe(20);
    expect(quantile([50, 10, 40, 20, 30], 0)).toBe(10);
    expect(quantile([50, 10, 40, 20, 30], 1)).toBe(50);
  });

  it('is NaN for no values, and leaves its input unsorted', () => {
    expect(median([])).toBeNaN();
    const xs = [3, 1, 2];
    median(xs);
    expect(xs).toEqual([3, 1, 2]);
  });
});

describe('round', () => {
  it('rounds to 3 decimals by default, or to as many as asked', () => {
    expect(round(1.23456)).toBe(1.235);
    expect(round(1.23456, 1)).toBe(1.2);
    expect(round(1234.5, 0)).toBe(1235);
  });
});

describe('spread and total', () => {
  it('gives median, min and max, ignoring null and NaN', () => {
    // present: 3 1 2 10 -> sorted 1 2 3 10, median (2 + 3) / 2
    expect(spread([3, 1, null, 2, Number.NaN, 10])).toEqual({ median: 2.5, min: 1, max: 10, n: 4 });
    expect(spread([])).toEqual({ median: null, min: null, max: null, n: 0 });
    // 1 + 2 + 3
    expect(total([1, null, 2, Number.NaN, 3])).toBe(6);
  });

  it('takes medians over the finite values only', () => {
    expect(spread([3, null, 1, 2])).toEqual({ median: 2, min: 1, max: 3, n: 3 });
    expect(spread([4, 1])).toEqual({ median: 2.5, min: 1, max: 4, n: 2 });
    expect(spread([null, Number.NaN])).toEqual({ median: null, min: null, max: null, n: 0 });
    expect(spread([5, Number.POSITIVE_INFINITY, undefined])).toEqual({ median: 5, min: 5, max: 5, n: 1 });
    expect(total([5, Number.NEGATIVE_INFINITY, undefined])).toBe(5);
  });
});

describe('ratio', () => {
  it('divides, and has no value for a missing side or a zero divisor', () => {
    expect(ratio(1, 4)).toBe(0.25);
    expect(ratio(1, 0)).toBeNull();
    expect(ratio(null, 3)).toBeNull();
    expect(ratio(3, null)).toBeNull();
  });
});

describe('number formats', () => {
  it('prints integers as they are and others with the decimals asked', () => {
    expect(formatNumber(42)).toBe('42');
    expect(formatNumber(0.125, 2)).toBe('0.13');
    expect(formatNumber(1.23456, 3)).toBe('1.235');
    expect(formatNumber(null)).toBe('–');
    expect(formatNumber(Number.NaN)).toBe('–');
  });

  it('prints ratios so that zeros and tiny ratios read right', () => {
    // 766 / 5265 = 0.1455
    expect(formatRatio(766, 5265)).toBe('0.15 ×');
    // 31 / 5100 = 0.006078: two significant digits
    expect(formatRatio(31, 5100)).toBe('0.0061 ×');
    expect(formatRatio(0, 0)).toBe('0 vs 0');
    expect(formatRatio(2, 0)).toBe('2 vs 0');
    expect(formatRatio(0, 3)).toBe('0 vs 3');
    expect(formatRatio(null, 3)).toBe('–');
  });
});

describe('formatSpread', () => {
  it('formats a spread as median (min–max), scaled, or a single value, or a dash', () => {
    // median 2500 ms = 2.5 s, range 1.0 to 4.0 s
    expect(formatSpread(spread([1000, 2500, 4000]), fixedDigits(1, 1000))).toBe('2.5 (1.0–4.0)');
    expect(formatSpread(spread([7, 7]), fixedDigits(0))).toBe('7');
    expect(formatSpread(spread([]), fixedDigits(1))).toBe('–');
  });

  it('prints integers plainly with plainDigits', () => {
    expect(formatSpread(spread([766, 700, 900]), plainDigits(0))).toBe('766 (700–900)');
    expect(formatSpread(spread([5]), plainDigits(0))).toBe('5');
    expect(formatSpread(spread([]), plainDigits(0))).toBe('–');
    // median (0.25 + 0.5) / 2 = 0.375 -> 0.38 at 2 digits; 0.25 and 0.5 keep their decimals
    expect(formatSpread(spread([0.5, 0.25]), plainDigits(2))).toBe('0.38 (0.25–0.50)');
  });

  it('prints one value when the range prints as one', () => {
    // 1.02 and 1.04 both print 1.0 at one decimal
    expect(formatSpread(spread([1.02, 1.04]), fixedDigits(1))).toBe('1.0');
  });
});

describe('tables', () => {
  it('pads plain-text columns: left-aligned labels, right-aligned numbers', () => {
    const text = formatTable(
      ['name', 'n'],
      [
        ['a', '1'],
        ['bbb', '100'],
      ],
    );
    expect(text).toBe(['name    n', '----  ---', 'a       1', 'bbb   100'].join('\n'));
  });

  it('aligns the columns it is told to the left', () => {
    const text = formatTable(['x', 'why'], [['10', 'ok']], new Set([1]));
    expect(text).toBe([' x  why', '--  ---', '10  ok'].join('\n'));
  });

  it('writes markdown tables cell for cell', () => {
    expect(markdownTable(['a', 'b'], [['1', '2']])).toBe('| a | b |\n| --- | --- |\n| 1 | 2 |');
  });
});
