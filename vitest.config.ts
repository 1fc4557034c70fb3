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

/** Files that mock modules (vi.mock): they need a module registry of their own. */
const ISOLATED = ['test/optimizer/pass-output.test.ts'];

export default defineConfig({
  test: {
    globalSetup: ['./test/global-build.ts'],
    // A macrotask turn after every test, so vitest's worker RPC is answered (the file says why).
    // V8's baseline tiers for kernel modules in the test processes (the file says why).
    setupFiles: ['./test/yield-between-tests.ts', './test/wasm-baseline-tier.ts'],
    testTimeout: 900_000,
    hookTimeout: 900_000,
    pool: 'forks',
    maxWorkers: FORKS,
    minWorkers: 1,
    sequence: { sequencer: LongestFirstSequencer },
    reporters: ['default', './test/summary-reporter.ts'],
    // Test files of a fork share its module registry (isolate: false): each file no longer imports
    // and transforms the whole library again, which was a fifth of the suite's CPU time (collect
    // 82 s -> 27 s on kernels + ir). Module-level caches (compiled kernels, O_s) are keyed on
    // everything they depend on, so sharing them is safe; the one file that mocks a module keeps
    // a registry of its own.
    projects: [
      { extends: true, test: { name: 'shared', isolate: false, include: ['test/**/*.test.ts'], exclude: ISOLATED } },
      { extends: true, test: { name: 'isolated', isolate: true, include: ISOLATED } },
    ],
  },
});
