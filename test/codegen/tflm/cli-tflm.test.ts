// The CLI of issue 45 through the real bin: `inspect --runtime tflm|mcusim`, `codegen --tflm` (its
// folder and the arena it prints = inspect's), `optimize --runtime tflm` (what it reports = inspect's
// figure of the file it wrote), and their usage errors (exit 2).
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runMcusim, testTempDir } from '../../cli/bin-helpers.ts';
import { optimizedFile } from './tflm-helpers.ts';

interface Arena { readonly runtime: string; readonly plannedBytes: number; readonly persistentBytes: number; readonly totalBytes: number }

async function arenaOf(file: string, args: readonly string[]): Promise<Arena> {
  const r = await runMcusim(['inspect', file, ...args, '--json', '-q']);
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { arena: Arena }).arena;
}

describe('issue 45 CLI', () => {
  const dir = testTempDir('mcusim-cli-tflm-');
  const file = join(dir, 'tiny-unet-tinyseg.tflite');
  writeFileSync(file, optimizedFile('tiny-unet', ['tinyseg']).bytes);

  it('inspect --runtime: tflm = TFLM with the generated kernels (the default figure), mcusim = the C port', async () => {
    const tflm = await arenaOf(file, ['--runtime', 'tflm', '--arch', 'cortex-m']);
    const mcusim = await arenaOf(file, ['--runtime', 'mcusim', '--arch', 'cortex-m']);
    const plain = await arenaOf(file, ['--arch', 'cortex-m']);
    expect(tflm).toEqual(plain);
    expect(mcusim.runtime).toBe('mcusim');
    expect(tflm.runtime).toBe('tflm');
    expect(tflm.plannedBytes).toBe(mcusim.plannedBytes);
    expect(tflm.persistentBytes).toBeGreaterThan(0);
    expect(tflm.totalBytes).toBe(tflm.plannedBytes + tflm.persistentBytes);
    const bad = await runMcusim(['inspect', file, '--runtime', 'stock', '-q']);
    expect(bad.code).toBe(2);
  });

  it('codegen --tflm writes the folder and prints the arena inspect --runtime tflm predicts', async () => {
    const out = join(dir, 'kernels');
    const r = await runMcusim(['codegen', file, '--tflm', '--out-dir', out, '--json', '-q']);
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as { files: string[]; arenas: Arena[]; registrations: number };
    expect(doc.files).toContain('mcusim_ops.h');
    for (const f of doc.files) expect(existsSync(join(out, f)), f).toBe(true);
    expect(doc.registrations).toBe(3);
    const [m, h] = [await arenaOf(file, ['--runtime', 'tflm', '--arch', 'cortex-m']), await arenaOf(file, ['--runtime', 'tflm', '--arch', 'host64'])];
    expect(doc.arenas.map((a) => a.totalBytes)).toEqual([m.totalBytes, h.totalBytes]);
    const goal = await runMcusim(['codegen', file, '--tflm', '--make-goal', 'host', '--out-dir', join(dir, 'x'), '-q']);
    expect(goal.code).toBe(2);
  });

  it('codegen --tflm --kernels cmsis-nn --cpu cortex-m7: the cmsis-nn sites and the TFLM + CMSIS-NN arena inspect predicts', async () => {
    const out = join(dir, 'kernels-cmsis');
    const cmsis = ['--kernels', 'cmsis-nn', '--cpu', 'cortex-m7'];
    const r = await runMcusim(['codegen', file, '--tflm', ...cmsis, '--out-dir', out, '--json', '-q']);
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as { kernels: string; cpu: string; arenas: Arena[]; registrations: number; sites: { kind: string }[] };
    expect([doc.kernels, doc.cpu]).toEqual(['cmsis-nn', 'cortex-m7']);
    expect(doc.sites.map((x) => x.kind)).toEqual(['spill', 'fetchingConv2d']);
    expect(doc.registrations).toBe(2);
    const m = await arenaOf(file, ['--runtime', 'tflm', '--arch', 'cortex-m', ...cmsis]);
    expect(doc.arenas.map((a) => a.totalBytes)).toEqual([m.totalBytes]);
    const opt = join(dir, 'opt-cmsis.tflite');
    const o = await runMcusim(['optimize', 'zoo:tiny-unet', '--passes', 'tinyseg', '--runtime', 'tflm', ...cmsis, '-o', opt, '--json', '-q']);
    expect(o.code, o.stderr).toBe(0);
    const after = (JSON.parse(o.stdout) as { after: { arena: { totalBytes: number } } }).after.arena.totalBytes;
    expect(after).toBe((await arenaOf(opt, ['--runtime', 'tflm', '--arch', 'cortex-m', ...cmsis])).totalBytes);
  });

  it('optimize --runtime tflm reports the TFLM figure of the file it writes', async () => {
    const out = join(dir, 'opt.tflite');
    const r = await runMcusim(['optimize', 'zoo:tiny-unet', '--passes', 'tinyseg', '--runtime', 'tflm', '-o', out, '--json', '-q']);
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as { after: { arena: { totalBytes: number } } };
    expect(doc.after.arena.totalBytes).toBe((await arenaOf(out, ['--runtime', 'tflm', '--arch', 'cortex-m'])).totalBytes);
  });
});
