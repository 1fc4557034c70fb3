// Spawns the real bin for `mcusim latency`: one JSON document with the DESIGN.md §9 shape, the SVG
// timeline, and exit code 2 with a coded message for bad options.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BinRun } from './bin-helpers.ts';
import { runMcusim, testTempDir } from './bin-helpers.ts';
import { buildZooModel, exportTflite } from '../../src/ir/index.ts';
import { runPipeline } from '../../src/optimizer/index.ts';

const tmp = testTempDir('mcusim-latency-');

const mcusim = (...args: string[]): Promise<BinRun> => runMcusim(args);

describe('mcusim latency', () => {
  it('prints the calibrated total, breakdown and per-op rows as JSON, and writes the SVG timeline', async () => {
    const svg = join(tmp, 't.svg');
    const r = (await mcusim('latency', 'zoo:tiny-unet', '--json', '--svg', svg, '--quiet'));
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(Math.abs(doc.totalMs - 1190)).toBeLessThan(1);
    expect(Object.keys(doc.breakdown).sort()).toEqual(['codecMs', 'computeMs', 'fetchMs', 'spillMs', 'stallMs']);
    expect(doc.ops).toHaveLength(24);
    expect(doc.ops[0]).toEqual(expect.objectContaining({ index: 0, kind: 'conv2d', computeMs: expect.any(Number) }));
    expect(readFileSync(svg, 'utf8')).toMatch(/^<svg[\s\S]*main core/);
  });

  it('prints a table without --json; bad options exit 2 with a coded message', async () => {
    const ok = (await mcusim('latency', 'zoo:tiny-unet', '--kernels', 'cmsis-nn'));
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/total \d+\.\d ms = compute/);
    // --storage on a model that spills nothing is refused (flag-rules.test.ts).
    for (const args of [['--kernels', 'fast'], ['--storage', 'sdcard'], ['--target', 'esp32'], ['--board', 'esp32'], ['--storage', 'remote']]) {
      const r = (await mcusim('latency', 'zoo:tiny-unet', ...args));
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/^E_USAGE: /);
    }
  });
});

describe('mcusim latency --target-file', () => {
  it('applies a JSON profile over its base (here a doubled compute scale) and refuses bad files with exit 2', async () => {
    const file = join(tmp, 'board.json');
    writeFileSync(file, JSON.stringify({ base: 'nicla-vision', computeCalibration: { 'cmsis-nn': { scale: 2, source: 'test: twice as slow' } } }));
    const r = (await mcusim('latency', 'zoo:tiny-unet', '--target-file', file, '--json'));
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.target).toBe(`nicla-vision+${file}`);
    expect(doc.totalMs / 1190).toBeCloseTo(2, 2);
    const bad: [string, string][] = [['not json', 'not JSON'], ['[1]', 'one JSON object'], ['{"base":"esp32"}', 'unknown target'], ['{"remoteHost":{"speed":1}}', 'remoteHost.speed: unknown key']];
    for (const [text, why] of bad) {
      writeFileSync(file, text);
      const e = (await mcusim('latency', 'zoo:tiny-unet', '--target-file', file));
      expect(e.code, text).toBe(2);
      expect(e.stderr).toMatch(/^E_USAGE: /);
      expect(e.stderr).toContain(why);
    }
    for (const args of [['--target-file', join(tmp, 'missing.json')], ['--target', 'nicla-vision', '--target-file', file]]) {
      const e = (await mcusim('latency', 'zoo:tiny-unet', ...args));
      expect(e.code, args.join(' ')).toBe(2);
      expect(e.stderr).toMatch(/^E_USAGE: /);
    }
  });
});

describe('mcusim latency --compress payload inputs', () => {
  it('measures the codec on a seed-1 random-input run by default, on zeros with --zero-input; --seed with --zero-input is exit 2', async () => {
    // Spilling without fused fetching: the slot's plain Fetching decodes MFV, so --compress applies.
    const tu = join(tmp, 'tu.tflite');
    writeFileSync(tu, exportTflite(runPipeline(buildZooModel('tiny-unet'), ['tinyseg'], { flags: { fusedFetching: false } }).model));
    const cell = async (...args: string[]): Promise<{ payloadInputs: unknown; slots: { storedBytes: number; rawBytes: number }[] }> => {
      const r = (await mcusim('latency', tu, '--storage', 'remote', '--compress', '--json', ...args));
      expect(r.code, args.join(' ')).toBe(0);
      return JSON.parse(r.stdout);
    };
    const byDefault = await cell();
    const zero = await cell('--zero-input');
    expect(byDefault.payloadInputs).toEqual({ seed: 1 });
    expect(await cell('--seed', '1')).toEqual(byDefault);
    expect((await cell('--seed', '2')).payloadInputs).toEqual({ seed: 2 });
    expect(zero.payloadInputs).toBe('zero');
    // A zero image leaves 6 of the 8 skip channels at one value: far more compressible than random input.
    expect(zero.slots[0]?.storedBytes).toBeLessThan((byDefault.slots[0]?.storedBytes ?? 0) * 0.7);
    expect(byDefault.slots[0]?.storedBytes).toBeLessThan(byDefault.slots[0]?.rawBytes ?? 0);
    for (const args of [['--seed', '1', '--zero-input'], ['--seed', '-1'], ['--seed', 'x']]) {
      const r = (await mcusim('latency', tu, '--compress', ...args));
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/^E_USAGE: /);
    }
  });
});

describe('mcusim latency --table', () => {
  it('prints the Table 5 grid as JSON: 6 steps x 3 storages, remote async null, paper cells with --paper', async () => {
    const r = (await mcusim('latency', 'zoo:tiny-unet', '--table', '--paper', '--json'));
    expect(r.code).toBe(0);
    expect(r.stderr.trim().split('\n')).toHaveLength(6);
    const doc = JSON.parse(r.stdout);
    expect(doc.rows.map((x: { step: string }) => x.step)).toEqual(['original', 'tempQuant', 'spilling', 'fusedFetching', 'compression', 'asyncErase']);
    // The Cortex-M7 constant is stored to 6 digits (scripts/fit-latency.ts): within a microsecond of 1190.
    for (const st of ['internal', 'external', 'remote']) expect(Math.abs(doc.rows[0].ms[st] - 1190), st).toBeLessThan(0.002);
    expect(doc.rows[5].ms.remote).toBeNull();
    expect(doc.rows[5].paperMs).toEqual({ internal: 1270, external: 1718, remote: null });
    const single = JSON.parse((await mcusim('latency', 'zoo:tiny-unet', '--json')).stdout);
    expect(doc.rows[0].ms.internal).toBe(single.totalMs);
  });

  it('prints a table shaped like Table 5 with got / paper cells', async () => {
    const r = (await mcusim('latency', 'zoo:tiny-unet', '--table', '--paper'));
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Internal ms.*External ms.*Remote ms/);
    expect(r.stdout).toMatch(/^Original model\s+\d+\s+1190\.0 \/ 1190 \(\+0\.0%\)/m);
    expect(r.stdout).toMatch(/^\+ Async\. block operation .*N\/A \/ N\/A$/m);
  });

  it('rejects single-cell options with --table and table options without it (exit 2)', async () => {
    for (const args of [['--table', '--storage', 'remote'], ['--table', '--compress'], ['--table', '--async-erase'], ['--paper'], ['--no-scratch-free']]) {
      const r = (await mcusim('latency', 'zoo:tiny-unet', ...args));
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/^E_USAGE: /);
    }
  });
});
