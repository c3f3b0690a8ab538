import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Two tiers, as vitest projects (`npm test` runs both; `npm run test:unit` the first alone):
 * - `unit`: every `test/**\/*.test.ts` but the system tier's. No root, network namespace, etcd, database
 *   server, spawned process or dist/; loopback sockets and the in-memory network are fine.
 * - `system`: the `*.system.test.ts` files, the ones that spawn a process, start etcd, PostgreSQL or
 *   MariaDB, build network namespaces, or run the built package in dist/ (the CLI, the examples).
 * test/project/tiers.test.ts checks that each file's name matches what it does.
 */
const SYSTEM = 'test/**/*.system.test.ts';

export default defineConfig({
  test: {
    // Simulation and property suites are CPU-bound; two workers match the CI machine's two cores.
    maxWorkers: 2,
    testTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['test/**/*.test.ts'], exclude: [...configDefaults.exclude, SYSTEM] },
      },
      { extends: true, test: { name: 'system', include: [SYSTEM] } },
    ],
  },
});
