// Issue 14 item 3: counted progress on stderr (countedProgress, used by verify per seed and
// conformance per case): silent in the first second, then throttled "seed i/N" lines; an
// extrapolated total after the first seed when the run looks long; nothing with --quiet. verify's
// --json stdout stays one document. Phase lines (phaseProgress) for latency, codegen, inspect,
// verify on real models (over LARGE_MODEL_TENSORS tensors) and overlap on large ops; toy models
// and --quiet stay silent.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { countedProgress, phaseProgress } from '../../src/cli/progress.ts';
import type { BinRun } from './bin-helpers.ts';
import { runMcusim, testTempDir } from './bin-helpers.ts';
import { ORACLE_MODELS, ORACLE_VECTORS, itWithData } from '../oracle-paths.ts';

function fake(quiet = false): { readonly out: string[]; readonly at: (ms: number) => void; readonly p: ReturnType<typeof countedProgress> } {
  let t = 0;
  const out: string[] = [];
  const p = countedProgress('seed', 1000, { quiet, now: () => t, write: (s) => void out.push(s), tty: false, parallel: 2 });
  return { out, at: (ms) => { t = ms; }, p };
}

describe('countedProgress', () => {
  it('estimates the whole run from the first unit and throttles the count lines to one a second', async () => {
    const { out, at, p } = fake();
    at(3000);
    p.tick(1);
    // 3 s per seed, 1000 seeds on 2 threads: 1500 s.
    expect(out[0]).toBe('seed 1 took 3.0 s; 1000 seeds on 2 threads: about 25.0 min in all\n');
    expect(out[1]).toBe('seed 1/1000, 3.0 s\n');
    at(3500);
    p.tick(2);
    expect(out).toHaveLength(2);
    at(4100);
    p.tick(3);
    expect(out[2]).toBe('seed 3/1000, 4.1 s\n');
  });

  it('says nothing in the first second, nor at all when quiet', async () => {
    const a = fake();
    a.at(10);
    a.p.tick(1);
    a.at(20);
    a.p.tick(2);
    expect(a.out).toEqual([]);
    const q = fake(true);
    q.at(5000);
    q.p.tick(1);
    q.p.finish();
    expect(q.out).toEqual([]);
  });
});

describe('verify progress', () => {
  const mcusim = (...args: string[]): Promise<BinRun> => runMcusim(args, 300_000);
  it('--quiet leaves stderr empty and --json stdout is one JSON document either way', async () => {
    const loud = (await mcusim('verify', 'zoo:cifar10-cnn', 'zoo:cifar10-cnn', '--seeds', '2', '--jobs', '1', '--json'));
    expect(loud.code, loud.stderr).toBe(0);
    expect(JSON.parse(loud.stdout).seeds).toBe(2);
    expect(loud.stderr).toMatch(/^(seed .*\n)*$/);
    const quiet = (await mcusim('verify', 'zoo:cifar10-cnn', 'zoo:cifar10-cnn', '--seeds', '2', '--jobs', '1', '--json', '--quiet'));
    expect(quiet.code).toBe(0);
    expect(quiet.stderr).toBe('');
    expect(JSON.parse(quiet.stdout)).toEqual(JSON.parse(loud.stdout));
  });
});

describe('phaseProgress', () => {
  it('writes one line per phase, from the second on with the time since the first', async () => {
    let t = 100;
    const out: string[] = [];
    const p = phaseProgress('codegen', { show: true, now: () => t, write: (s) => void out.push(s) });
    p.phase('emitting C for 84 ops');
    t = 1400;
    p.phase('writing 19 files to out/c');
    expect(out).toEqual(['codegen: emitting C for 84 ops\n', 'codegen: writing 19 files to out/c, 1.3 s\n']);
  });

  it('says nothing for small work or when quiet', async () => {
    const out: string[] = [];
    phaseProgress('latency', { show: false, write: (s) => void out.push(s) }).phase('costing');
    phaseProgress('latency', { show: true, quiet: true, write: (s) => void out.push(s) }).phase('costing');
    expect(out).toEqual([]);
  });
});

describe('phase lines of the commands that take seconds on real models', () => {
  const tmp = testTempDir('mcusim-progress-');
  const HELLO = `${ORACLE_MODELS}/hello_world_int8.tflite`;
  const mcusim = (...args: string[]): Promise<BinRun> => runMcusim(args, 300_000);
  const phases = (r: BinRun, command: string): string[] => {
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stderr.split('\n').filter((l) => l !== '');
    for (const l of lines) expect(l).toMatch(new RegExp(`^${command}: `));
    return lines;
  };

  itWithData('models', 'latency (single cell) names the phase and the board; --quiet and toy models print nothing', async () => {
    const lines = phases((await mcusim('latency', 'zoo:tiny-unet', '--json')), 'latency');
    expect(lines).toEqual(['latency: costing 24 ops on nicla-vision (cmsis-nn kernels, tflm, internal storage)']);
    expect((await mcusim('latency', 'zoo:tiny-unet', '--json', '--quiet')).stderr).toBe('');
    expect((await mcusim('latency', HELLO, '--json')).stderr).toBe('');
  });

  itWithData('models', 'codegen announces emitting and writing; --quiet and toy models print nothing; stdout stays one JSON document', async () => {
    const r = (await mcusim('codegen', 'zoo:tiny-unet', '--out-dir', join(tmp, 'tu'), '--json'));
    const lines = phases(r, 'codegen');
    expect(lines[0]).toBe('codegen: planning (tflm-greedy) and emitting C for 24 ops');
    expect(lines[1]).toMatch(new RegExp(`^codegen: writing \\d+ files to ${join(tmp, 'tu').replace(/[/.-]/g, '\\$&')}, \\d+\\.\\d s$`));
    expect(lines).toHaveLength(2);
    expect(JSON.parse(r.stdout).ops).toBe(24);
    expect((await mcusim('codegen', 'zoo:tiny-unet', '--out-dir', join(tmp, 'tu'), '--json', '--quiet')).stderr).toBe('');
    expect((await mcusim('codegen', HELLO, '--out-dir', join(tmp, 'hello'))).stderr).toBe('');
  });

  it('inspect announces its planner on a real model', async () => {
    expect(phases((await mcusim('inspect', 'zoo:tiny-unet', '--planner', 'dmo', '--json')), 'inspect')).toEqual(['inspect: planning the arena of 24 ops with dmo']);
    expect((await mcusim('inspect', 'zoo:tiny-unet', '--planner', 'dmo', '--quiet')).stderr).toBe('');
  });

  it('overlap announces each method on a large op, not on a small one', async () => {
    const lines = phases((await mcusim('overlap', '--op', 'depthwiseConv2d', '--input', '1x112x112x32', '--method', 'all', '--json')), 'overlap');
    expect(lines.map((l) => l.replace(/, \d+\.\d s$/, ''))).toEqual(['trace', 'algorithmic', 'analytic'].map((m) => `overlap: ${m} O_s of depthwiseConv2d 1x112x112x32`));
    expect((await mcusim('overlap', '--op', 'depthwiseConv2d', '--input', '1x112x112x32', '--method', 'analytic', '--quiet')).stderr).toBe('');
    expect((await mcusim('overlap', '--op', 'depthwiseConv2d', '--input', '1x8x8x4', '--json')).stderr).toBe('');
  });

  it('conformance takes --quiet, and prints only counted case lines otherwise', async () => {
    const file = `${ORACLE_VECTORS}/RELU.jsonl`;
    const loud = (await mcusim('conformance', file, '--json'));
    expect(loud.code, loud.stderr).toBe(0);
    expect(loud.stderr).toMatch(/^(case .*\n)*$/);
    const quiet = (await mcusim('conformance', file, '--json', '--quiet'));
    expect(quiet.stderr).toBe('');
    expect(JSON.parse(quiet.stdout)).toEqual(JSON.parse(loud.stdout));
  });
});
