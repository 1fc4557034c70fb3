// The CLI bundles and their V8 code caches (src/cli/bundle-loader.ts, scripts/build.mjs): main is
// small and the library sits in the commands bundle once; a fresh Node process takes each cache
// the build made; a cache of other source is not used, even when the source keeps its length (V8
// alone compares only lengths); a missing cache and one V8 rejects (other V8 flags) leave the
// bundle compiled from source, and the CLI works the same.
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { parsedExprs, parseText } from '../../src/kernels/index.ts';

const DIST = join(import.meta.dirname, '../../dist/cli');
const LOADER = pathToFileURL(join(DIST, 'bundle-loader.js')).href;
const BUNDLE = join(DIST, 'bundle');
const BIN = join(import.meta.dirname, '../../bin/mcusim.mjs');
const NAMES = ['main', 'commands', 'verify-worker', 'pool-worker'];

/** `node ...args` in a fresh process (this test process's V8 flags are not the CLI's). */
function node(args: readonly string[]): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NODE_OPTIONS: '' } });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => { out += s; });
    child.stderr.setEncoding('utf8').on('data', (s: string) => { out += s; });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out }));
  });
}

/** Each bundle's cache state in DIR as the CLI meets it (bundleCacheStates: the worker bundles
 * compile after the commands bundle has set the WebAssembly tier's V8 flags), in a fresh process
 * with extra node ARGS. */
async function states(dir: string, args: readonly string[] = []): Promise<Record<string, string>> {
  const r = await node([...args, '--input-type=module', '-e', `const { bundleCacheStates } = await import(${JSON.stringify(LOADER)});
console.log(JSON.stringify(bundleCacheStates(${JSON.stringify(dir)})));`]);
  expect(r.code, r.out).toBe(0);
  return JSON.parse(r.out) as Record<string, string>;
}

describe('bundle code caches', () => {
  // Copies of the bundles live under the project's node_modules/.cache, where the commands bundle
  // runs (bundleCacheStates).
  const cache = join(import.meta.dirname, '../../node_modules/.cache');
  mkdirSync(cache, { recursive: true });
  const tmp = mkdtempSync(join(cache, 'mcusim-bundle-cache-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));
  it('V8 takes every cache the build made, the workers\' under the flags the commands bundle sets', async () => {
    expect(await states(BUNDLE)).toEqual({ main: 'accepted', commands: 'accepted', 'verify-worker': 'accepted', 'pool-worker': 'accepted' });
  });

  it('main holds the command table and commander only: the library is in the commands bundle, once', () => {
    const main = readFileSync(join(BUNDLE, 'main.cjs'), 'utf8');
    const commands = readFileSync(join(BUNDLE, 'commands.cjs'), 'utf8');
    // The dependencies are bundled in (their code is in the caches): nothing is required from node_modules.
    for (const text of [main, commands]) expect(text.match(/require\("(?!node:|crypto")[^"]+"\)/g)).toBeNull();
    // commander once, in main: the commands add their options through main's Command objects.
    expect(main).toMatch(/class _Command extends/);
    expect(commands).not.toMatch(/class _Command extends|class Option\b/);
    expect(main.length).toBeLessThan(192 * 1024);
    // esbuild writes a class as `var Name = class ...`.
    expect(main).not.toMatch(/\bUsageError = class\b/);
    expect(commands.match(/\bUsageError = class\b/g)?.length).toBe(1);
  });

  it('the bundles with the kernels start with the spec expressions already parsed, as the parser parses them', () => {
    // This process loaded the kernel specs, so it has parsed every text of theirs (and maybe more).
    const atLoad = parsedExprs();
    expect(readFileSync(join(BUNDLE, 'main.cjs'), 'utf8')).not.toContain('__mcusimParsedExprs');
    for (const name of ['commands', 'verify-worker', 'pool-worker']) {
      const head = /^var __mcusimParsedExprs = (.*);$/m.exec(readFileSync(join(BUNDLE, `${name}.cjs`), 'utf8').slice(0, 2_000_000));
      expect(head, name).not.toBeNull();
      const table = JSON.parse((head as RegExpExecArray)[1] as string) as Record<string, unknown>;
      expect(Object.keys(table).length).toBeGreaterThan(200);
      for (const [text, e] of Object.entries(table)) {
        expect(atLoad.has(text), text).toBe(true);
        expect(e, text).toEqual(parseText(text));
      }
    }
  });

  it('a cache made from other source is stale, also when the source keeps its length', async () => {
    const dir = join(tmp, 'edited');
    mkdirSync(dir);
    for (const n of NAMES) for (const ext of ['.cjs', '.cjs.cache']) copyFileSync(join(BUNDLE, n + ext), join(dir, n + ext));
    const main = readFileSync(join(dir, 'main.cjs'), 'utf8');
    const edited = main.replace('int8 TinyML models', 'int8 TinyML Models');
    expect(edited.length).toBe(main.length);
    expect(edited).not.toBe(main);
    writeFileSync(join(dir, 'main.cjs'), edited);
    writeFileSync(join(dir, 'pool-worker.cjs.cache'), Buffer.alloc(16));
    expect(await states(dir)).toEqual({ main: 'stale', commands: 'accepted', 'verify-worker': 'accepted', 'pool-worker': 'stale' });
  });

  it('with other V8 flags V8 rejects the caches and the CLI runs the same', async () => {
    expect(await states(BUNDLE, ['--stack-size=2000'])).toEqual({ main: 'rejected', commands: 'rejected', 'verify-worker': 'rejected', 'pool-worker': 'rejected' });
    const plain = await node([BIN, 'inspect', 'zoo:ds-cnn-kws']);
    const flagged = await node(['--stack-size=2000', BIN, 'inspect', 'zoo:ds-cnn-kws']);
    expect(plain.code, plain.out).toBe(0);
    expect(flagged).toEqual(plain);
  });

  it('a missing cache is reported as missing', async () => {
    const dir = join(tmp, 'uncached');
    mkdirSync(dir);
    for (const n of NAMES) copyFileSync(join(BUNDLE, `${n}.cjs`), join(dir, `${n}.cjs`));
    expect(await states(dir)).toEqual({ main: 'missing', commands: 'missing', 'verify-worker': 'missing', 'pool-worker': 'missing' });
  });
});
