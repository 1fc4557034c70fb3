// Loads the CLI's esbuild bundles (dist/cli/bundle/NAME.cjs: `main`, what bin/mcusim.mjs runs, and
// `commands`, every command with the library, which main loads on its first command import; each
// worker thread's) with V8's code cache (NAME.cjs.cache, made by `npm run build`, scripts/build.mjs):
// the bytecode of the functions a few commands compiled, so a process neither parses ~1 MB of
// JavaScript nor compiles those functions again. Node 20 has no module compile cache, so the
// bundles are CommonJS, compiled with node:vm's Script, which takes a code cache. Loading this
// module registers loadBundle under a global symbol: the main bundle reaches the commands bundle
// through it (scripts/build.mjs).
//
// A cache file starts with the SHA-256 of the bundle it was made from: V8 itself only compares the
// source's length, and a cache of other source would run stale bytecode. V8 rejects a cache made by
// another V8 version or under other V8 flags (NODE_OPTIONS=--max-old-space-size=..., say); the
// bundle is then compiled from source, as without a cache: slower to start, the same results.
// compileBundle's `state` says which happened.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire, Module } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as vm from 'node:vm';

/** How a bundle's code cache was used: `accepted` by V8, `rejected` by V8 (other V8 version or
 * flags), `stale` (made from other source), `missing`. */
export type BundleCacheState = 'accepted' | 'rejected' | 'stale' | 'missing';

const HASH_BYTES = 32;
const LOADED = Symbol.for('mcusim.bundles');
const LOAD = Symbol.for('mcusim.loadBundle');
type Exports = Record<string, unknown>;
type Holder = { [LOADED]?: Map<string, Exports>; [LOAD]?: (name: string) => Exports };

/** The folder of the bundles: dist/cli/bundle, beside this file's compiled dist/cli/bundle-loader.js. */
function bundleDir(): string {
  return join(dirname(fileURLToPath(import.meta.url)), 'bundle');
}

function bundleFile(name: string, dir = bundleDir()): string {
  return join(dir, `${name}.cjs`);
}

/** A code-cache file's bytes: the bundle source's SHA-256, then V8's cache data. */
export function cacheFileBytes(source: Buffer, data: Buffer): Buffer {
  return Buffer.concat([sourceHash(source), data]);
}

function sourceHash(source: Buffer): Buffer {
  return createHash('sha256').update(source).digest();
}

function readCache(file: string, source: Buffer): { data: Buffer | undefined; state: BundleCacheState } {
  let bytes: Buffer;
  try {
    bytes = readFileSync(`${file}.cache`);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { data: undefined, state: 'missing' };
    throw e;
  }
  if (bytes.length <= HASH_BYTES || !bytes.subarray(0, HASH_BYTES).equals(sourceHash(source))) return { data: undefined, state: 'stale' };
  return { data: bytes.subarray(HASH_BYTES), state: 'accepted' };
}

/** The compiled, not yet run, bundle NAME (its code cache applied when it fits) and the cache's state. */
export function compileBundle(name: string, dir = bundleDir()): { script: vm.Script; file: string; state: BundleCacheState } {
  const file = bundleFile(name, dir);
  const source = readFileSync(file);
  const cache = readCache(file, source);
  const script = new vm.Script(Module.wrap(source.toString('utf8')), {
    filename: file,
    cachedData: cache.data,
    // A dynamic import() in the bundle (the evaluator pool's test-only evaluator module) goes to
    // Node's own loader, as in a file Node loads itself. vm.constants came with Node 20.12: read
    // through the namespace, so older Node 20 still loads this module (only such an import fails).
    importModuleDynamically: (vm as { constants?: typeof vm.constants }).constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  return { script, file, state: cache.data !== undefined && script.cachedDataRejected === true ? 'rejected' : cache.state };
}

/** Runs a compiled bundle as a CommonJS module and returns its exports. */
export function runBundle(script: vm.Script, file: string): Exports {
  const module = { exports: {} as Exports };
  const wrapper = script.runInThisContext() as (exports: object, require: NodeJS.Require, module: object, filename: string, dirname: string) => void;
  wrapper(module.exports, createRequire(file), module, file, dirname(file));
  return module.exports;
}

/** The bundles a worker thread runs (the CLI starts them after the commands bundle has loaded). */
export const WORKER_BUNDLES = ['verify-worker', 'pool-worker'] as const;

/**
 * Each bundle's cache state in DIR as the CLI meets it: main and commands compiled under the
 * process's starting V8 flags, the worker bundles after the commands bundle has run (it sets the
 * WebAssembly tier's flags, process-wide, before any worker starts). Runs the commands bundle, so
 * it is for a fresh process of its own (the build's check and the tests).
 */
export function bundleCacheStates(dir = bundleDir()): Record<string, BundleCacheState> {
  const states: Record<string, BundleCacheState> = { main: compileBundle('main', dir).state };
  const commands = compileBundle('commands', dir);
  states['commands'] = commands.state;
  runBundle(commands.script, commands.file);
  for (const n of WORKER_BUNDLES) states[n] = compileBundle(n, dir).state;
  return states;
}

/** Loads the bundle NAME once per thread (compiled with its code cache when it fits) and returns its exports. */
export function loadBundle(name: string): Exports {
  const loaded = ((globalThis as Holder)[LOADED] ??= new Map());
  let exports = loaded.get(name);
  if (exports === undefined) {
    const { script, file } = compileBundle(name);
    exports = runBundle(script, file);
    loaded.set(name, exports);
  }
  return exports;
}

(globalThis as Holder)[LOAD] ??= loadBundle;
