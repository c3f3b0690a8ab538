/**
 * Folds part reports into their folder's report. A part is a Stryker run over a few files of a folder
 * (`bench/mutation/run.ts --folder swim --files … --part NAME`), written to
 * bench/results/mutation/parts/<folder>--<NAME>.json. Parts let several people rerun the files they
 * changed at once, each in a worktree, without all writing the one large folder report; this script
 * then makes the folder report whole again:
 *
 *   npx tsx bench/mutation/merge.ts [--folder NAME,...] [--keep]
 *
 * A part's files replace the folder report's; the rest stay. Stryker names tests by per-run ids, so
 * every id is renumbered over the union of both runs' tests, matched by test file and name. The part
 * files are removed once merged, unless `--keep`.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { benchFlags } from '../support/flags.js';
import { MUTATION_FOLDERS, partsOf, reportPath } from './folders.js';

interface TestDefinition {
  readonly id: string;
  readonly name: string;
  readonly [other: string]: unknown;
}

interface TestFile {
  readonly tests: readonly TestDefinition[];
  readonly source?: string;
}

interface MutantRecord {
  readonly id: string;
  readonly coveredBy?: readonly string[];
  readonly killedBy?: readonly string[];
  readonly [other: string]: unknown;
}

interface FileRecord {
  readonly mutants: readonly MutantRecord[];
  readonly [other: string]: unknown;
}

/** The parts of Stryker's JSON report that merging rewrites; everything else is carried over as is. */
export interface FullReport {
  readonly files: Readonly<Record<string, FileRecord>>;
  readonly testFiles?: Readonly<Record<string, TestFile>>;
  readonly [other: string]: unknown;
}

/** A test's identity across runs: its file and full name (ids are per run). */
function testKey(file: string, name: string): string {
  return `${file}\u0000${name}`;
}

/**
 * `base` with `part`'s files in place of its own. Test ids are renumbered from 0 over the union of
 * the two runs' tests (the part's test files win where both have one, being the newer); mutant ids
 * are renumbered from 0 in file order, since each run counts its own from 0.
 */
export function mergeReports(base: FullReport, part: FullReport): FullReport {
  const ids = new Map<string, string>();
  const testFiles: Record<string, TestFile> = {};
  const idOf = (run: FullReport): Map<string, string> => {
    const byId = new Map<string, string>();
    for (const [file, record] of Object.entries(run.testFiles ?? {}))
      for (const test of record.tests) byId.set(test.id, testKey(file, test.name));
    return byId;
  };
  const add = (file: string, test: TestDefinition): TestDefinition => {
    const key = testKey(file, test.name);
    let id = ids.get(key);
    if (id === undefined) {
      id = String(ids.size);
      ids.set(key, id);
    }
    return { ...test, id };
  };
  const partTests = part.testFiles ?? {};
  for (const [file, record] of Object.entries(partTests))
    testFiles[file] = { ...record, tests: record.tests.map((t) => add(file, t)) };
  for (const [file, record] of Object.entries(base.testFiles ?? {})) {
    const known = new Set((partTests[file]?.tests ?? []).map((t) => t.name));
    const older = record.tests.filter((t) => !known.has(t.name)).map((t) => add(file, t));
    const current = testFiles[file];
    testFiles[file] =
      current === undefined
        ? { ...record, tests: older }
        : { ...current, tests: [...current.tests, ...older] };
  }
  const baseIds = idOf(base);
  const partIds = idOf(part);
  const remap = (byId: Map<string, string>, list: readonly string[] | undefined): string[] | undefined =>
    list?.flatMap((id) => {
      const key = byId.get(id);
      const mapped = key === undefined ? undefined : ids.get(key);
      return mapped === undefined ? [] : [mapped];
    });
  const files: Record<string, FileRecord> = {};
  let next = 0;
  const renumber = (record: FileRecord, byId: Map<string, string>): FileRecord => ({
    ...record,
    mutants: record.mutants.map((m) => {
      const coveredBy = remap(byId, m.coveredBy);
      const killedBy = remap(byId, m.killedBy);
      return {
        ...m,
        id: String(next++),
        ...(coveredBy === undefined ? {} : { coveredBy }),
        ...(killedBy === undefined ? {} : { killedBy }),
      };
    }),
  });
  const names = [...new Set([...Object.keys(base.files), ...Object.keys(part.files)])].sort();
  for (const name of names) {
    const fromPart = part.files[name];
    const record = fromPart ?? base.files[name];
    if (record !== undefined) files[name] = renumber(record, fromPart === undefined ? baseIds : partIds);
  }
  return { ...base, files, testFiles };
}

function main(): void {
  const usage = 'usage: npx tsx bench/mutation/merge.ts [--folder NAME,...] [--keep]';
  const flags = benchFlags('bench/mutation/merge.ts', usage, process.argv.slice(2), {
    folder: { kind: 'list' },
    keep: { kind: 'boolean' },
  });
  const asked = flags.get('folder');
  for (const run of MUTATION_FOLDERS.filter((f) => !Array.isArray(asked) || asked.includes(f.name))) {
    const parts = partsOf(run.name);
    if (parts.length === 0) continue;
    const path = reportPath(run.name);
    let report = JSON.parse(readFileSync(path, 'utf8')) as FullReport;
    for (const part of parts) {
      const read = JSON.parse(readFileSync(part, 'utf8')) as FullReport;
      report = mergeReports(report, read);
      console.log(`${run.name}: merged ${part} (${Object.keys(read.files).length} files)`);
    }
    writeFileSync(path, JSON.stringify(report));
    if (!flags.has('keep')) for (const part of parts) rmSync(part);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) main();
