// Combined pipelines (tiling,dmo and tinyseg,dmo) and the `auto` pass (issue 6): each optimized
// model survives a .tflite round trip, passes the static plan check, gives byte-identical outputs
// and a clean tracer run; auto reports every candidate and picks the least latency among those
// meeting the target on the whole arena (else the lowest whole arena).
import { describe, expect, it } from 'vitest';
import { GraphBuilder, McusimError, buildZooModel, exportTflite, importTflite } from '../../src/ir/index.ts';
import type { Model } from '../../src/ir/index.ts';
import type { AutoDetails } from '../../src/optimizer/index.ts';
import { PASSES, applyFdt, arenaTotals, currentPeakBytes, ramBytes, preparePlannedModel, runPipeline, runPlanned } from '../../src/optimizer/index.ts';
import { Tracer } from '../../src/sim/index.ts';

/**
 * `mcusim verify` in miniature: the static plan check (preparePlannedModel verifies the offline
 * plan against the graph's safe overlaps), identical outputs on `seed` and, with `trace`, a clean
 * tracer run (slow on big graphs: tiny-unet's traced run takes ~15 s, so it relies on the static check).
 */
function verifies(original: Model, optimized: Model, seed: number, trace = true): void {
  const pa = preparePlannedModel(original);
  const pb = preparePlannedModel(importTflite(exportTflite(optimized)));
  const tracer = trace ? new Tracer({ graph: pb.graph, tensorOffsets: pb.tensorOffsets, scratchOffsets: pb.scratchOffsets, arenaBytes: pb.arenaBytes }) : null;
  const got = runPlanned(pb, { seed, ...(tracer ? { trace: tracer.sink } : {}) }).outputs;
  tracer?.finish();
  expect(got, `seed ${seed}`).toEqual(runPlanned(pa, { seed }).outputs);
  expect(tracer?.violations() ?? [], `seed ${seed}`).toEqual([]);
}

describe('combined pipelines', () => {
  it('tiling,dmo on cifar10-cnn: each pass lowers the peak and the result verifies', () => {
    const m = buildZooModel('cifar10-cnn');
    // The planned-only objective: this test is about DMO laying out a tiled graph (its merges).
    const { model, reports } = runPipeline(m, ['tiling', 'dmo'], { flags: { 'time-budget-ms': 1500, objective: 'planned' } });
    expect(reports.map((r) => r.pass)).toEqual(['tiling', 'dmo']);
    expect(reports[0]!.peakBytesAfter).toBeLessThan(reports[0]!.peakBytesBefore);
    expect(reports[1]!.peakBytesBefore).toBe(reports[0]!.peakBytesAfter);
    expect(reports[1]!.peakBytesAfter).toBeLessThan(reports[1]!.peakBytesBefore);
    expect(currentPeakBytes(model)).toBe(reports[1]!.peakBytesAfter);
    verifies(m, model, 1);
  });

  it('tinyseg,dmo on tiny-unet: DMO plans a graph with Spill / Fetching ops and it verifies', () => {
    const m = buildZooModel('tiny-unet');
    const { model, reports } = runPipeline(m, ['tinyseg', 'dmo'], { flags: {} });
    expect(reports[0]!.applied).toBe(true);
    expect(model.graph.ops.some((op) => op.kind === 'spill')).toBe(true);
    expect(reports[1]!.peakBytesAfter).toBeLessThan(reports[0]!.peakBytesAfter);
    verifies(m, model, 1, false);
  });

  it('dmo overlaps Merge ops (exact O_s walk) after an FDT fan-in and verifies', () => {
    const b = new GraphBuilder('fdt-merge-dmo');
    let x = b.input('in', [1, 16, 16, 4], { scale: 0.04, zeroPoint: 3 });
    x = b.conv2d(x, { name: 'c0', outChannels: 16, kernel: 1, activation: 'relu' });
    x = b.depthwiseConv2d(x, { name: 'dw', kernel: 3, activation: 'relu' });
    x = b.conv2d(x, { name: 'c1', outChannels: 8, kernel: 1, activation: 'relu' });
    const m = b.build('fdt merge dmo', [x]);
    const tiled = applyFdt(m, { fanOut: 0, part: [1], fanIn: 2, partitions: 4 });
    const { model, reports } = runPipeline(tiled, ['dmo'], { flags: {} });
    const pairs = (reports[0]!.details as { pairs: { op: number }[] }).pairs;
    expect(pairs.some((p) => tiled.graph.ops[p.op]?.kind === 'merge')).toBe(true);
    expect(reports[0]!.peakBytesAfter).toBeLessThan(reports[0]!.peakBytesBefore);
    verifies(m, model, 1);
  });
});

describe('auto pass', () => {
  it('is registered', () => {
    expect(Object.keys(PASSES)).toContain('auto');
  });

  it('reports every candidate and picks the least latency among those meeting the target (on the whole arena)', () => {
    const m = buildZooModel('cifar10-cnn');
    const target = 25_000;
    const { model, reports, target: verdict } = runPipeline(m, ['auto'], { targetBytes: target, flags: { 'time-budget-ms': 20_000 } });
    const d = reports[0]!.details as AutoDetails;
    expect(d.targetMeasure).toBe('totalBytes');
    expect(verdict).toEqual({ bytes: target, measure: 'totalBytes', achievedBytes: arenaTotals(model).totalBytes, met: true, gapBytes: 0 });
    expect(d.candidates.map((c) => c.passes)).toEqual(expect.arrayContaining(['none', 'dmo', 'replacement', 'tinyseg', 'tiling', 'tinyseg,dmo', 'tiling,dmo']));
    const ok = d.candidates.filter((c) => c.status === 'ok');
    const met = ok.filter((c) => c.meetsTarget);
    expect(met.length).toBeGreaterThan(0);
    expect(met.every((c) => c.totalBytes! <= target)).toBe(true);
    // A candidate whose planned part alone meets the target but whose total does not is not "met".
    expect(ok.filter((c) => !c.meetsTarget).every((c) => c.totalBytes! > target)).toBe(true);
    expect(d.targetMet).toBe(true);
    const chosen = ok.find((c) => c.passes === d.chosen)!;
    expect(chosen.meetsTarget).toBe(true);
    expect(chosen.latencyMs).toBe(Math.min(...met.map((c) => c.latencyMs!)));
    expect(reports[0]!.peakBytesAfter).toBe(chosen.peakBytes);
    expect(currentPeakBytes(model)).toBe(chosen.peakBytes);
    verifies(m, model, 2);
  });

  it('says so and returns the lowest whole arena when no candidate meets the target', () => {
    const m = buildZooModel('ds-cnn-kws');
    const { model, reports } = runPipeline(m, ['auto'], { targetBytes: 1000, flags: { 'time-budget-ms': 10_000 } });
    const d = reports[0]!.details as AutoDetails;
    expect(d.targetMet).toBe(false);
    const ok = d.candidates.filter((c) => c.status === 'ok');
    const totals = ok.map((c) => c.totalBytes!);
    const chosen = ok.find((c) => c.passes === d.chosen)!;
    expect(chosen.totalBytes).toBe(Math.min(...totals));
    expect(ramBytes(arenaTotals(model))).toBe(chosen.totalBytes);
    expect(reports[0]!.peakBytesAfter).toBe(chosen.peakBytes);
    expect(reports[0]!.notes.some((n) => n.includes('no pipeline meets'))).toBe(true);
  });

  it('rejects a bad time budget with a UsageError', () => {
    let code: string | undefined;
    try {
      runPipeline(buildZooModel('ds-cnn-kws'), ['auto'], { flags: { 'time-budget-ms': -5 } });
    } catch (e) {
      code = e instanceof McusimError ? e.code : 'raw';
    }
    expect(code).toBe('E_USAGE');
  });
});
