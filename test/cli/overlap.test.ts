// Spawns the real bin for `mcusim overlap` (DMO Table II op, SVG plot, bad input) and
// `mcusim run --trace` (clean report, dumps).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BinRun } from './bin-helpers.ts';
import { runMcusim, testTempDir } from './bin-helpers.ts';
import { ORACLE_MODELS, itWithData } from '../oracle-paths.ts';

const HELLO = `${ORACLE_MODELS}/hello_world_int8.tflite`;
const tmp = testTempDir('mcusim-overlap-');

const mcusim = (...args: string[]): Promise<BinRun> => runMcusim(args);

describe('mcusim overlap', () => {
  it('DMO Table II op, float32: algorithmic = trace = 1204224, analytic 1193376', async () => {
    const r = (await mcusim('overlap', '--op', 'depthwiseConv2d', '--input', '1x112x112x96', '--filter', '3x3', '--stride', '2', '--padding', 'same', '--element-bytes', '4', '--method', 'all', '--json'));
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ kernels: 'reference', cpu: null, inputBytes: 4816896, outputBytes: 1204224, os: { trace: 1204224, algorithmic: 1204224, analytic: 1193376 } });
  });

  it('one method, a table and an SVG plot', async () => {
    const svg = join(tmp, 'op.svg');
    const r = (await mcusim('overlap', '--op', 'conv2d', '--input', '1x8x8x3', '--out-channels', '4', '--stride', '1x2', '--method', 'algorithmic', '--svg', svg));
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('algorithmic');
    const text = readFileSync(svg, 'utf8');
    expect(text).toMatch(/^<svg/);
    // O_s is marked where the input may start, and named in the title.
    expect(text).toContain('class="marker"');
    expect(text).toMatch(/input may start here: O_s \(algorithmic\) \d+ B/);
    expect(text).toMatch(/safe overlap O_s: algorithmic \d+ B/);
  });

  it('bad input exits 2 with a coded message', async () => {
    for (const args of [['--op', 'nope', '--input', '1x2x2x1'], ['--op', 'conv2d', '--input', '1x0x2'], ['--op', 'relu', '--input', '4', '--method', 'x']]) {
      const r = (await mcusim('overlap', ...args));
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/^E_[A-Z_]+: /);
    }
  });

  it('a shape whose output is empty is a usage error, exit 2', async () => {
    for (const args of [['--op', 'conv2d', '--input', '1x2x2x1', '--filter', '3x3', '--padding', 'valid'], ['--op', 'depthwiseConv2d', '--input', '1x0x0x4']]) {
      const r = (await mcusim('overlap', ...args));
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/^E_USAGE: /);
    }
    const r = (await mcusim('overlap', '--op', 'conv2d', '--input', '1x2x2x1', '--filter', '3x3', '--padding', 'valid'));
    expect(r.stderr).toContain('empty output 1x0x0x1');
    expect(r.stdout).toBe('');
  });
});

describe('mcusim run --trace', () => {
  itWithData('models', 'traces hello_world clean and dumps CSV / JSON lines', async () => {
    const csv = join(tmp, 't.csv');
    const jsonl = join(tmp, 't.jsonl');
    const r = (await mcusim('run', HELLO, '--trace', '--trace-out', csv, '--json'));
    expect(r.code).toBe(0);
    const rep = JSON.parse(r.stdout) as { trace: { events: number; violations: unknown[] } };
    expect(rep.trace.violations).toEqual([]);
    const lines = readFileSync(csv, 'utf8').trim().split('\n');
    expect(lines[0]).toBe('step,op,opKind,kind,address,width,buffer');
    expect(lines).toHaveLength(rep.trace.events + 1);
    expect((await mcusim('run', HELLO, '--trace-out', jsonl, '--trace-svg', join(tmp, 't.svg'))).code).toBe(0);
    expect(JSON.parse(readFileSync(jsonl, 'utf8').split('\n')[0] ?? '')).toMatchObject({ step: 0, op: 0 });
  });
});
