// `mcusim optimize` through the real bin: JSON shape, the written model carries the plan, and an
// unknown pass is bad input (exit 2) naming the available passes.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BinRun } from './bin-helpers.ts';
import { runMcusim, testTempDir } from './bin-helpers.ts';

const tmp = testTempDir('mcusim-optimize-');

const mcusim = (...args: string[]): Promise<BinRun> => runMcusim(args);

describe('mcusim optimize', () => {
  it('runs replacement on the CIFAR-10 CNN, prints one JSON document and writes a model verify accepts', async () => {
    const out = join(tmp, 'cifar.tflite');
    const r = (await mcusim('optimize', 'zoo:cifar10-cnn', '--passes', 'replacement', '-o', out, '--json'));
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc).toMatchObject({ before: { peakBytes: 40_960 }, after: { peakBytes: 35_840 }, passes: [{ pass: 'replacement', applied: true }] });
    expect(existsSync(out)).toBe(true);
    const inspect = JSON.parse((await mcusim('inspect', out, '--json')).stdout);
    expect(inspect.plan.peakBytes).toBe(35_840);
    const text = (await mcusim('optimize', 'zoo:cifar10-cnn', '--passes', 'replacement', '-o', join(tmp, 'c2.tflite')));
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/pass replacement/);
    // The pass line is printed once: the stdout table title; stderr carries progress only.
    const lines = `${text.stdout}\n${text.stderr}`.split('\n');
    expect(lines.filter((l) => l === 'pass replacement')).toHaveLength(1);
    expect(text.stderr).toContain('running replacement (pass 1 of 1)');
  });

  it('reports the whole arena before and after (planned + persistent = total) and the inspect figures for --arch', async () => {
    const out = join(tmp, 'cifar-dmo.tflite');
    for (const arch of ['cortex-m', 'host64']) {
      const doc = JSON.parse((await mcusim('optimize', 'zoo:cifar10-cnn', '--passes', 'dmo', '-o', out, '--json', '--arch', arch)).stdout);
      for (const [when, file] of [['before', 'zoo:cifar10-cnn'], ['after', out]] as const) {
        const a = doc[when].arena;
        expect(Object.keys(a).sort(), when).toEqual(['cpu', 'declareBytes', 'kernels', 'outsideArenaBytes', 'persistentBytes', 'plannedBytes', 'runtime', 'totalBytes']);
        expect(a, when).toMatchObject({ runtime: 'tflm', kernels: 'reference', cpu: null });
        expect(a.persistentBytes, when).toBeGreaterThan(0);
        expect(a.totalBytes, when).toBe(a.plannedBytes + a.persistentBytes);
        expect(a.plannedBytes, when).toBe(doc[when].peakBytes);
        const inspect = JSON.parse((await mcusim('inspect', file, '--json', '--arch', arch)).stdout);
        expect(a, `${when} ${arch}`).toMatchObject({ plannedBytes: inspect.arena.plannedBytes, persistentBytes: inspect.arena.persistentBytes, totalBytes: inspect.arena.totalBytes, declareBytes: inspect.arena.declareBytes });
      }
    }
    const text = (await mcusim('optimize', 'zoo:cifar10-cnn', '--passes', 'dmo', '-o', out));
    expect(text.stdout).toMatch(/whole arena on TFLM \(cortex-m, reference kernels\) .* -> .*; declare tensor_arena\[\d+\]/);
    expect((await mcusim('optimize', 'zoo:cifar10-cnn', '--passes', 'dmo', '-o', out, '--arch', 'z80')).code).toBe(2);
  });

  it('rejects an unknown pass and a missing -o with exit 2', async () => {
    const r = (await mcusim('optimize', 'zoo:cifar10-cnn', '--passes', 'dmo,bogus', '-o', join(tmp, 'x.tflite')));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^E_USAGE: .*bogus.*dmo/);
    expect((await mcusim('optimize', 'zoo:cifar10-cnn', '--passes', 'dmo')).code).toBe(2);
  });
});
