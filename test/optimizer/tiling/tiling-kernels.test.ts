// The tiling search scores candidates for the chosen kernel library (issue 46 item 5): an evaluation
// context names the library (it survives structured cloning, as a worker receives it) and its
// candidate totals are that library's whole arena, not the reference kernels'; the pass's reported
// arena is what `inspect --kernels cmsis-nn` computes for the written file.
import { describe, expect, it } from 'vitest';
import { buildZooModel, exportTflite, importTflite } from '../../../src/ir/index.ts';
import { kernelRegistry } from '../../../src/kernels/index.ts';
import type { TilingEvalContext, TilingScore } from '../../../src/optimizer/index.ts';
import {
  arenaTotals, candidateTotals, computeModelBufferRequests, criticalTensors, evaluateTilingCandidate, kernelNamesOf, planGreedy, proposeFdt, proposeFfmt,
  fdtPass, registryOfNames,
} from '../../../src/optimizer/index.ts';

const CMSIS = kernelRegistry('cmsis-nn', 'cortex-m7');

describe('tiling candidates scored for a kernel library', () => {
  it('kernel names round-trip, reference is the default (no names)', () => {
    expect(kernelNamesOf(undefined)).toBeUndefined();
    expect(kernelNamesOf(kernelRegistry('reference'))).toBeUndefined();
    const names = kernelNamesOf(kernelRegistry('cmsis-nn', 'cortex-m0plus'));
    expect(names).toEqual({ library: 'cmsis-nn', cpu: 'cortex-m0plus' });
    expect(registryOfNames(structuredClone(names))).toStrictEqual(kernelRegistry("cmsis-nn", "cortex-m0plus"));
    expect(registryOfNames(undefined)).toBeUndefined();
  });

  it('a cloned cmsis-nn context scores like the original, and unlike the reference kernels', () => {
    const model = buildZooModel('cifar10-cnn');
    const requests = computeModelBufferRequests(model, CMSIS);
    const t = criticalTensors(model.graph, requests, planGreedy(requests))[0];
    expect(t).toBeDefined();
    const cands = [
      ...proposeFdt(model.graph, t as number).map((path) => ({ method: 'fdt' as const, path })),
      ...proposeFfmt(model.graph, t as number).map((path) => ({ method: 'ffmt' as const, path })),
    ];
    expect(cands.length).toBeGreaterThan(2);
    const ctx: TilingEvalContext = { model, arch: 'cortex-m', kernels: { library: 'cmsis-nn', cpu: 'cortex-m7' } };
    const refCtx: TilingEvalContext = { model, arch: 'cortex-m' };
    const clone = structuredClone(ctx);
    const ok = (s: TilingScore) => (s.status === 'ok' ? s : null);
    let differs = 0;
    for (const c of cands) {
      const a = ok(evaluateTilingCandidate(ctx, c));
      expect(ok(evaluateTilingCandidate(clone, c))).toEqual(a);
      const r = ok(evaluateTilingCandidate(refCtx, c));
      if (a !== null && r !== null && (a.totals.totalBytes !== r.totals.totalBytes || a.totals.persistentBytes !== r.totals.persistentBytes)) differs++;
    }
    // CMSIS-NN's conv im2col scratch and its per-channel persistent arrays change the figures.
    expect(differs).toBeGreaterThan(0);
  });

  it('fdt with cmsis-nn reports the whole arena inspect computes for the written file', () => {
    const model = buildZooModel('cifar10-cnn');
    // A short budget (one long synchronous search starves vitest's RPC): the first step's candidates
    // are always scored, and what is checked holds for whatever the search found.
    const r = fdtPass.run(model, { flags: { 'time-budget-ms': 3000 }, arch: 'cortex-m', registry: CMSIS });
    expect(r.report.applied).toBe(true);
    const written = importTflite(exportTflite(r.model));
    const inspected = arenaTotals(written, 'cortex-m', CMSIS);
    expect(r.report.arena?.after).toEqual(inspected);
    expect(r.report.arena?.before).toEqual(arenaTotals(model, 'cortex-m', CMSIS));
    // The pass scored the cmsis-nn build: its before figure is not the reference kernels' one.
    expect(r.report.arena?.before.totalBytes).not.toBe(candidateTotals(model, 'cortex-m').totalBytes);
    expect((r.report.details as { totalsAfter: unknown }).totalsAfter).toEqual(inspected);
  }, 300_000);
});
