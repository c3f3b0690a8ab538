/**
 * Aggregation of seeded simulation runs for the SWIM benches: the median and range of a value over
 * seeds, how such a spread is printed, and the off/on ratio of false positives with its convention for
 * zero. Pure functions: data in, data out.
 */
import { median } from './report.js';

/** A value over several seeds: its median, smallest and largest value, and how many runs had one. */
export interface Spread {
  readonly median: number | null;
  readonly min: number | null;
  readonly max: number | null;
  /** Runs that had a value (a run without the event, e.g. no crash detected, has none). */
  readonly n: number;
}

/** The spread of `values`, ignoring null and NaN (null median, min and max when nothing is left). */
export function spread(values: readonly (number | null | undefined)[]): Spread {
  const xs = values.filter((v): v is number => typeof v === 'number' && !Number.isNaN(v));
  if (xs.length === 0) return { median: null, min: null, max: null, n: 0 };
  return { median: median(xs), min: Math.min(...xs), max: Math.max(...xs), n: xs.length };
}

/** The sum of `values`, ignoring null and NaN. */
export function total(values: readonly (number | null | undefined)[]): number {
  let sum = 0;
  for (const v of values) if (typeof v === 'number' && !Number.isNaN(v)) sum += v;
  return sum;
}

/**
 * A spread as text: `median (min–max)`, each divided by `scale` (1000 prints milliseconds as seconds)
 * with `digits` decimals; just the median when the range is a single value; `–` when empty.
 */
export function formatSpread(s: Spread, scale = 1, digits = 1): string {
  if (s.median === null || s.min === null || s.max === null) return '–';
  const f = (x: number): string => (x / scale).toFixed(digits);
  const m = f(s.median);
  const lo = f(s.min);
  const hi = f(s.max);
  return lo === hi ? m : `${m} (${lo}–${hi})`;
}

/** How a ratio of false-positive counts is to be read. */
export type RatioBound =
  /** Both counts were positive: the ratio is off / on. */
  | 'exact'
  /** On had none: off / 1 is a lower bound (on is taken as fewer than one event). */
  | 'at-least'
  /** Neither had any: there is nothing to compare. */
  | 'none';

/** The ratio of false positives without a mechanism (`off`) to those with it (`on`). */
export interface FalsePositiveRatio {
  readonly off: number;
  readonly on: number;
  /** off / on; off / 1 when on is 0 (a lower bound); null when both are 0. */
  readonly value: number | null;
  readonly bound: RatioBound;
  /** `12.3×`, `≥ 45×` or `n/a (0 and 0)`. */
  readonly text: string;
}

/**
 * The off/on ratio of two false-positive counts (totals over the same seeds). When `on` is 0 the ratio
 * is reported as at least `off`×, i.e. as if `on` had been 1: with more seeds `on` might reach 1, never
 * less than 0, so that is the most the data show. When both are 0 there is no ratio.
 */
export function falsePositiveRatio(off: number, on: number): FalsePositiveRatio {
  if (!(off >= 0) || !(on >= 0)) throw new RangeError(`counts must be >= 0, got off ${off} and on ${on}`);
  if (on > 0) {
    const value = off / on;
    return { off, on, value, bound: 'exact', text: `${formatRatio(value)}×` };
  }
  if (off > 0) return { off, on, value: off, bound: 'at-least', text: `≥ ${formatRatio(off)}×` };
  return { off, on, value: null, bound: 'none', text: 'n/a (0 and 0)' };
}

/** A ratio with two significant digits below 10 and none above. */
function formatRatio(x: number): string {
  return x < 10 ? x.toFixed(1) : x.toFixed(0);
}

/**
 * The average loss rate of a Gilbert-Elliott channel that enters a burst with probability `enter` per
 * packet, leaves it with `exit` and loses `burstLoss` of the packets inside one.
 */
export function burstyLossRate(enter: number, exit: number, burstLoss: number): number {
  return enter + exit === 0 ? 0 : (enter / (enter + exit)) * burstLoss;
}

/**
 * The chance per packet of entering a burst that gives an average loss rate of `rate`, for bursts that
 * last 1 / `exit` packets on average and lose `burstLoss` of their packets.
 */
export function burstEnterFor(rate: number, exit: number, burstLoss: number): number {
  const share = rate / burstLoss;
  if (!(share >= 0 && share < 1)) throw new RangeError(`rate ${rate} needs burstLoss above it`);
  return (exit * share) / (1 - share);
}
