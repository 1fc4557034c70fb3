// vitest setup: tests live in test/ (mirroring src/); a summary reporter prints the plain
// "N passed, N failed" closing line that CI reads.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    reporters: ['default', './test/summary-reporter.ts'],
  },
});
