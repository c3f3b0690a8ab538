/**
 * The I/O shared by the benches: the Biome-shaped JSON they write, atomic result files and the end of a
 * run that writes one, progress on stderr, where they ran. Statistics are in `stats.ts`, tables and
 * number formats in `format.ts`, command lines in `flags.ts`.
 */
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';

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

/** Resolves after `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
