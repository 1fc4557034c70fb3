// Makes the V8 code caches of the CLI bundles (src/cli/bundle-loader.ts says why), run by
// scripts/build.mjs in two fresh processes: `node scripts/bundle-cache.mjs DIR commands`, then
// `node scripts/bundle-cache.mjs DIR workers`. A code cache is only taken under the V8 flags it was
// made under, and the commands bundle sets flags when it loads (the WebAssembly tier, wasm-tier.ts):
// main and commands compile before that, the worker bundles after it.
//
// commands: main runs a few small commands on built-in models (inspect, run, optimize, verify,
// latency, on a .tflite file too), then V8 serializes the bytecode of every function they compiled
// in main and in commands. This process leaves V8's flags as they start: the WebAssembly tier is
// recorded as V8's default ('baseline') before the bundles run, so the kernels' setFlagsFromString
// call is never made, and every command runs on this thread (--jobs 1: a worker thread would set
// the flags for the whole process).
// workers: the commands bundle loads as in the CLI, setting the flags, then the worker bundles
// compile and their caches hold the code compiled before they run (their functions are mostly the
// commands bundle's, and a worker's session comes from the parent's kernels).
// Caches go to DIR/NAME.cjs.cache; the commands' output goes to this process's stdout and stderr,
// which build.mjs shows only when something fails.
import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WORKER_BUNDLES, cacheFileBytes, compileBundle, runBundle } from '../dist/cli/bundle-loader.js';

const [dir, phase] = process.argv.slice(2);
if (!dir || (phase !== 'commands' && phase !== 'workers')) throw new Error('usage: node scripts/bundle-cache.mjs BUNDLE_DIR commands|workers');

// Written beside, then renamed: a CLI process starting meanwhile reads the old cache or the new one.
const write = (script, file) => {
  writeFileSync(`${file}.cache.tmp`, cacheFileBytes(readFileSync(file), script.createCachedData()));
  renameSync(`${file}.cache.tmp`, `${file}.cache`);
};

if (phase === 'workers') {
  const commands = compileBundle('commands', dir);
  runBundle(commands.script, commands.file);
  for (const name of WORKER_BUNDLES) {
    const { script, file } = compileBundle(name, dir);
    write(script, file);
  }
} else await cacheCommands();

async function cacheCommands() {
  globalThis[Symbol.for('mcusim.wasmTier')] = 'baseline';
  // The bundles of DIR, each loaded once, for main and for main's imports of the commands bundle.
  const loaded = new Map();
  const load = (name) => {
    if (!loaded.has(name)) {
      const { script, file } = compileBundle(name, dir);
      loaded.set(name, { script, file, exports: runBundle(script, file) });
    }
    return loaded.get(name).exports;
  };
  globalThis[Symbol.for('mcusim.loadBundle')] = load;
  const { main } = load('main');
  const tmp = mkdtempSync(join(tmpdir(), 'mcusim-cache-'));
  const dmo = join(tmp, 'dmo.tflite');
  const workload = [
    ['inspect', 'zoo:ds-cnn-kws'],
    ['run', 'zoo:ds-cnn-kws', '--seed', '1', '--out', join(tmp, 'out')],
    ['optimize', 'zoo:ds-cnn-kws', '--passes', 'dmo', '-o', dmo, '--jobs', '1'],
    ['inspect', dmo, '--json'],
    ['verify', 'zoo:ds-cnn-kws', dmo, '--seeds', '1', '--jobs', '1', '--json'],
    ['latency', dmo],
  ];
  try {
    for (const args of workload) {
      const code = await main(['node', 'mcusim', ...args]);
      if (code !== 0) throw new Error(`bundle cache: \`mcusim ${args.join(' ')}\` exited with ${code}`);
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  for (const name of ['main', 'commands']) {
    const b = loaded.get(name);
    if (b === undefined) throw new Error(`bundle cache: the commands never loaded the ${name} bundle`);
    write(b.script, b.file);
  }
}
