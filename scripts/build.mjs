// `npm run build` (also `prepare`, `prepack` and the vitest global setup): compiles src/ to dist/
// (ESM + declarations, tsconfig.build.json, incremental), then deletes dist files whose source is
// gone (renamed or removed modules) so they are never packed. Never empties dist/ first: tests
// may be running the compiled bin at the same time. Then bundles the CLI and its worker threads
// with esbuild into dist/cli/bundle/ (what bin/mcusim.mjs runs): one file and a few shared chunks
// load in about half the time of the ~250 modules of dist/ (`mcusim run person_detect` 0.57 ->
// 0.39 s, and each `verify --jobs` worker starts that much sooner). The library import (`mcusim`)
// stays dist/index.js. Dependencies stay external.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const r = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
if (r.status !== 0) process.exit(r.status ?? 1);

const dist = join(root, 'dist');
const bundleDir = join(dist, 'cli', 'bundle');
const sourceOf = (file) => join(root, 'src', relative(dist, file).replace(/\.d\.ts$|\.js$/, '.ts'));
for (const entry of readdirSync(dist, { recursive: true, withFileTypes: true })) {
  const file = join(entry.parentPath ?? entry.path, entry.name);
  if (entry.isFile() && !file.startsWith(bundleDir) && /\.(d\.ts|js)$/.test(entry.name) && !existsSync(sourceOf(file))) rmSync(file);
}

// Built next to the old bundle, then swapped in (chunk names carry content hashes) unless it is the
// same bundle: `npm pack` (prepack) rebuilds while other test files run the bin, and a process that
// starts, or lazily imports a command's chunk, while the directory is swapped fails to load.
const { build } = await import('esbuild');
const next = `${bundleDir}.next`;
rmSync(next, { recursive: true, force: true });
await build({
  entryPoints: ['main', 'verify-worker', 'pool-worker'].map((n) => join(dist, 'cli', `${n}.js`)),
  bundle: true, splitting: true, format: 'esm', platform: 'node', target: 'node20', outdir: next,
  packages: 'external', logLevel: 'warning',
});
const files = (dir) => (existsSync(dir) ? readdirSync(dir).sort() : []);
const built = files(next);
const same = built.join() === files(bundleDir).join() && built.every((f) => readFileSync(join(next, f)).equals(readFileSync(join(bundleDir, f))));
if (same) rmSync(next, { recursive: true, force: true });
else {
  rmSync(bundleDir, { recursive: true, force: true });
  renameSync(next, bundleDir);
}
