// Prints one plain closing line, "tests: N passed, N failed[, N skipped]", after a vitest run.
import type { Reporter, TestModule } from 'vitest/node';

// The default reporter prints its own summary after onTestRunEnd, so the line is written on
// process exit to stay the last line of the run.

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: readonly TestModule[]): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const mod of testModules) {
      for (const t of mod.children.allTests()) {
        const state = t.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failed++;
        else skipped++;
      }
      if (mod.state() === 'failed' && mod.children.size === 0) failed++;
    }
    const line = `tests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`;
    process.once('exit', () => process.stdout.write(`\n${line}\n`));
  }
}
