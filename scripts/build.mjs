// `npm run build` (also `prepare`, `prepack` and the vitest global setup): compiles src/ to dist/
// (ESM + declarations, tsconfig.build.json, incremental), then deletes dist files whose source is
// gone (renamed or removed modules) so they are never packed. Never empties dist/ first: tests
// may be running the compiled bin at the same time. Then bundles the CLI and its worker threads
// with esbuild into dist/cli/bundle/ (what bin/mcusim.mjs runs): CommonJS files (NAME.cjs: main,
// commands, verify-worker, pool-worker; loaded by src/cli/bundle-loader.ts with node:vm), each
// with its V8 code cache (NAME.cjs.cache, scripts/bundle-cache.mjs), plus an ES-module stub per
// worker thread (NAME.js, the file the CLI starts a worker with). Bundles load in about half the
// time of the ~250 modules of dist/ (`mcusim run person_detect` 0.57 -> 0.39 s), and the code
// caches take another ~0.05 s off (README, "Startup"). The library import (`mcusim`) stays
// dist/index.js, which imports the dependencies from node_modules; the bundles carry their own
// copies (commander, flatbuffers, seedrandom; appendLicences), so their code is in the caches too
// (`--version` 0.183 -> 0.167 s, medians of 20 alternating runs). The bundles with the kernels
// start with the kernel specs' expression texts already parsed (src/kernels/nest.ts, PARSED).
import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const r = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
if (r.status !== 0) process.exit(r.status ?? 1);

const dist = join(root, 'dist');
const bundleDir = join(dist, 'cli', 'bundle');
const sourceOf = (file) => join(root, 'src', relative(dist, file).replace(/\.d\.ts$|\.js$/, '.ts'));
for (const entry of readdirSync(dist, { recursive: true, withFileTypes: true })) {
  const file = join(entry.parentPath ?? entry.path, entry.name);
  if (entry.isFile() && !file.startsWith(bundleDir) && !file.startsWith(join(dist, 'web')) && /\.(d\.ts|js)$/.test(entry.name) && !existsSync(sourceOf(file))) rmSync(file);
}

// Built next to the old bundle, then swapped in unless it is the same bundle: `npm pack` (prepack)
// rebuilds while other test files run the bin, and a process that starts while the directory is
// swapped fails to load. The caches are made in the new directory before the swap.
const { build } = await import('esbuild');
const { WORKER_BUNDLES } = await import(pathToFileURL(join(dist, 'cli', 'bundle-loader.js')).href);
const next = `${bundleDir}.next`;
rmSync(next, { recursive: true, force: true });
const entries = ['main', 'commands', ...WORKER_BUNDLES];
const commandModules = readdirSync(join(dist, 'cli', 'commands')).filter((f) => f.endsWith('.js')).map((f) => f.slice(0, -3));
const bundleUrl = 'var __bundleUrl = require("node:url").pathToFileURL(__filename).href;';
const common = {
  bundle: true, format: 'cjs', platform: 'node', target: 'node20', logLevel: 'warning', metafile: true,
  // A bundle's import.meta.url (worker-pool.ts finds the worker stubs beside it) is its file's URL.
  define: { 'import.meta.url': '__bundleUrl' },
  banner: { js: bundleUrl },
};
// The bundles with the kernels start with every expression text their specs parse as they load,
// parsed here (src/kernels/nest.ts, PARSED): a thread loading them parses none of it.
const { parsedExprs } = await import(pathToFileURL(join(dist, 'kernels', 'index.js')).href);
const withKernels = { ...common, banner: { js: `${bundleUrl}\nvar __mcusimParsedExprs = ${JSON.stringify(Object.fromEntries(parsedExprs()))};` } };
// main: the command table and commander only. Its dynamic imports of a command module or errors.js
// take that module's exports from the commands bundle (loaded once, by bundle-loader.ts's loadBundle
// under its global symbol), so `--version` and `--help` load neither the commands nor the library,
// and every command and the error formatting share one copy of the library.
const fromCommandsBundle = {
  name: 'from-commands-bundle',
  setup(b) {
    b.onResolve({ filter: /^\.\/(commands\/[\w-]+|errors)\.js$/ }, (a) => (a.kind === 'dynamic-import' ? { path: a.path.slice(2, -3).replace('commands/', ''), namespace: 'commands-bundle' } : undefined));
    b.onLoad({ filter: /.*/, namespace: 'commands-bundle' }, (a) => ({ loader: 'js', contents: `module.exports = globalThis[Symbol.for('mcusim.loadBundle')]('commands')[${JSON.stringify(a.path)}];` }));
  },
};
appendLicences(await build({ ...common, entryPoints: [join(dist, 'cli', 'main.js')], outfile: join(next, 'main.cjs'), plugins: [fromCommandsBundle] }));
appendLicences(await build({
  ...withKernels, outfile: join(next, 'commands.cjs'),
  stdin: { resolveDir: join(dist, 'cli'), sourcefile: 'commands.js', contents: [...commandModules.map((m) => `export * as ${m} from './commands/${m}.js';`), "export * as errors from './errors.js';"].join('\n') },
}));
appendLicences(await build({ ...withKernels, entryPoints: WORKER_BUNDLES.map((n) => join(dist, 'cli', `${n}.js`)), outdir: next, outExtension: { '.js': '.cjs' } }));
for (const worker of WORKER_BUNDLES) {
  writeFileSync(join(next, `${worker}.js`), `// The ${worker} thread: the bundle ${worker}.cjs, with its code cache (scripts/build.mjs).\nimport { loadBundle } from '../bundle-loader.js';\n\nloadBundle('${worker}');\n`);
}
const files = (dir) => (existsSync(dir) ? readdirSync(dir).sort() : []);
const sources = (dir) => files(dir).filter((f) => !f.endsWith('.cache'));
const same = sources(next).join() === sources(bundleDir).join() && files(bundleDir).length === files(next).length + entries.length
  && sources(next).every((f) => readFileSync(join(next, f)).equals(readFileSync(join(bundleDir, f))));
if (same) {
  rmSync(next, { recursive: true, force: true });
  // Same bundle: its caches are remade only if V8 does not take them (another Node since the last build).
  if (cachesTaken(bundleDir) !== true) makeCaches(bundleDir);
} else {
  makeCaches(next);
  rmSync(bundleDir, { recursive: true, force: true });
  renameSync(next, bundleDir);
}

await buildWebPage();

/**
 * The web page (`mcusim web`, src/web): dist/web/ holds index.html, style.css and ES modules for
 * the browser: main.js (the UI thread, no library code), engine-worker.js and verify-worker.js
 * (module workers running the library) and the chunks they share (esbuild splitting), minified.
 * The choices the page offers come from the library's tables (src/web/catalog.ts, run here once)
 * compiled into main.js. The library's two Node built-ins are replaced by the page's stand-ins
 * (src/web/platform/): createHash of an O_s memo key and V8's compile flags. Built beside the old
 * page and swapped in, as the CLI bundle, so a server started meanwhile never sees half a page.
 */
async function buildWebPage() {
  const webSrc = join(root, 'src', 'web');
  const webDir = join(dist, 'web');
  const webNext = `${webDir}.next`;
  rmSync(webNext, { recursive: true, force: true });
  const catalogOut = await build({ entryPoints: [join(webSrc, 'catalog.ts')], bundle: true, format: 'esm', platform: 'node', write: false, logLevel: 'warning' });
  const catalogFile = join(dist, `web-catalog-${process.pid}.mjs`);
  writeFileSync(catalogFile, catalogOut.outputFiles[0].text);
  let catalog;
  try {
    catalog = (await import(pathToFileURL(catalogFile).href)).pageCatalog();
  } finally {
    rmSync(catalogFile, { force: true });
  }
  const browserBuiltins = {
    name: 'browser-builtins',
    setup(b) {
      b.onResolve({ filter: /^node:(crypto|v8)$/ }, (a) => ({ path: join(webSrc, 'platform', `node-${a.path.slice(5)}.ts`) }));
      b.onResolve({ filter: /^node:/ }, (a) => ({ errors: [{ text: `the web page cannot use ${a.path} (imported by ${relative(root, a.importer)})` }] }));
    },
  };
  const result = await build({
    entryPoints: ['main', 'engine-worker', 'verify-worker'].map((n) => join(webSrc, `${n}.ts`)),
    bundle: true, splitting: true, format: 'esm', platform: 'browser', target: 'es2022', minify: true,
    outdir: webNext, chunkNames: 'chunk-[hash]', logLevel: 'warning', metafile: true, legalComments: 'none',
    define: { MCUSIM_CATALOG: JSON.stringify(catalog) },
    plugins: [browserBuiltins],
  });
  appendLicences(result);
  for (const f of ['index.html', 'style.css']) writeFileSync(join(webNext, f), readFileSync(join(webSrc, f)));
  rmSync(webDir, { recursive: true, force: true });
  renameSync(webNext, webDir);
}

/** Appends to each output of an esbuild `result` the licence notices of the packages bundled into
 * it: a package's LICENSE file, or else the copyright comment of one of its bundled files
 * (seedrandom has no LICENSE file; esbuild keeps only `/*!` and `@license` comments). A bundled
 * package with neither stops the build. */
function appendLicences(result) {
  for (const [out, meta] of Object.entries(result.metafile.outputs)) {
    const files = new Map();
    for (const input of Object.keys(meta.inputs)) {
      const m = /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input);
      if (m !== null) files.set(m[1], [...(files.get(m[1]) ?? []), input]);
    }
    if (files.size === 0) continue;
    const notices = [...files.keys()].sort().map((name) => licenceOf(name, files.get(name)));
    appendFileSync(join(root, out), `\n/*\nPackages bundled into this file, with their licences:\n\n${notices.join('\n\n')}\n*/\n`);
  }
}

function licenceOf(name, inputs) {
  const dir = join(root, 'node_modules', name);
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const file = readdirSync(dir).find((f) => /^licen[cs]e/i.test(f));
  const text = file !== undefined
    ? readFileSync(join(dir, file), 'utf8')
    : inputs.flatMap((i) => readFileSync(join(root, i), 'utf8').match(/\/\*[\s\S]*?\*\//g) ?? []).find((c) => /copyright/i.test(c))?.slice(2, -2);
  if (text === undefined) throw new Error(`build: bundled package ${name} has no LICENSE file and no copyright comment`);
  return `${name}@${pkg.version} (${pkg.license}):\n\n${text.replaceAll('*/', '* /').trim()}`;
}

function runNode(args) {
  const env = { ...process.env };
  delete env.NODE_OPTIONS; // the caches are for the CLI as it usually runs: no extra V8 flags
  const r = spawnSync(process.execPath, args, { cwd: root, env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`build: \`node ${args.join(' ')}\` failed (exit ${r.status ?? r.signal}):\n${r.stdout}${r.stderr}`);
  return r.stdout;
}

/** Whether V8, in a fresh process, takes every bundle's code cache in DIR as the CLI loads them
 * (bundleCacheStates); else which it does not. */
function cachesTaken(dir) {
  const check = `import { bundleCacheStates } from ${JSON.stringify(pathToFileURL(join(dist, 'cli', 'bundle-loader.js')).href)};
console.log(JSON.stringify(bundleCacheStates(${JSON.stringify(dir)})));`;
  const states = JSON.parse(runNode(['--input-type=module', '-e', check]));
  const bad = entries.filter((n) => states[n] !== 'accepted').map((n) => `${n} ${states[n]}`);
  return bad.length === 0 ? true : bad;
}

/** Makes the bundles' code caches in DIR (scripts/bundle-cache.mjs; a failing command stops the
 * build, with its output) and checks them. A cache V8 will not take leaves the CLI working, only
 * slower to start: the build says so and goes on (test/cli/bundle-cache.test.ts fails on it). */
function makeCaches(dir) {
  runNode([join(root, 'scripts', 'bundle-cache.mjs'), dir, 'commands']);
  runNode([join(root, 'scripts', 'bundle-cache.mjs'), dir, 'workers']);
  const taken = cachesTaken(dir);
  if (taken !== true) process.stderr.write(`build: V8 does not take these bundles' code caches: ${taken.join(', ')}\n`);
}
