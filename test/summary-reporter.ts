// Prints, after a vitest run, the slowest 10 test files (wall ms: import + setup + tests and hooks),
// the tests skipped for missing data (suites named "[no data: FOLDER]" by test/oracle-paths.ts) with
// each folder looked in, and one plain closing line, "tests: N passed, N failed[, N skipped]", that
// CI reads. Under MCUSIM_REQUIRE_DATA=1 (.ci/run, with the oracle beside it) a skip for missing data
// fails the run.
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

/** The folder a "[no data: FOLDER]" suite looked in, from a test's full name. */
export function missingDataFolder(fullName: string): string | undefined {
  const m = /\[no data: ([^\]]+)\]/.exec(fullName);
  return m?.[1];
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
    const noData = new Map<string, number>();
    for (const mod of testModules) {
      for (const t of mod.children.allTests()) {
        const state = t.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failed++;
        else skipped++;
        const folder = state === 'skipped' ? missingDataFolder(t.fullName) : undefined;
        if (folder !== undefined) noData.set(folder, (noData.get(folder) ?? 0) + 1);
      }
      if (mod.state() === 'failed' && mod.children.size === 0) failed++;
    }
    const files = testModules.map((mod) => ({ file: relative(this.root, mod.moduleId), ms: fileWallMs(mod) }));
    const slowest = slowestFilesLines(files);
    const missing = [...noData.values()].reduce((a, b) => a + b, 0);
    const required = process.env['MCUSIM_REQUIRE_DATA'] === '1';
    const dataLines = [...noData].sort().map(([folder, n]) => `  ${String(n).padStart(5)}  ${folder}`);
    const dataText = missing === 0
      ? 'skipped for missing data: 0\n'
      : `skipped for missing data: ${missing} (set MCUSIM_DATA to the oracle folder), by folder looked in:\n${dataLines.join('\n')}\n`;
    const line = `tests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`;
    const text = `\nslowest ${slowest.length} test files (wall, in their worker):\n${slowest.join('\n')}\n\n${dataText}${line}\n`;
    if (required && missing > 0) process.exitCode = 1;
    process.once('exit', () => {
      process.stdout.write(text);
      if (required && missing > 0) process.stdout.write(`MCUSIM_REQUIRE_DATA=1: ${missing} tests skipped for missing data\n`);
    });
  }
}
