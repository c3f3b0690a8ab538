/**
 * The mutation score per folder, from Stryker's JSON report (`npm run mutate` writes it to
 * reports/mutation/mutation.json). Score = detected / (detected + undetected), Stryker's definition:
 * detected = killed + timed out, undetected = survived + not covered by any test; mutants that did not
 * compile or were ignored do not count. `--survivors` lists each undetected mutant, file:line, with the
 * mutator and its replacement, for the disposition each needs (a test that kills it, or why it is
 * equivalent).
 *
 *   npx tsx bench/mutation-report.ts [report.json] [--survivors]
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

type Status =
  | 'Killed'
  | 'Survived'
  | 'NoCoverage'
  | 'Timeout'
  | 'CompileError'
  | 'RuntimeError'
  | 'Ignored'
  | 'Pending';

interface Mutant {
  readonly id: string;
  readonly mutatorName: string;
  readonly replacement?: string;
  readonly status: Status;
  readonly location: { readonly start: { readonly line: number; readonly column: number } };
}

interface Report {
  readonly files: Readonly<Record<string, { readonly mutants: readonly Mutant[] }>>;
}

/** The folders the issue asks a score for; a file outside them is reported under its own folder. */
const FOLDERS = [
  'src/detector',
  'src/swim',
  'src/heartbeat',
  'src/wire',
  'src/fencing',
  'src/sim/metrics.ts',
];

export interface FolderScore {
  readonly folder: string;
  readonly killed: number;
  readonly timeout: number;
  readonly survived: number;
  readonly noCoverage: number;
  readonly invalid: number;
  /** Percentage, or null when no mutant counts. */
  readonly score: number | null;
}

export function folderOf(file: string): string {
  const normal = file.replaceAll('\\', '/');
  const at = normal.indexOf('src/');
  const path = at >= 0 ? normal.slice(at) : normal;
  for (const folder of FOLDERS) if (path === folder || path.startsWith(`${folder}/`)) return folder;
  return path.slice(0, path.lastIndexOf('/'));
}

export function scores(report: Report): FolderScore[] {
  const by = new Map<
    string,
    { killed: number; timeout: number; survived: number; noCoverage: number; invalid: number }
  >();
  for (const [file, { mutants }] of Object.entries(report.files)) {
    const folder = folderOf(file);
    let s = by.get(folder);
    if (s === undefined) {
      s = { killed: 0, timeout: 0, survived: 0, noCoverage: 0, invalid: 0 };
      by.set(folder, s);
    }
    for (const m of mutants) {
      if (m.status === 'Killed') s.killed++;
      else if (m.status === 'Timeout') s.timeout++;
      else if (m.status === 'Survived') s.survived++;
      else if (m.status === 'NoCoverage') s.noCoverage++;
      else s.invalid++;
    }
  }
  return [...by.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([folder, s]) => {
      const detected = s.killed + s.timeout;
      const valid = detected + s.survived + s.noCoverage;
      return { folder, ...s, score: valid === 0 ? null : (100 * detected) / valid };
    });
}

function main(): void {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { survivors: { type: 'boolean', default: false } },
  });
  const path = positionals[0] ?? 'reports/mutation/mutation.json';
  const report = JSON.parse(readFileSync(path, 'utf8')) as Report;
  const rows = scores(report);
  const header = ['folder', 'score %', 'killed', 'timeout', 'survived', 'no cov', 'invalid'];
  const lines = rows.map((r) => [
    r.folder,
    r.score === null ? '-' : r.score.toFixed(2),
    String(r.killed),
    String(r.timeout),
    String(r.survived),
    String(r.noCoverage),
    String(r.invalid),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const format = (cells: readonly string[]): string =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  console.log(format(header));
  for (const l of lines) console.log(format(l));
  if (!values.survivors) return;
  console.log('\nundetected mutants:');
  for (const [file, { mutants }] of Object.entries(report.files)) {
    for (const m of mutants) {
      if (m.status !== 'Survived' && m.status !== 'NoCoverage') continue;
      const at = `${file}:${m.location.start.line}:${m.location.start.column}`;
      console.log(`${at}  ${m.status}  ${m.mutatorName}  ${JSON.stringify(m.replacement ?? '')}`);
    }
  }
}

if (import.meta.url === `file://${process.argv[1]}`) main();
