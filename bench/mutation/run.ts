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
 *
 * `--full` ignores the incremental files and tests every mutant again.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { benchFlags } from '../support/flags.js';
import { MUTATION_FOLDERS, reportPath } from './folders.js';

const USAGE = `usage: npx tsx bench/mutation/run.ts [--folder NAME,...] [--full]
  --folder  the folders to run, of: ${MUTATION_FOLDERS.map((f) => f.name).join(', ')} (default all)
  --full    test every mutant again, not only those whose code or tests changed`;

function main(): void {
  const flags = benchFlags('bench/mutation/run.ts', USAGE, process.argv.slice(2), {
    folder: { kind: 'list' },
    full: { kind: 'boolean' },
  });
  const asked = flags.get('folder');
  const names = Array.isArray(asked) ? asked : MUTATION_FOLDERS.map((f) => f.name);
  const unknown = names.filter((n) => !MUTATION_FOLDERS.some((f) => f.name === n));
  if (unknown.length > 0) {
    process.stderr.write(`bench/mutation/run.ts: --folder: unknown ${unknown.join(', ')}\n${USAGE}\n`);
    process.exit(2);
  }
  mkdirSync('bench/results/mutation', { recursive: true });
  const folders = MUTATION_FOLDERS.filter((f) => names.includes(f.name));
  for (const [i, folder] of folders.entries()) {
    process.stdout.write(`\n[${i + 1}/${folders.length}] ${folder.name}: ${folder.mutate.join(' ')}\n`);
    const report = reportPath(folder.name);
    const args = [
      'stryker',
      'run',
      '--mutate',
      folder.mutate.join(','),
      '--incremental',
      '--incrementalFile',
      report,
      '--reporters',
      'progress,clear-text,html',
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
  }
}

main();
