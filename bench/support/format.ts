/**
 * How the benches print numbers and tables: plain-text tables for stdout, markdown tables for the `.md`
 * results (one layout, so that they read alike), numbers, spreads and ratios as table cells.
 */
import { round, type Spread } from './stats.js';

/**
 * A plain-text table: a header, a rule, rows; columns listed in `left` are left-aligned, the others
 * right-aligned (numbers).
 */
export function formatTable(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  left: ReadonlySet<number> = new Set([0]),
): string {
  const widths = header.map((h, col) => Math.max(h.length, ...rows.map((row) => (row[col] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((cell, col) => (left.has(col) ? cell.padEnd(widths[col]!) : cell.padStart(widths[col]!)))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

/** A markdown table: the header, its rule, then one line per row; cells are written as given. */
export function markdownTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

/** A number for a table: integers as they are, others with up to `digits` decimals; `–` when missing. */
export function formatNumber(x: number | null, digits = 2): string {
  if (x === null || !Number.isFinite(x)) return '–';
  if (Number.isInteger(x)) return String(x);
  return x.toFixed(digits);
}

/** Prints `x / scale` with exactly `digits` decimals (scale 1000 prints milliseconds as seconds). */
export function fixedDigits(digits: number, scale = 1): (x: number) => string {
  return (x) => (x / scale).toFixed(digits);
}

/** Prints `x` rounded to `digits` decimals, and an integer without any (`formatNumber`). */
export function plainDigits(digits: number): (x: number) => string {
  return (x) => formatNumber(round(x, digits), digits);
}

/**
 * A spread as text: `median (min–max)`, each printed with `format`; just the median when the range
 * prints as a single value; `–` when empty.
 */
export function formatSpread(s: Spread, format: (x: number) => string): string {
  if (s.median === null || s.min === null || s.max === null) return '–';
  const m = format(s.median);
  const lo = format(s.min);
  const hi = format(s.max);
  return lo === hi ? m : `${m} (${lo}–${hi})`;
}

/**
 * A ratio of two measurements for a table: `0.12 ×` for most, two significant digits below 0.01,
 * `a vs b` when either is zero (counts of false positives often are), `–` when either is missing.
 */
export function formatRatio(a: number | null, b: number | null): string {
  if (a === null || b === null) return '–';
  if (b === 0 || a === 0) return `${formatNumber(a)} vs ${formatNumber(b)}`;
  const r = a / b;
  if (r !== 0 && Math.abs(r) < 0.01) return `${r.toPrecision(2)} ×`;
  return `${r.toFixed(2)} ×`;
}
