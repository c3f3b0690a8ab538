import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Simulation and property suites are CPU-bound; two workers match the CI machine's two cores.
    maxWorkers: 2,
    testTimeout: 60_000,
  },
});
