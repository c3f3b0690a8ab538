/**
 * The mutation score per folder, from the per-folder Stryker reports that `bench/mutation/run.ts`
 * writes (bench/results/mutation/<folder>.json), and each undetected mutant with its disposition: the
 * reason it is equivalent, from bench/mutation/equivalents.ts, or UNEXPLAINED. Score = detected /
 * (detected + undetected), Stryker's definition: detected = killed + timed out, undetected = survived
 * + not covered by any test; mutants that did not compile or were ignored do not count.
 *
 *   npx tsx bench/mutation/report.ts [--folder NAME,...] [--markdown FILE] [--check]
 *
 * `--markdown` also writes the tables to FILE (bench/results/mutation.md by convention); `--check`
 * exits 1 when a survivor has no disposition. Part reports not yet merged (bench/mutation/merge.ts)
 * count over their folder's report for the files they hold.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { benchFlags } from '../support/flags.js';
import { formatTable, markdownTable } from '../support/format.js';
import type { Equivalent } from './equivalent.js';
import { EQUIVALENTS } from './equivalents.js';
import { MUTATION_FOLDERS, partsOf, reportPath } from './folders.js';

type Status =
  | 'Killed'
  | 'Survived'
  | 'NoCoverage'
  | 'Timeout'
  | 'CompileError'
  | 'RuntimeError'
  | 'Ignored'
  | 'Pending';

interface Position {
  readonly line: number;
  readonly column: number;
}

interface Mutant {
  readonly id: string;
  readonly mutatorName: string;
  readonly replacement?: string;
  readonly status: Status;
  readonly location: { readonly start: Position; readonly end: Position };
}

/** The part of Stryker's JSON report (mutation-testing-report-schema) this script reads. */
export interface Report {
  readonly files: Readonly<Record<string, { readonly source?: string; readonly mutants: readonly Mutant[] }>>;
}

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

/** One undetected mutant, with the code it replaced and what is known of it. */
export interface Survivor {
  readonly file: string;
  readonly line: number;
  readonly column: number;
  readonly status: 'Survived' | 'NoCoverage';
  readonly mutator: string;
  /** The source text the mutant replaced (first line of it). */
  readonly original: string;
  readonly replacement: string;
  /** Why it is equivalent, or null when nobody has said. */
  readonly why: string | null;
}

/** Counts the mutants of `report` by status, as the score of `folder`. */
export function scoreOf(folder: string, report: Report): FolderScore {
  let killed = 0;
  let timeout = 0;
  let survived = 0;
  let noCoverage = 0;
  let invalid = 0;
  for (const { mutants } of Object.values(report.files)) {
    for (const m of mutants) {
      if (m.status === 'Killed') killed++;
      else if (m.status === 'Timeout') timeout++;
      else if (m.status === 'Survived') survived++;
      else if (m.status === 'NoCoverage') noCoverage++;
      else invalid++;
    }
  }
  const detected = killed + timeout;
  const valid = detected + survived + noCoverage;
  return {
    folder,
    killed,
    timeout,
    survived,
    noCoverage,
    invalid,
    score: valid === 0 ? null : (100 * detected) / valid,
  };
}

/**
 * The text of `source` from `start` to just before `end`: the report's positions, lines and columns
 * both counted from 1.
 */
export function sourceBetween(source: string, start: Position, end: Position): string {
  const lines = source.split('\n');
  const from = start.column - 1;
  const to = end.column - 1;
  if (start.line === end.line) return (lines[start.line - 1] ?? '').slice(from, to);
  const first = (lines[start.line - 1] ?? '').slice(from);
  const middle = lines.slice(start.line, end.line - 1);
  const last = (lines[end.line - 1] ?? '').slice(0, to);
  return [first, ...middle, last].join('\n');
}

function relative(file: string): string {
  const normal = file.replaceAll('\\', '/');
  const at = normal.lastIndexOf('/src/');
  return at >= 0 ? normal.slice(at + 1) : normal;
}

/** Whether `e` explains a mutant of `file` that replaced `original` (whitespace aside) by `replacement`. */
export function explains(
  e: Equivalent,
  file: string,
  line: number,
  mutator: string,
  original: string,
  replacement: string,
): boolean {
  const squash = (s: string): string => s.replace(/\s+/g, ' ').trim();
  return (
    e.file === file &&
    e.mutator === mutator &&
    squash(e.original) === squash(original) &&
    (e.replacement === undefined || squash(e.replacement) === squash(replacement)) &&
    (e.line === undefined || e.line === line)
  );
}

/** The undetected mutants of `report`, in file and line order, each with its disposition. */
export function survivorsOf(report: Report, equivalents: readonly Equivalent[]): Survivor[] {
  const out: Survivor[] = [];
  for (const [path, { source, mutants }] of Object.entries(report.files)) {
    const file = relative(path);
    for (const m of mutants) {
      if (m.status !== 'Survived' && m.status !== 'NoCoverage') continue;
      const original = source === undefined ? '' : sourceBetween(source, m.location.start, m.location.end);
      const replacement = m.replacement ?? '';
      const line = m.location.start.line;
      const e = equivalents.find((q) => explains(q, file, line, m.mutatorName, original, replacement));
      out.push({
        file,
        line,
        column: m.location.start.column,
        status: m.status,
        mutator: m.mutatorName,
        original,
        replacement,
        why: e?.why ?? null,
      });
    }
  }
  return out.sort((a, b) =>
    a.file !== b.file ? (a.file < b.file ? -1 : 1) : a.line - b.line || a.column - b.column,
  );
}

/** Equivalents that explain none of `survivors`: stale lines, once a test kills the mutant or code moves. */
export function unused(equivalents: readonly Equivalent[], survivors: readonly Survivor[]): Equivalent[] {
  return equivalents.filter(
    (e) => !survivors.some((s) => explains(e, s.file, s.line, s.mutator, s.original, s.replacement)),
  );
}

function oneLine(s: string, max = 60): string {
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function main(): void {
  const usage = 'usage: npx tsx bench/mutation/report.ts [--folder NAME,...] [--markdown FILE] [--check]';
  const flags = benchFlags('bench/mutation/report.ts', usage, process.argv.slice(2), {
    folder: { kind: 'list' },
    markdown: { kind: 'string' },
    check: { kind: 'boolean' },
  });
  const asked = flags.get('folder');
  const runs = MUTATION_FOLDERS.filter((f) => !Array.isArray(asked) || asked.includes(f.name));
  const byFolder = new Map<string, Report['files']>();
  for (const run of runs) {
    // A part report (bench/mutation/merge.ts) holds newer results for its files than the folder's.
    for (const path of [reportPath(run.name), ...partsOf(run.name)]) {
      if (!existsSync(path)) continue;
      const report = JSON.parse(readFileSync(path, 'utf8')) as Report;
      byFolder.set(run.folder, { ...byFolder.get(run.folder), ...report.files });
    }
  }
  const scores: FolderScore[] = [];
  const survivors: Survivor[] = [];
  for (const [folder, files] of byFolder) {
    scores.push(scoreOf(folder, { files }));
    survivors.push(...survivorsOf({ files }, EQUIVALENTS));
  }
  const header = ['folder', 'score %', 'killed', 'timeout', 'survived', 'no cov', 'invalid'];
  const rows = scores.map((r) => [
    r.folder,
    r.score === null ? '-' : r.score.toFixed(2),
    String(r.killed),
    String(r.timeout),
    String(r.survived),
    String(r.noCoverage),
    String(r.invalid),
  ]);
  console.log(formatTable(header, rows));
  const unexplained = survivors.filter((s) => s.why === null);
  console.log(`\n${survivors.length} undetected, ${unexplained.length} without a disposition:`);
  for (const s of unexplained) {
    console.log(
      `${s.file}:${s.line}:${s.column}  ${s.status}  ${s.mutator}  ${JSON.stringify(s.original)} -> ${JSON.stringify(s.replacement)}`,
    );
  }
  // Only a file some report covers can show a line stale: a folder left out has no survivors here.
  const reported = new Set([...byFolder.values()].flatMap((files) => Object.keys(files).map(relative)));
  const judged = EQUIVALENTS.filter((e) => reported.has(e.file));
  const stale = unused(judged, survivors);
  for (const e of stale)
    console.log(`stale disposition: ${e.file} ${e.mutator} ${JSON.stringify(e.original)}`);
  const path = flags.get('markdown');
  if (typeof path === 'string') {
    const lines = [
      '# Mutation scores',
      '',
      'Written by `npx tsx bench/mutation/report.ts --markdown bench/results/mutation.md` from the reports',
      'of `npm run mutate` (each folder against its own module’s unit tests; see bench/mutation/run.ts).',
      '',
      markdownTable(header, rows),
      '',
      '## Undetected mutants and why each is equivalent',
      '',
      markdownTable(
        ['where', 'mutator', 'original → mutant', 'why'],
        survivors.map((s) => [
          `${s.file}:${s.line}`,
          s.mutator,
          `\`${oneLine(s.original).replaceAll('|', '\\|')}\` → \`${oneLine(s.replacement).replaceAll('|', '\\|')}\``,
          (s.why ?? 'UNEXPLAINED').replaceAll('|', '\\|'),
        ]),
      ),
      '',
    ];
    writeFileSync(path, lines.join('\n'));
  }
  if (flags.has('check') && (unexplained.length > 0 || stale.length > 0)) process.exit(1);
}

if (import.meta.url === `file://${process.argv[1]}`) main();
