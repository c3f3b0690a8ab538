/**
 * The folders the mutation bench covers (the issue that asked for it names them), and for each the
 * tests that run against its mutants: its own module's tests under test/, in the unit tier
 * (vitest.mutate.config.ts drops the system tier and the files on real sockets).
 */
export interface MutationFolder {
  /** The name of its report, bench/results/mutation/<name>.json, and of `--folder`. */
  readonly name: string;
  /** Globs of the source Stryker mutates. */
  readonly mutate: readonly string[];
  /** Globs of the test files run against each mutant. */
  readonly tests: readonly string[];
}

export const MUTATION_FOLDERS: readonly MutationFolder[] = [
  { name: 'detector', mutate: ['src/detector/**/*.ts'], tests: ['test/detector/**/*.test.ts'] },
  { name: 'sim-metrics', mutate: ['src/sim/metrics.ts'], tests: ['test/sim/metrics*.test.ts'] },
  {
    name: 'heartbeat',
    mutate: ['src/heartbeat/**/*.ts'],
    // The heartbeat wire format and the monitor's option checks test the core through its messages.
    tests: [
      'test/heartbeat/**/*.test.ts',
      'test/wire/heartbeat.test.ts',
      'test/node/heartbeat-monitor-options.test.ts',
    ],
  },
  { name: 'wire', mutate: ['src/wire/**/*.ts'], tests: ['test/wire/**/*.test.ts'] },
  { name: 'fencing', mutate: ['src/fencing/**/*.ts'], tests: ['test/fencing/**/*.test.ts'] },
  { name: 'swim', mutate: ['src/swim/**/*.ts'], tests: ['test/swim/**/*.test.ts'] },
];

/** The report of folder `name`: Stryker's JSON report, which is also its incremental file. */
export function reportPath(name: string): string {
  return `bench/results/mutation/${name}.json`;
}
