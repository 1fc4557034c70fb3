// scheduleGraph on seeded random DAGs: always a topological order whose peak is the live-bytes
// bound of the reordered graph and no worse than the given order; on small graphs, equal to the
// best of all topological orders whenever it claims optimality (always on series-parallel ones).
import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import type { Graph, Op, Tensor } from '../../../src/ir/index.ts';
import {
  buildMemoryModel,
  computeBufferRequests,
  idealsLowerBound,
  isTopologicalOrder,
  lowerBoundBytes,
  reorderGraph,
  scheduleAndReorder,
  scheduleExactDp,
  scheduleGraph,
  scheduleHillValley,
  schedulePeakBytes,
  scheduleSeriesParallel,
} from '../../../src/optimizer/index.ts';
import { act } from '../helpers.ts';

type Rng = () => number;

/** Builds graphs op by op; every op is a concatenation (or split) of its inputs. */
class Builder {
  readonly tensors: Tensor[] = [];
  readonly ops: Op[] = [];
  constructor(readonly rng: Rng) {}
  tensor(): number {
    this.tensors.push(act(`t${this.tensors.length}`, [16 * (1 + Math.floor(this.rng() * 12))]));
    return this.tensors.length - 1;
  }
  op(inputs: number[], outputs = 1): number[] {
    const outs = Array.from({ length: outputs }, () => this.tensor());
    if (outputs > 1) this.ops.push({ kind: 'split', inputs, outputs: outs, options: { numSplits: outputs } });
    else this.ops.push({ kind: 'concatenation', inputs, outputs: outs, options: { axis: 0, activation: 'none' } });
    return outs;
  }
  graph(input: number, outputs: number[]): Graph {
    return { name: 'g', tensors: this.tensors, ops: this.ops, inputs: [input], outputs };
  }
}

/** A random series-parallel block from tensor x; `shared` lets parallel branches read x directly. */
function spBlock(b: Builder, x: number, budget: number, shared: boolean): number {
  const r = b.rng();
  if (budget <= 1 || (budget < 6 && r < 0.3)) return b.op([x])[0] ?? 0;
  if (r < 0.55) return spBlock(b, spBlock(b, x, budget >> 1, shared), budget >> 1, shared);
  const k = 2 + Math.floor(b.rng() * 2);
  const mode = !shared ? 'split' : b.rng() < 0.5 ? 'split' : b.rng() < 0.5 ? 'shared' : 'residual';
  const starts = mode === 'split' ? b.op([x], k) : Array.from({ length: k }, () => x);
  const ends = starts.map((s) => spBlock(b, s, Math.max(1, Math.floor(budget / k)), shared));
  return b.op(mode === 'residual' ? [x, ...ends] : ends)[0] ?? 0;
}

function randomSpGraph(seed: string, budget: number, shared: boolean): Graph {
  const b = new Builder(seedrandom(seed));
  const input = b.tensor();
  const out = spBlock(b, input, budget, shared);
  return b.graph(input, [out]);
}

function randomDag(seed: string, n: number): Graph {
  const b = new Builder(seedrandom(seed));
  const input = b.tensor();
  const avail = [input];
  for (let i = 0; i < n; i++) {
    const k = 1 + Math.floor(b.rng() * 2);
    const ins = [...new Set(Array.from({ length: k }, () => avail[Math.floor(b.rng() * avail.length)] ?? input))];
    avail.push(...b.op(ins));
  }
  const used = new Set(b.ops.flatMap((o) => o.inputs));
  return b.graph(input, avail.filter((t) => !used.has(t)));
}

function bruteForceBest(graph: Graph): number {
  const model = buildMemoryModel(graph);
  let best = Infinity;
  const order: number[] = [];
  const done = new Uint8Array(model.opCount);
  const rec = (): void => {
    if (order.length === model.opCount) {
      best = Math.min(best, schedulePeakBytes(model, order));
      return;
    }
    for (let v = 0; v < model.opCount; v++) {
      if (done[v] || (model.preds[v] ?? []).some((p) => !done[p])) continue;
      done[v] = 1;
      order.push(v);
      rec();
      order.pop();
      done[v] = 0;
    }
  };
  rec();
  return best;
}

function checkValid(graph: Graph, seed: string, maxStates = 20_000): ReturnType<typeof scheduleGraph> {
  const res = scheduleGraph(graph, { timeBudgetMs: 10_000, maxStates });
  const model = buildMemoryModel(graph);
  expect(isTopologicalOrder(model, res.order), seed).toBe(true);
  expect(res.peakBytes, seed).toBe(lowerBoundBytes(computeBufferRequests(reorderGraph(graph, res.order))));
  expect(res.peakBytes, seed).toBe(schedulePeakBytes(model, res.order));
  if (res.method !== 'original') expect(res.peakBytes, seed).toBeLessThanOrEqual(schedulePeakBytes(model, graph.ops.map((_, i) => i)));
  return res;
}

describe('scheduleGraph', () => {
  it('is optimal on small series-parallel graphs (brute force over all topological orders)', () => {
    for (let k = 0; k < 60; k++) {
      const seed = `sp-${k}`;
      const graph = randomSpGraph(seed, 9, false);
      if (graph.ops.length > 9) continue;
      const res = checkValid(graph, seed);
      expect(res.method, seed).toBe('series-parallel');
      expect(res.peakBytes, seed).toBe(bruteForceBest(graph));
    }
  });

  it('is optimal whenever it says so, on small graphs with shared inputs and on arbitrary DAGs', () => {
    for (let k = 0; k < 60; k++) {
      const seed = `dag-${k}`;
      const graph = k % 2 === 0 ? randomSpGraph(seed, 9, true) : randomDag(seed, 7);
      if (graph.ops.length > 9) continue;
      const res = checkValid(graph, seed);
      if (res.optimal) expect(res.peakBytes, seed).toBe(bruteForceBest(graph));
    }
  });

  it('returns valid orders on large graphs; the heuristic alone is valid too', () => {
    for (let k = 0; k < 8; k++) {
      const seed = `big-${k}`;
      const graph = k % 2 === 0 ? randomSpGraph(seed, 80, true) : randomDag(seed, 60);
      const res = checkValid(graph, seed, 2000);
      expect(['series-parallel', 'exact-dp', 'hill-valley', 'original'], seed).toContain(res.method);
      const model = buildMemoryModel(graph);
      expect(isTopologicalOrder(model, scheduleHillValley(model)), seed).toBe(true);
      const sp = scheduleSeriesParallel(model);
      if (sp !== null) expect(isTopologicalOrder(model, sp.order), seed).toBe(true);
    }
  });

  it('schedules large series-parallel graphs optimally in polynomial time, no worse than the heuristic', () => {
    for (let k = 0; k < 4; k++) {
      const seed = `big-sp-${k}`;
      const graph = randomSpGraph(seed, 120, false);
      const res = checkValid(graph, seed);
      expect(graph.ops.length, seed).toBeGreaterThan(40);
      expect(res, seed).toMatchObject({ method: 'series-parallel', optimal: true });
      const model = buildMemoryModel(graph);
      expect(res.peakBytes, seed).toBeLessThanOrEqual(schedulePeakBytes(model, scheduleHillValley(model)));
    }
  });

  it('exact DP: gives up exactly when the graph has more ideals than its cap; the ideals bound never overstates', () => {
    // Ideals (executed-op sets closed under predecessors), counted by brute force over all subsets.
    const ideals = (graph: Graph): number => {
      const model = buildMemoryModel(graph);
      let count = 0;
      for (let set = 0; set < 1 << model.opCount; set++) {
        if (model.preds.every((ps, v) => !((set >> v) & 1) || ps.every((p) => (set >> p) & 1))) count++;
      }
      return count;
    };
    let pruned = 0;
    for (let k = 0; k < 40; k++) {
      const seed = `ideals-${k}`;
      const graph = k % 2 === 0 ? randomSpGraph(seed, 14, true) : randomDag(seed, 12);
      if (graph.ops.length > 14) continue;
      const model = buildMemoryModel(graph);
      const count = ideals(graph);
      expect(idealsLowerBound(model, Infinity), seed).toBeLessThanOrEqual(count);
      for (const cap of [count - 1, count, Math.floor(count / 2), 8]) {
        const dp = scheduleExactDp(model, cap, Infinity);
        expect(dp === null, `${seed} cap ${cap} of ${count} ideals`).toBe(count > cap);
        if (idealsLowerBound(model, cap) > cap) pruned++;
      }
    }
    // The bound alone settled some of them (without it, every case would still agree).
    expect(pruned).toBeGreaterThan(10);
  });

  it('reorders a graph and rejects an order that is not topological', () => {
    const graph = randomDag('reorder', 6);
    const { graph: reordered, schedule } = scheduleAndReorder(graph);
    expect(reordered.ops).toEqual(schedule.order.map((i) => graph.ops[i]));
    expect(() => reorderGraph(graph, [...schedule.order].reverse())).toThrowError(expect.objectContaining({ code: 'E_PLAN_INVALID' }));
  });
});
