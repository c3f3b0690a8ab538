/**
 * Helpers shared by the benches: order statistics, the Biome-shaped JSON they write, atomic result files
 * and the end of a run that writes one, progress on stderr, plain-text tables on stdout, and their
 * command lines.
 */
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';

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

/** Writes one progress line to stderr (stdout carries only the table or the JSON). */
export function progress(message: string): void {
  process.stderr.write(`${message}\n`);
}

/** Where and on what the bench ran, for the head of a result file. */
export function machine(): Record<string, string | number> {
  return {
    node: process.version,
    v8: process.versions.v8,
    platform: `${process.platform} ${process.arch}`,
    cpu: cpus()[0]?.model ?? 'unknown',
    cpuCount: cpus().length,
  };
}

/** JSON laid out the way Biome formats it (as bench/detectors.ts writes it). */
export function toJson(value: unknown, indent = ''): string {
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.every((v) => v === null || typeof v !== 'object')) {
      return `[${value.map((v) => JSON.stringify(v)).join(', ')}]`;
    }
    return `[\n${value.map((v) => inner + toJson(v, inner)).join(',\n')}\n${indent}]`;
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${inner}${JSON.stringify(k)}: ${toJson(v, inner)}`);
    return entries.length === 0 ? '{}' : `{\n${entries.join(',\n')}\n${indent}}`;
  }
  return JSON.stringify(value);
}

/**
 * Writes `bench/results/<name>` through a temporary file and a rename, so that an interrupted run never
 * leaves a truncated file where the last good one was. Returns the path written.
 */
export function writeResult(name: string, text: string): string {
  const dir = fileURLToPath(new URL('../results/', import.meta.url));
  const file = `${dir}${name}`;
  mkdirSync(dir, { recursive: true });
  writeFileSync(`${file}.tmp`, text);
  renameSync(`${file}.tmp`, file);
  return file;
}

/** What a quick run's table ends with. */
const QUICK_NOTE = 'quick smoke run: rough numbers; run without --quick to measure\n';

/**
 * The end of a bench run: writes `report` to `bench/results/<file>` as JSON and says where on stderr,
 * then prints `out.table` on stdout, or the JSON itself with `out.json`; a quick run's table ends with a
 * note that its numbers are rough.
 */
export function publish(
  file: string,
  report: unknown,
  durationMs: number,
  out: { readonly json: boolean; readonly quick: boolean; readonly table: string },
): void {
  const json = `${toJson(report)}\n`;
  const path = writeResult(file, json);
  progress(`done in ${(durationMs / 1000).toFixed(1)} s; results in ${path}`);
  process.stdout.write(out.json ? json : `${out.table}\n${out.quick ? QUICK_NOTE : ''}`);
}

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

/** Resolves after `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Says what is wrong with the command line, and the usage, on stderr; exits with status 2. */
export function usageError(message: string, usage: string): never {
  process.stderr.write(`${message}\n${usage}\n`);
  process.exit(2);
}

/** Parses `--name value` and `--flag` arguments against a list of known options; exits 2 on a mistake. */
export function parseFlags(
  argv: readonly string[],
  usage: string,
  known: Readonly<Record<string, 'number' | 'boolean' | 'string'>>,
): Record<string, number | boolean | string> {
  const out: Record<string, number | boolean | string> = {};
  const fail = (message: string): never => usageError(message, usage);
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--help' || arg === '-h') {
      process.stdout.write(`${usage}\n`);
      process.exit(0);
    }
    const [flag, inline] = arg.includes('=')
      ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)]
      : [arg, undefined];
    const name = flag.startsWith('--') ? flag.slice(2) : undefined;
    const kind = name === undefined ? undefined : known[name];
    if (name === undefined || kind === undefined) return fail(`unknown argument ${JSON.stringify(arg)}`);
    if (kind === 'boolean') {
      if (inline !== undefined) fail(`--${name} takes no value`);
      out[name] = true;
      continue;
    }
    const raw = inline ?? argv[++i];
    if (raw === undefined) return fail(`--${name} needs a value`);
    if (kind === 'string') {
      out[name] = raw;
      continue;
    }
    const value = Number(raw);
    if (!Number.isFinite(value) || value < 0)
      fail(`--${name} must be a number >= 0, got ${JSON.stringify(raw)}`);
    out[name] = value;
  }
  return out;
}
