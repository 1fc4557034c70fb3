// vitest setup: tests live in test/ (mirroring src/); test/global-build.ts compiles dist/ first
// (the CLI tests run the compiled bin); the summary reporter prints the slowest 10 files and the
// plain "N passed, N failed" closing line that CI reads.
//
// Sized for CI's 2 cores under load (issue 15): vitest's default is one fork on a 2-core machine
// (cores - 1), which leaves a core idle whenever nothing else runs; two forks, longest files
// first (test/longest-first-sequencer.ts), finish together. The timeouts are hang guards only, at
// least 5x a test's time on a loaded 2-core machine: the slowest tests without their own guard
// take up to 3 minutes there (README, Testing); none sets a shorter one.
import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import LongestFirstSequencer from './test/longest-first-sequencer.ts';

const FORKS = Math.max(2, availableParallelism() - 1);

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['./test/global-build.ts'],
    testTimeout: 900_000,
    hookTimeout: 900_000,
    pool: 'forks',
    maxWorkers: FORKS,
    minWorkers: 1,
    sequence: { sequencer: LongestFirstSequencer },
    reporters: ['default', './test/summary-reporter.ts'],
  },
});
