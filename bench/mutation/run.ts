/**
 * `npm run mutate`: Stryker over each folder the mutation bench covers, one folder at a time, each
 * against its own module's unit tests (test/<module>/, the unit tier of vitest.mutate.config.ts).
 *
 * Why per folder: on this project's 2-core machines one run over all of them against the whole unit
 * tier takes longer than a working session (more than three hours for src/detector alone), because a
 * mutant in the detector is covered by every simulation test. Against its own tests a folder takes
 * minutes to an hour, the score says what the module's own tests catch, and a survivor points at the
 * test file that should kill it. Each run is incremental: its report,
 * bench/results/mutation/<folder>.json, is also Stryker's incremental file, so the next run tests again
 * only the mutants whose code or covering tests changed. `bench/mutation/report.ts` then prints the
 * scores and the survivors with their dispositions.
 *
 *   npx tsx bench/mutation/run.ts [--folder detector,wire] [--full]
 *   npx tsx bench/mutation/run.ts --folder swim --files src/swim/prober.ts,… --part NAME
 *
 * `--full` ignores the incremental files and tests every mutant again. `--files` runs only those files
 * of one folder, incremental on the folder's report, and writes a part report
 * (bench/results/mutation/parts/<folder>--<NAME>.json, incremental on itself from then on), which
 * `bench/mutation/report.ts` reads over the folder's and `bench/mutation/merge.ts` folds into it: so
 * that people changing different files can each rerun theirs, in worktrees, at once.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { benchFlags } from '../support/flags.js';
import { MUTATION_FOLDERS, PARTS_DIR, partPath, reportPath } from './folders.js';

const USAGE = `usage: npx tsx bench/mutation/run.ts [--folder NAME,...] [--full] [--files FILE,... --part NAME]
  --folder  the folders to run, of: ${MUTATION_FOLDERS.map((f) => f.name).join(', ')} (default all)
  --full    test every mutant again, not only those whose code or tests changed
  --files   only these files of the one --folder, into the part report --part names`;

function usage(message: string): never {
  process.stderr.write(`bench/mutation/run.ts: ${message}\n${USAGE}\n`);
  process.exit(2);
}

/**
 * Cuts the part report at `path` down to the files of `mutate`: Stryker carries the incremental
 * file's results for the other files into its report, and those would be stale by the time a part
 * is merged (bench/mutation/merge.ts).
 */
function keepOnly(path: string, mutate: readonly string[]): void {
  const wanted = new Set(mutate.map((m) => m.replace(/:\d+(-\d+)?$/, '')));
  const report = JSON.parse(readFileSync(path, 'utf8')) as { files: Record<string, unknown> };
  report.files = Object.fromEntries(Object.entries(report.files).filter(([file]) => wanted.has(file)));
  writeFileSync(path, JSON.stringify(report));
}

function main(): void {
  const flags = benchFlags('bench/mutation/run.ts', USAGE, process.argv.slice(2), {
    folder: { kind: 'list' },
    full: { kind: 'boolean' },
    files: { kind: 'list' },
    part: { kind: 'string' },
  });
  const asked = flags.get('folder');
  const names = Array.isArray(asked) ? asked : MUTATION_FOLDERS.map((f) => f.name);
  const unknown = names.filter((n) => !MUTATION_FOLDERS.some((f) => f.name === n));
  if (unknown.length > 0) usage(`--folder: unknown ${unknown.join(', ')}`);
  const files = flags.get('files');
  const part = flags.get('part');
  if (Array.isArray(files) !== (typeof part === 'string')) usage('--files and --part go together');
  if (Array.isArray(files) && names.length !== 1) usage('--files needs exactly one --folder');
  if (typeof part === 'string' && !/^[a-z0-9-]+$/.test(part)) usage(`--part: not a-z, 0-9 and -: ${part}`);
  mkdirSync(PARTS_DIR, { recursive: true });
  const folders = MUTATION_FOLDERS.filter((f) => names.includes(f.name));
  for (const [i, folder] of folders.entries()) {
    const mutate = Array.isArray(files) ? files : folder.mutate;
    process.stdout.write(`\n[${i + 1}/${folders.length}] ${folder.name}: ${mutate.join(' ')}\n`);
    let report = reportPath(folder.name);
    if (typeof part === 'string') {
      // A part starts from the folder's results, then goes on from its own.
      const own = partPath(folder.name, part);
      if (!existsSync(own) && existsSync(report)) copyFileSync(report, own);
      report = own;
    }
    const args = [
      'stryker',
      'run',
      '--mutate',
      mutate.join(','),
      '--incremental',
      '--incrementalFile',
      report,
      '--reporters',
      typeof part === 'string' ? 'progress,clear-text' : 'progress,clear-text,html',
    ];
    if (flags.has('full')) args.push('--force');
    const run = spawnSync('npx', args, {
      stdio: 'inherit',
      env: {
        ...process.env,
        FDKIT_MUTATE_TESTS: folder.tests.join(','),
        FDKIT_MUTATE_REPORT: `reports/mutation/${folder.name}`,
      },
    });
    if (run.status !== 0) {
      process.stderr.write(`bench/mutation/run.ts: stryker failed on ${folder.name} (${run.status})\n`);
      process.exit(1);
    }
    if (Array.isArray(files)) keepOnly(report, files);
  }
}

main();
