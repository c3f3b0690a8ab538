/**
 * The tests Stryker runs against each mutant (`npm run mutate`, `stryker.config.mjs`): the unit tier
 * (vitest.config.ts) without the few unit files that bind real UDP/TCP sockets on loopback, since a
 * mutation run repeats them per mutant. `FDKIT_MUTATE_TESTS` (comma-separated globs) narrows them
 * further, e.g. to the tests of one folder (`test/swim/**`) while checking the configuration. Properties
 * stop at their first counterexample without shrinking it (test/support/mutation-setup.ts).
 */
import { configDefaults, defineConfig } from 'vitest/config';

/** Unit-tier files on real sockets: slow and timing-bound under a mutant. */
const SOCKETS = [
  'test/node/encryption.test.ts',
  'test/node/heartbeat-encryption.test.ts',
  'test/node/heartbeat-udp.test.ts',
  'test/node/udp.test.ts',
  'test/transport/net.test.ts',
];

const only = process.env.FDKIT_MUTATE_TESTS?.split(',').filter((glob) => glob !== '');

export default defineConfig({
  test: {
    include: only ?? ['test/**/*.test.ts'],
    exclude: [...configDefaults.exclude, 'test/**/*.system.test.ts', ...SOCKETS],
    maxWorkers: 1,
    setupFiles: ['test/support/mutation-setup.ts'],
    testTimeout: 120_000,
  },
});
