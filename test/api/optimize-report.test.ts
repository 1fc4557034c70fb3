// optimizeWithReport (the like-with-like issue): before and after on one runtime and library, both
// runtimes when the result needs mcusim's ops, and a result larger than the original on the chosen
// runtime refused (nothing to write), as `mcusim optimize` reports them.
import { describe, expect, it } from 'vitest';
import { inspectModel, loadModel, needsMcusimOps, optimizeWithReport, zooModel } from '../../src/api/index.ts';
import { getTflmArch } from '../../src/sim/index.ts';
import { kernelRegistry } from '../../src/kernels/index.ts';

describe('optimizeWithReport', () => {
  it('tinyseg on tiny-unet: TFLM by default, both runtimes beside, after = inspect of the written file', () => {
    const { bytes, report } = optimizeWithReport(zooModel('tiny-unet'), ['tinyseg'], { kernels: 'cmsis-nn', cpu: 'cortex-m7' });
    expect(bytes).not.toBeNull();
    expect(report).toMatchObject({ runtime: 'tflm', kernels: 'cmsis-nn', cpu: 'cortex-m7', written: true });
    for (const side of [report.before.arena, report.after.arena]) expect(side).toMatchObject({ runtime: 'tflm', kernels: 'cmsis-nn', cpu: 'cortex-m7' });
    expect(report.after.arena.totalBytes).toBeLessThan(report.before.arena.totalBytes);
    const file = loadModel(bytes as Uint8Array);
    expect(needsMcusimOps(file, 'cmsis-nn', 'cortex-m7')).toBe(true);
    const inspected = inspectModel(file, 'tflm-greedy', {}, { arch: getTflmArch('cortex-m'), kernels: kernelRegistry('cmsis-nn', 'cortex-m7') }).report.arena;
    expect(inspected).toMatchObject({ runtime: 'tflm', totalBytes: report.after.arena.totalBytes, declareBytes: report.after.arena.declareBytes });
    // The C port beside it: the same plan, no TFLM structures; each runtime against the original on it.
    const r = report.runtimes;
    expect(r?.tflm).toEqual({ before: report.before.arena, after: report.after.arena });
    expect(r?.mcusim.before).toMatchObject({ runtime: 'mcusim', plannedBytes: report.before.arena.plannedBytes });
    expect(r?.mcusim.after).toMatchObject({ runtime: 'mcusim', plannedBytes: report.after.arena.plannedBytes, persistentBytes: 0 });
  });

  it('--runtime mcusim scores and compares the C port on both sides; a builtin-only result has no runtimes pair', () => {
    const c = optimizeWithReport(zooModel('tiny-unet'), ['tinyseg'], { runtime: 'mcusim' }).report;
    expect([c.before.arena.runtime, c.after.arena.runtime]).toEqual(['mcusim', 'mcusim']);
    const d = optimizeWithReport(zooModel('cifar10-cnn'), ['dmo']).report;
    expect(d.runtimes).toBeUndefined();
    expect([d.before.arena.runtime, d.after.arena.runtime, d.written]).toEqual(['tflm', 'tflm', true]);
  });

  it('refuses a result that needs more RAM than the original on the chosen runtime: no bytes, the reason', () => {
    // ffmt scored on the planned part alone lowers cifar10-cnn's plan but raises its whole arena.
    const run = optimizeWithReport(zooModel('cifar10-cnn'), ['ffmt'], { flags: { objective: 'planned' } });
    expect(run.report.after.peakBytes).toBeLessThan(run.report.before.peakBytes);
    expect(run.report.after.arena.totalBytes).toBeGreaterThan(run.report.before.arena.totalBytes);
    expect(run.bytes).toBeNull();
    expect(run.report.written).toBe(false);
    expect(run.report.refused).toMatch(/^the result needs [\d,]+ B on tflm \(reference kernels\), more than the original's [\d,]+ B: nothing written$/);
  });
});
