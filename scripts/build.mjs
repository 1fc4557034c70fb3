// `npm run build` (also `prepare`, `prepack` and the vitest global setup): compiles src/ to dist/
// (ESM + declarations, tsconfig.build.json, incremental), then deletes dist files whose source is
// gone (renamed or removed modules) so they are never packed. Never empties dist/ first: tests
// may be running the compiled bin at the same time.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const r = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
if (r.status !== 0) process.exit(r.status ?? 1);

const dist = join(root, 'dist');
const sourceOf = (file) => join(root, 'src', relative(dist, file).replace(/\.d\.ts$|\.js$/, '.ts'));
for (const entry of readdirSync(dist, { recursive: true, withFileTypes: true })) {
  const file = join(entry.parentPath ?? entry.path, entry.name);
  if (entry.isFile() && /\.(d\.ts|js)$/.test(entry.name) && !existsSync(sourceOf(file))) rmSync(file);
}
