/**
 * The summary of a sample that traces and detector metrics report: mean, median, 99th percentile and
 * maximum. Percentiles are nearest-rank, so each is a value of the sample.
 */

/** Mean, median, 99th percentile and maximum of a sample. */
export interface Distribution {
  /** The arithmetic mean, in the sample's unit (ms in a trace summary). */
  readonly mean: number;
  /** The median (nearest rank). */
  readonly p50: number;
  /** The 99th percentile (nearest rank). */
  readonly p99: number;
  /** The largest value. */
  readonly max: number;
}

/** Nearest-rank quantile of sorted values. */
function quantile(sorted: Float64Array, q: number): number {
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)]!;
}

/** The distribution of `values`, which it sorts in place; null when empty. */
export function distribution(values: Float64Array): Distribution | null {
  if (values.length === 0) return null;
  values.sort();
  let sum = 0;
  for (const v of values) sum += v;
  return {
    mean: sum / values.length,
    p50: quantile(values, 0.5),
    p99: quantile(values, 0.99),
    max: values[values.length - 1]!,
  };
}
