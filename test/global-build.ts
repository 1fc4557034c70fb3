// vitest globalSetup: compiles src/ to dist/ once per test run (`npm run build`, incremental, about
// 2 s when nothing changed) so the CLI tests, which run the real bin on the compiled code, never
// see a stale dist/.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';

export function setup(): void {
  const root = join(import.meta.dirname, '..');
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const r = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { cwd: root, encoding: 'utf8', timeout: 600_000 });
  if (r.status !== 0) throw new Error(`npm run build failed (exit ${r.status ?? r.signal}):\n${r.stdout}${r.stderr}`);
}
