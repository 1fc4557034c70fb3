// The public API (src/index.ts) on small models: load / plan / run / trace / optimize / verify /
// latency agree with the layers they wrap, and the O_s entry points (safeOverlap,
// checkOverlapFormula) hold their contract: exact formula = tight and safe, exact + 1 = unsafe
// with a clobber wherever the arena can show one, bad formulas and kinds refused with codes.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ORACLE, itWithData } from '../oracle-paths.ts';
import {
  arenaTotals, buildSingleOpGraph, checkOverlapFormula, estimateLatency, kernelRegistry, loadModel, optimizeModel, planModel, preparePlannedModel, runModel,
  runPlanned, safeOverlap, saveModel, verify, zooModel,
} from '../../src/index.ts';
import type { OverlapOp } from '../../src/index.ts';

describe('models, plans, runs', () => {
  const model = zooModel('ds-cnn-kws');

  it('loadModel(saveModel(m)) plans and runs like m; hostile bytes are E_MODEL_CORRUPT', () => {
    const again = loadModel(saveModel(model));
    expect(planModel(again).peakBytes).toBe(planModel(model).peakBytes);
    expect(runModel(again, { seed: 3 }).outputs).toEqual(runModel(model, { seed: 3 }).outputs);
    expect(() => loadModel(new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8]), 'junk.tflite')).toThrow(expect.objectContaining({ code: expect.stringMatching(/^E_MODEL/) }));
  });

  it('planModel names its planner, never goes below the lower bound, and an unknown planner is E_USAGE', () => {
    const greedy = planModel(model);
    const linear = planModel(model, { planner: 'linear' });
    expect(greedy.planner).toBe('tflm-greedy');
    expect(greedy.peakBytes).toBeGreaterThanOrEqual(greedy.lowerBoundBytes);
    expect(linear.peakBytes).toBeGreaterThanOrEqual(greedy.peakBytes);
    expect(() => planModel(model, { planner: 'nope' })).toThrow(expect.objectContaining({ code: 'E_USAGE' }));
  });

  it('runModel = runPlanned on the same inputs; traced runs are clean and report counts', () => {
    const r = runModel(model, { seed: 5, trace: true });
    const ref = runPlanned(preparePlannedModel(model), { seed: 5 });
    expect(r.outputs).toEqual(ref.outputs);
    expect(r.trace?.violations).toEqual([]);
    expect(r.trace?.counts.clobber).toBe(0);
    expect(runModel(model, { inputs: ref.inputs }).outputs).toEqual(ref.outputs);
    expect(runModel(model).trace).toBeNull();
  });

  it('optimizeModel(dmo) shrinks or keeps the arena and verify() passes it', () => {
    const { model: optimized, reports } = optimizeModel(model, ['dmo']);
    expect(reports[0]?.peakBytesAfter).toBeLessThanOrEqual(reports[0]?.peakBytesBefore ?? 0);
    const v = verify(model, optimized, { seeds: 2 });
    expect(v).toMatchObject({ passed: true, seeds: 2, identical: true, traceClean: true });
    // The whole arena of both (planned + TFLM's persistent tail), as arenaTotals computes it.
    for (const arch of ['cortex-m', 'host64'] as const) {
      const w = arch === 'cortex-m' ? v : verify(model, optimized, { seeds: 1, arch });
      expect(w.arena).toEqual({ arch, original: arenaTotals(model, arch), optimized: arenaTotals(optimized, arch) });
      expect(w.arena.original.plannedBytes).toBe(w.originalPeakBytes);
      expect(w.arena.optimized.totalBytes).toBe(w.optimizedPeakBytes + w.arena.optimized.persistentBytes);
      expect(w.arena.optimized.persistentBytes).toBeGreaterThan(0);
    }
  });

  itWithData('models-real', 'optimizeModel takes the kernel library: a cmsis-nn DMO plan records it, arenaTotals match, verify with cmsis-nn passes', () => {
    const cm = kernelRegistry('cmsis-nn', 'cortex-m7');
    const resnet = loadModel(readFileSync(join(ORACLE, 'models-real', 'mlperf_ic_resnet8.tflite')));
    const { model: optimized, reports } = optimizeModel(resnet, ['dmo'], { kernels: 'cmsis-nn', cpu: 'cortex-m7' });
    expect(reports[0]?.applied).toBe(true);
    expect(reports[0]?.arena?.after).toEqual(arenaTotals(optimized, 'cortex-m', cm));
    const v = verify(resnet, optimized, { seeds: 1, kernels: 'cmsis-nn', cpu: 'cortex-m7' });
    expect(v).toMatchObject({ passed: true, plannedFor: { kernels: 'cmsis-nn', cpu: 'cortex-m7' }, plannedForMismatch: false });
    expect(verify(resnet, optimized, { seeds: 1 }).plannedForMismatch).toBe(true);
    // A file without an offline plan is planned by TFLM itself: no library is assumed.
    expect(verify(resnet, resnet, { seeds: 1, kernels: 'cmsis-nn' }).plannedForMismatch).toBe(false);
    expect(() => optimizeModel(model, ['dmo'], { kernels: 'reference', cpu: 'cortex-m7' })).toThrow(expect.objectContaining({ code: 'E_USAGE' }));
  });

  it('estimateLatency takes a board name or profile; unknown boards are E_USAGE', () => {
    const r = estimateLatency(model, 'nicla-vision');
    expect(r.totalMs).toBeGreaterThan(0);
    expect(estimateLatency(model).totalMs).toBe(r.totalMs);
    expect(() => estimateLatency(model, 'no-such-board')).toThrow(expect.objectContaining({ code: 'E_USAGE' }));
  });
});

describe('safe overlap', () => {
  it('safeOverlap of a spec = of the same graph op; the DMO Table II op (float32): 1204224 exact, 1193376 analytic', () => {
    const spec = { kind: 'depthwiseConv2d' as const, input: [1, 112, 112, 96], filter: [3, 3] as const, stride: [2, 2] as const };
    expect(safeOverlap(spec, 'algorithmic', { elementBytes: 4 })).toBe(1204224);
    expect(safeOverlap({ graph: buildSingleOpGraph(spec), opIndex: 0 }, 'analytic', { elementBytes: 4 })).toBe(1193376);
  });

  const exact = (op: OverlapOp): number => safeOverlap(op.spec, 'algorithmic');

  it('the exact O_s as a formula: safe, tightness 1 in every case', () => {
    const c = checkOverlapFormula(exact, { kinds: ['depthwiseConv2d', 'maxPool2d'], cases: 30, seed: 'exact' });
    expect(c.safe).toBe(true);
    expect(c.tightness).toEqual({ mean: 1, min: 1, exactCases: 30 });
    expect(c.cases.map((k) => k.op.kind).slice(0, 2)).toEqual(['depthwiseConv2d', 'maxPool2d']);
    for (const k of c.cases) expect(k.exact.trace).toBe(k.exact.algorithmic);
  });

  it('exact + 1: every case is unsafe; below both sizes the tracer names a clobber of the input', () => {
    const c = checkOverlapFormula((op) => exact(op) + 1, { kinds: ['depthwiseConv2d', 'conv2d'], cases: 30, seed: 'over' });
    expect(c.unsafe).toHaveLength(30);
    expect(c.safe).toBe(false);
    let shown = 0;
    for (const k of c.unsafe) {
      if (k.formula <= Math.min(k.op.outputBytes, k.op.inputBytes)) {
        shown++;
        expect(k.clobber, k.seed).toMatchObject({ kind: 'clobber', access: 'load', opIndex: 0 });
        if (k.index < 20) expect(c.summary).toContain(`case ${k.index} (seed '${k.seed}')`);
      } else if (k.formula > k.op.outputBytes) {
        expect(k.note).toMatch(/exceeds the output size/);
      }
    }
    expect(shown).toBeGreaterThan(10);
  });

  it('same seed, same configurations; another seed, others', () => {
    const a = checkOverlapFormula(() => 0, { cases: 5, seed: 's1' });
    expect(checkOverlapFormula(() => 0, { cases: 5, seed: 's1' }).cases.map((k) => k.op.spec)).toEqual(a.cases.map((k) => k.op.spec));
    expect(checkOverlapFormula(() => 0, { cases: 5, seed: 's2' }).cases.map((k) => k.op.spec)).not.toEqual(a.cases.map((k) => k.op.spec));
  });

  it('bad formulas, counts and kinds are E_USAGE', () => {
    expect(() => checkOverlapFormula(() => -1, { cases: 1 })).toThrow(expect.objectContaining({ code: 'E_USAGE' }));
    expect(() => checkOverlapFormula(() => 1.5, { cases: 1 })).toThrow(expect.objectContaining({ code: 'E_USAGE' }));
    expect(() => checkOverlapFormula(() => 0, { cases: 0 })).toThrow(expect.objectContaining({ code: 'E_USAGE' }));
    expect(() => checkOverlapFormula(() => 0, { kinds: ['spill'] })).toThrow(expect.objectContaining({ code: 'E_USAGE' }));
  });
});
