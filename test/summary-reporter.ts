// Prints, after a vitest run, the slowest 10 test files (wall ms: import + setup + tests and hooks)
// and one plain closing line, "tests: N passed, N failed[, N skipped]", that CI reads.
import { relative } from 'node:path';
import type { Reporter, TestModule, Vitest } from 'vitest/node';

// The default reporter prints its own summary after onTestRunEnd, so both are written on process
// exit to stay the last lines of the run.

/** How many of the slowest files are listed. */
export const SLOWEST_FILES = 10;

/** Wall time of one test file in its worker: environment, setup files, import, then its tests. */
export function fileWallMs(mod: TestModule): number {
  const d = mod.diagnostic();
  return d.environmentSetupDuration + d.prepareDuration + d.setupDuration + d.collectDuration + d.duration;
}

/** The slowest files as aligned lines, slowest first: "  123.4 s  test/dir/file.test.ts". */
export function slowestFilesLines(files: readonly { readonly file: string; readonly ms: number }[], count = SLOWEST_FILES): string[] {
  return [...files]
    .sort((a, b) => b.ms - a.ms || a.file.localeCompare(b.file))
    .slice(0, count)
    .map((f) => `${(f.ms / 1000).toFixed(1).padStart(7)} s  ${f.file}`);
}

export default class SummaryReporter implements Reporter {
  private root = process.cwd();

  onInit(vitest: Vitest): void {
    this.root = vitest.config.root;
  }

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
    const files = testModules.map((mod) => ({ file: relative(this.root, mod.moduleId), ms: fileWallMs(mod) }));
    const slowest = slowestFilesLines(files);
    const line = `tests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`;
    const text = `\nslowest ${slowest.length} test files (wall, in their worker):\n${slowest.join('\n')}\n\n${line}\n`;
    process.once('exit', () => process.stdout.write(text));
  }
}
