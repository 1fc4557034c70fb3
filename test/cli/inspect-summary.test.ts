// Issue 14 item 3: `inspect` on a model over 40 tensors prints a summary (op counts by kind,
// largest tensors, plan and arena totals) instead of the full tables; --tensors prints them all;
// small models keep the full tables; --json is unchanged.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BinRun } from './bin-helpers.ts';
import { runMcusim, testTempDir } from './bin-helpers.ts';
import { ORACLE_MODELS, itWithData } from '../oracle-paths.ts';

const mcusim = (...args: string[]): Promise<BinRun> => runMcusim(args, 180_000);
const tmp = testTempDir('mcusim-cg-arena-');
const PD = `${ORACLE_MODELS}/person_detect.tflite`;

describe('inspect summary', () => {
  itWithData('models', 'summarizes person_detect (89 tensors) and lists every tensor with --tensors', async () => {
    const s = (await mcusim('inspect', PD));
    expect(s.code, s.stderr).toBe(0);
    const tensors = (JSON.parse((await mcusim('inspect', PD, '--json')).stdout) as { tensors: unknown[] }).tensors.length;
    expect(tensors).toBeGreaterThan(40);
    expect(s.stdout).toContain(`31 ops, ${tensors} tensors`);
    expect(s.stdout).toMatch(/op kind\s+count\s+MACs\n[- ]+\nconv2d\s+14\s+\d+\ndepthwiseConv2d\s+14/);
    expect(s.stdout).toContain('largest tensors:');
    expect(s.stdout).toMatch(/peak: +55296 B/);
    expect(s.stdout).toMatch(/arena on TFLM \(cortex-m, reference kernels\):/);
    expect(s.stdout).toMatch(/declare: +uint8_t tensor_arena\[\d+\]/);
    expect(s.stdout).not.toMatch(/^buffer\s+ch\s+what/m);
    const full = (await mcusim('inspect', PD, '--tensors'));
    expect(full.stdout).toMatch(/^buffer\s+ch\s+what/m);
    expect(full.stdout.split('\n').length).toBeGreaterThan(s.stdout.split('\n').length + tensors);
  });

  it('keeps the full tables on small models', async () => {
    const r = (await mcusim('inspect', 'zoo:cifar10-cnn'));
    expect(r.stdout).toMatch(/^tensor\s+name\s+dtype/m);
    expect(r.stdout).not.toContain('largest tensors:');
  });
});

describe('codegen arena report', () => {
  it('prints planned, persistent, total and outside for the goal\'s build, and carries arena in --json', async () => {
    const dir = join(tmp, 'project');
    const text = (await mcusim('codegen', 'zoo:cifar10-cnn', '--out-dir', dir));
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/arena \(mcusim C runtime, host64 build\):\n  planned: +\d+ B.*\n  persistent: +\d+ B.*\n  total: +\d+ B.*\n  outside: +\d+ B/);
    const doc = JSON.parse((await mcusim('codegen', 'zoo:cifar10-cnn', '--out-dir', dir, '--make-goal', 'cortex-m7', '--json')).stdout);
    expect(doc.arena).toMatchObject({ arch: 'cortex-m', runtime: 'mcusim' });
    expect(doc.arena.totalBytes).toBe(doc.arena.plannedBytes + doc.arena.persistentBytes);
    expect(doc.arena.plannedBytes).toBe(doc.peakBytes);
  });
});
