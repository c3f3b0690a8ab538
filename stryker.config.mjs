// Mutation testing as a bench: `npm run mutate` (minutes to hours; not part of `npm test`). Stryker
// mutates the folders below one mutant at a time and runs the unit tier (vitest.mutate.config.ts) on
// each, only the tests that cover the mutated code; `bench/mutation-report.ts` then prints the score per
// folder from the JSON report. Narrow a run with `npx stryker run --mutate 'src/detector/**/*.ts'`, and
// the tests with FDKIT_MUTATE_TESTS (see vitest.mutate.config.ts).
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
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  clearTextReporter: { allowColor: false, logTests: false, maxTestsToLog: 0 },
  // Two cores, shared: one test process at a time leaves room for the rest of the machine.
  concurrency: 1,
  timeoutMS: 60_000,
  timeoutFactor: 2,
  thresholds: { high: 80, low: 60, break: null },
  tempDirName: '.stryker-tmp',
  cleanTempDir: true,
};
