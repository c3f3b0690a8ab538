/**
 * The tests Stryker runs against each mutant (`npm run mutate`, `stryker.config.mjs`): the unit tier
 * only, everything that needs no root, network namespace, etcd, real socket or spawned process, since a
 * mutation run repeats them per mutant. `FDKIT_MUTATE_TESTS` (comma-separated globs) narrows them
 * further, e.g. to the tests of one folder while checking the configuration.
 */
import { defineConfig } from 'vitest/config';

/** Tests that need the outside world: spawned processes, etcd, netns, UDP/TCP sockets, dist/. */
const SYSTEM = [
  'agent-cluster',
  'agent-netns-loss',
  'billing-example',
  'cli',
  'demo-cluster',
  'election-example',
  'etcd-lease-epoch',
  'etcd-lease-freeze',
  'etcd-lease',
  'etcd-missing',
  'example-membership',
  'heartbeat-encryption',
  'heartbeat-udp',
  'node-encryption',
  'node-udp',
  'sim-cli',
  'trace-record',
  'transport-net',
  'tune-cli',
].map((name) => `test/${name}.test.ts`);

const only = process.env.FDKIT_MUTATE_TESTS?.split(',').filter((glob) => glob !== '');

export default defineConfig({
  test: {
    include: only ?? ['test/**/*.test.ts'],
    exclude: SYSTEM,
    maxWorkers: 1,
    testTimeout: 120_000,
  },
});
