// vitest globalSetup: compiles src/ to dist/ once per test run (scripts/build.mjs = `npm run
// build`, incremental, about 2 s when nothing changed) so the CLI tests, which run the real bin on
// the compiled code, never see a stale dist/. vitest calls a globalSetup once for the root config
// and once per project (three times here, vitest.config.ts): the first call builds, the others
// see the mark it left on this process and return (each build was 4.5 s of CPU before any test).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const BUILT = Symbol.for('mcusim.test.built');

export function setup(): void {
  const marks = globalThis as { [BUILT]?: true };
  if (marks[BUILT]) return;
  const root = join(import.meta.dirname, '..');
  const r = spawnSync(process.execPath, [join(root, 'scripts/build.mjs')], { cwd: root, encoding: 'utf8', timeout: 600_000 });
  if (r.status !== 0) throw new Error(`npm run build failed (exit ${r.status ?? r.signal}):\n${r.stdout}${r.stderr}`);
  marks[BUILT] = true;
}
