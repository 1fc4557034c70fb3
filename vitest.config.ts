// vitest setup: tests live in test/ (mirroring src/); a summary reporter prints the plain
// "N passed, N failed" closing line that CI reads; test/global-build.ts compiles dist/ first
// (the CLI tests run the compiled bin).
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['./test/global-build.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    reporters: ['default', './test/summary-reporter.ts'],
  },
});
