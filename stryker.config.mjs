// Mutation testing as a bench: `npm run mutate` (an hour or more; not part of `npm test`) runs Stryker
// through bench/mutation/run.ts, one folder at a time against its own module's tests (FDKIT_MUTATE_TESTS,
// see vitest.mutate.config.ts), each incremental on its committed report; `bench/mutation/report.ts` then
// prints the score per folder and the survivors with their dispositions. The `mutate` list below is the
// whole set, for a plain `npx stryker run` against the whole unit tier (hours on two cores).
/** Where the reports go: FDKIT_MUTATE_REPORT names a per-folder run's files (bench/mutation/run.ts). */
const REPORT = process.env.FDKIT_MUTATE_REPORT ?? 'reports/mutation/mutation';

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutate.config.ts', related: false },
  coverageAnalysis: 'perTest',
  mutate: [
    'src/detector/**/*.ts',
    'src/swim/**/*.ts',
    'src/heartbeat/**/*.ts',
    'src/wire/**/*.ts',
    'src/fencing/**/*.ts',
    'src/sim/metrics.ts',
  ],
  reporters: ['clear-text', 'json', 'html', 'progress'],
  jsonReporter: { fileName: `${REPORT}.json` },
  htmlReporter: { fileName: `${REPORT}.html` },
  clearTextReporter: { allowColor: false, logTests: false, maxTestsToLog: 0 },
  // Two cores, shared: one test process at a time leaves room for the rest of the machine.
  concurrency: 1,
  // A mutant that loops forever costs this much beyond twice its tests' own time, and the decoder's
  // and the prober's loops give dozens of those: at 60 s they took half of a folder's run. 20 s still
  // leaves a loaded machine room, so that a slow test is not taken for a loop (a timeout counts as caught).
  timeoutMS: 20_000,
  timeoutFactor: 2,
  thresholds: { high: 80, low: 60, break: null },
  tempDirName: '.stryker-tmp',
  cleanTempDir: true,
};
