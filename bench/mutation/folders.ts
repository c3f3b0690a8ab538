/**
 * The folders the mutation bench covers (the issue that asked for it names them), and for each the
 * tests that run against its mutants: its own module's tests under test/, in the unit tier
 * (vitest.mutate.config.ts drops the system tier and the files on real sockets).
 */
import { existsSync, readdirSync } from 'node:fs';

export interface MutationFolder {
  /** The name of its report, bench/results/mutation/<name>.json, and of `--folder`. */
  readonly name: string;
  /**
   * The folder its score counts towards. A large folder is run in parts, each with its own report: a
   * Stryker run saves its results only when it ends, so a part that ends within a sitting is not lost
   * with one that does not.
   */
  readonly folder: string;
  /** Globs of the source Stryker mutates. */
  readonly mutate: readonly string[];
  /** Globs of the test files run against each mutant. */
  readonly tests: readonly string[];
}

const FENCING_TESTS = ['test/fencing/**/*.test.ts'];

export const MUTATION_FOLDERS: readonly MutationFolder[] = [
  {
    name: 'detector',
    folder: 'src/detector',
    mutate: ['src/detector/**/*.ts'],
    tests: ['test/detector/**/*.test.ts'],
  },
  {
    name: 'sim-metrics',
    folder: 'src/sim/metrics.ts',
    mutate: ['src/sim/metrics.ts'],
    tests: ['test/sim/metrics*.test.ts'],
  },
  {
    name: 'heartbeat',
    folder: 'src/heartbeat',
    mutate: ['src/heartbeat/**/*.ts'],
    // The heartbeat wire format and the monitor's option checks test the core through its messages.
    tests: [
      'test/heartbeat/**/*.test.ts',
      'test/wire/heartbeat.test.ts',
      'test/node/heartbeat-monitor-options.test.ts',
    ],
  },
  { name: 'wire', folder: 'src/wire', mutate: ['src/wire/**/*.ts'], tests: ['test/wire/**/*.test.ts'] },
  { name: 'fencing-sql', folder: 'src/fencing', mutate: ['src/fencing/sql/**/*.ts'], tests: FENCING_TESTS },
  { name: 'fencing-cas', folder: 'src/fencing', mutate: ['src/fencing/cas/**/*.ts'], tests: FENCING_TESTS },
  { name: 'fencing-lease', folder: 'src/fencing', mutate: ['src/fencing/*.ts'], tests: FENCING_TESTS },
  { name: 'swim', folder: 'src/swim', mutate: ['src/swim/**/*.ts'], tests: ['test/swim/**/*.test.ts'] },
];

/** The report of folder `name`: Stryker's JSON report, which is also its incremental file. */
export function reportPath(name: string): string {
  return `bench/results/mutation/${name}.json`;
}

/** Where part reports go: runs over a few files of a folder, folded in by bench/mutation/merge.ts. */
export const PARTS_DIR = 'bench/results/mutation/parts';

/** The report of part `part` of folder `name` (`bench/mutation/run.ts --files … --part`). */
export function partPath(name: string, part: string): string {
  return `${PARTS_DIR}/${name}--${part}.json`;
}

/** The part reports of the run named `name` that exist now, in name order. */
export function partsOf(name: string): string[] {
  if (!existsSync(PARTS_DIR)) return [];
  return readdirSync(PARTS_DIR)
    .filter((f) => f.startsWith(`${name}--`) && f.endsWith('.json'))
    .sort()
    .map((f) => `${PARTS_DIR}/${f}`);
}
