/**
 * The statistics of every bench: order statistics, the median and range of a value over runs, sums and
 * ratios that tolerate missing values, and rounding. Pure functions: data in, data out.
 */

/** The median of `values` (the mean of the two middle ones for an even count); NaN when empty. */
export function median(values: readonly number[]): number {
  return quantile(values, 0.5);
}

/** The `q` quantile of `values` by linear interpolation between order statistics; NaN when empty. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

/** `x` rounded to `digits` decimals. */
export function round(x: number, digits = 3): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

/** Every number of a report rounded to 3 decimals, infinities and NaN as null, for its JSON. */
export function roundDeep(value: unknown): unknown {
  if (typeof value === 'number') return Number.isFinite(value) ? round(value, 3) : null;
  if (Array.isArray(value)) return value.map(roundDeep);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, roundDeep(v)]));
  }
  return value;
}

/** A value over several runs: its median, smallest and largest value, and how many runs had one. */
export interface Spread {
  readonly median: number | null;
  readonly min: number | null;
  readonly max: number | null;
  /** Runs that had a value (a run without the event, e.g. no crash detected, has none). */
  readonly n: number;
}

/** A value is missing when it is null, undefined, NaN or infinite: no run measures an infinity. */
function present(values: readonly (number | null | undefined)[]): number[] {
  return values.filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
}

/** The spread of the values present (null median, min and max when there are none). */
export function spread(values: readonly (number | null | undefined)[]): Spread {
  const xs = present(values);
  if (xs.length === 0) return { median: null, min: null, max: null, n: 0 };
  return { median: median(xs), min: Math.min(...xs), max: Math.max(...xs), n: xs.length };
}

/** The sum of the values present. */
export function total(values: readonly (number | null | undefined)[]): number {
  let sum = 0;
  for (const v of present(values)) sum += v;
  return sum;
}

/** `a / b`; null when either is missing, or when b is 0. */
export function ratio(a: number | null, b: number | null): number | null {
  if (a === null || b === null || b === 0) return null;
  return a / b;
}
