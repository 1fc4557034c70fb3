// DMO pass and registry entry (DMO paper §II-D, §IV, Table III): overlap-pair rules, the
// zoo's MobileNet v1 0.25 128 at <= 65,741 B, the heap baseline, and plans written as metadata.
import { describe, expect, it } from 'vitest';
import { GraphBuilder, buildZooModel, readOfflinePlan } from '../../../src/ir/index.ts';
import {
  computeModelBufferRequests,
  dmoPass,
  graphOverlapPairs,
  planBuffers,
  planDmo,
  planDmoGraph,
  planGreedy,
  planOverlapPairs,
  verifyPlanWithOverlaps,
} from '../../../src/optimizer/index.ts';

const q = { scale: 0.05, zeroPoint: 0 };

describe('graphOverlapPairs', () => {
  it('pairs an input with its output only when the op is its last reader, it is no graph output and is read once', () => {
    const b = new GraphBuilder('pairs');
    const x = b.input('x', [1, 8, 8, 4], q);
    const c1 = b.conv2d(x, { name: 'c1', outChannels: 4, kernel: 3 }); // x dies here: pair
    const c2 = b.conv2d(c1, { name: 'c2', outChannels: 4, kernel: 1 }); // c1 is read later: no pair
    const s = b.add('sum', c1, c2); // c1 dies here: pair
    const d = b.add('double', s, s); // sum read twice by the op: no pair
    const e = b.conv2d(c2, { name: 'e', outChannels: 4, kernel: 1 }); // c2 is a graph output: no pair
    const model = b.build('pair rules', [d, c2, e]);
    const requests = computeModelBufferRequests(model);
    const pairs = graphOverlapPairs(model.graph, requests, { method: 'analytic' });
    const tensorOf = (id: number): string => model.graph.tensors[requests[id]?.tensor ?? -1]?.name ?? '?';
    const named = pairs.map((p) => `${tensorOf(p.inputId)}->${tensorOf(p.outputId)}`).sort();
    expect(named).toEqual(['c1->sum', 'x->c1']);
    for (const p of pairs) expect(p.safeOverlapBytes).toBeGreaterThanOrEqual(p.opSafeOverlapBytes);
  });
});

describe('DMO on zoo:mobilenet-v1-0.25-128 (Table III: 96 KB -> 64 KB)', () => {
  const model = buildZooModel('mobilenet-v1-0.25-128');
  const requests = computeModelBufferRequests(model);
  const dmo = planDmoGraph(requests, model.graph);

  it('peaks at <= 65,741 B with exact (algorithmic) O_s and verifies with the orientation rule', () => {
    expect(dmo.plan.peakBytes).toBeLessThanOrEqual(65_741);
    verifyPlanWithOverlaps(requests, dmo.plan, dmo.pairs);
    expect(planBuffers('dmo', requests, model.graph).peakBytes).toBe(dmo.plan.peakBytes);
    const greedy = planGreedy(requests).peakBytes;
    const heap = planDmo(requests, []).peakBytes;
    console.info(`mobilenet-v1-0.25-128: tflm-greedy ${greedy} B, heap (DMO allocator, no overlaps) ${heap} B, DMO ${dmo.plan.peakBytes} B (${dmo.variant}); saving vs heap ${(100 * (1 - dmo.plan.peakBytes / heap)).toFixed(1)}%`);
    expect(heap).toBe(98_304);
  });

  it('a plan check needs only the pairs the plan overlaps, with the walk only past the analytic bound', () => {
    const all = graphOverlapPairs(model.graph, requests);
    const used = planOverlapPairs(model.graph, requests, dmo.plan);
    const shares = (a: number, b: number): boolean => {
      const [ra, rb] = [requests[a]!, requests[b]!];
      const [oa, ob] = [dmo.plan.offsets[a]!, dmo.plan.offsets[b]!];
      return oa < ob + rb.sizeBytes && ob < oa + ra.sizeBytes;
    };
    expect(used.length).toBeGreaterThan(0);
    expect(used.length).toBeLessThanOrEqual(all.length);
    expect(all.filter((p) => shares(p.inputId, p.outputId)).map((p) => p.opIndex)).toEqual(used.map((p) => p.opIndex));
    verifyPlanWithOverlaps(requests, dmo.plan, used);
    // Each pair's O_s covers what the plan overlaps; the analytic bound stands in only where it does.
    for (const p of used) {
      const full = all.find((q) => q.opIndex === p.opIndex)!;
      expect(p.safeOverlapBytes).toBeLessThanOrEqual(full.safeOverlapBytes);
      expect(dmo.plan.offsets[p.inputId]!).toBeGreaterThanOrEqual(dmo.plan.offsets[p.outputId]! + requests[p.outputId]!.sizeBytes - p.safeOverlapBytes);
    }
    // An input moved below its output's end minus the exact O_s fails both checks alike.
    const p = all.find((q) => shares(q.inputId, q.outputId))!;
    const offsets = [...dmo.plan.offsets];
    offsets[p.inputId] = offsets[p.outputId]! + requests[p.outputId]!.sizeBytes - p.safeOverlapBytes - 16;
    const bad = { ...dmo.plan, offsets };
    const code = (f: () => void): unknown => {
      try {
        f();
        return null;
      } catch (e) {
        return (e as { code?: string }).code;
      }
    };
    expect(code(() => verifyPlanWithOverlaps(requests, bad, all))).toBe('E_PLAN_OVERLAP');
    expect(code(() => verifyPlanWithOverlaps(requests, bad, planOverlapPairs(model.graph, requests, bad)))).toBe('E_PLAN_OVERLAP');
  });

  it('needs the graph, as a coded usage error', () => {
    expect(() => planBuffers('dmo', requests)).toThrow(expect.objectContaining({ code: 'E_USAGE' }));
  });

  it('the pass writes the plan as OfflineMemoryAllocation metadata that re-plans to the same peak', () => {
    const r = dmoPass.run(model, { flags: {} });
    expect(r.report.applied).toBe(true);
    expect(r.report.peakBytesAfter).toBe(dmo.plan.peakBytes);
    const plan = readOfflinePlan(r.model);
    expect(plan).not.toBeNull();
    const again = computeModelBufferRequests(r.model);
    expect(planBuffers('tflm-greedy', again, r.model.graph).peakBytes).toBe(dmo.plan.peakBytes);
    // Without the graph the static check cannot know the safe overlaps.
    expect(() => planBuffers('tflm-greedy', again)).toThrow(expect.objectContaining({ code: 'E_PLAN_OVERLAP' }));
  });
});
