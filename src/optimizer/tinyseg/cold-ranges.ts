// TinySeg cold-range analysis (paper §4.1, Algorithm 2) and the peak facts the graph transformer
// needs (Algorithm 3 line 2): the TFLM-greedy peak of a graph and the activation tensors live at
// the step where the plan reaches it. Op ids are op indices; graph inputs are defined at id -1.
// Peaks are planned with a kernel library's scratch requests (default: the reference kernels).
import type { Graph, Model } from '../../ir/index.ts';
import { OFFLINE_PLAN_METADATA_NAME } from '../../ir/index.ts';
import { computeBufferRequests, planGreedy } from '../planners/index.ts';
import type { KernelRegistry } from '../../kernels/index.ts';

export interface ColdRange {
  /** Op id at the start of the longest cold range (where the tensor is last touched before it). */
  readonly start: number;
  /** Op id at its end (the next use). */
  readonly end: number;
  /** Op id of the last use. */
  readonly last: number;
}

export function coldRangeLength(cr: ColdRange | null): number {
  return cr === null ? 0 : cr.end - cr.start;
}

/** Algorithm 2, per tensor index; null for constants and tensors never defined. */
export function computeColdRanges(graph: Graph): (ColdRange | null)[] {
  const cr: ({ start: number; end: number; last: number } | null)[] = graph.tensors.map(() => null);
  for (const t of graph.inputs) if (graph.tensors[t]?.data === null) cr[t] = { start: -1, end: -1, last: -1 };
  graph.ops.forEach((op, id) => {
    for (const t of op.outputs) cr[t] = { start: id, end: id, last: id };
    for (const t of op.inputs) {
      const c = t >= 0 ? cr[t] : null;
      if (c === null || c === undefined) continue;
      if (c.end - c.start < id - c.last) {
        c.start = c.last;
        c.end = id;
      }
      c.last = id;
    }
  });
  return cr;
}

export interface PeakInfo {
  readonly peakBytes: number;
  /** Planner step (op index + 1; 0 = before op 0) where the tensors below are live. */
  readonly step: number;
  /** Activation tensors live at that step. */
  readonly tensors: readonly number[];
}

/** TFLM-greedy peak of `graph` and the tensors live where the plan reaches it (largest live sum among those steps). */
export function analyzePeak(graph: Graph, registry?: KernelRegistry): PeakInfo {
  const requests = computeBufferRequests(graph, registry === undefined ? {} : { registry });
  const plan = planGreedy(requests);
  const top = requests.filter((r, i) => (plan.offsets[i] ?? 0) + r.sizeBytes === plan.peakBytes);
  let best = { step: 0, live: -1 };
  for (const r of top) {
    for (let s = r.firstStep; s <= r.lastStep; s++) {
      const live = requests.reduce((sum, q) => (q.firstStep <= s && s <= q.lastStep ? sum + q.sizeBytes : sum), 0);
      if (live > best.live) best = { step: s, live };
    }
  }
  const tensors = requests.filter((q) => q.tensor !== null && q.firstStep <= best.step && best.step <= q.lastStep).map((q) => q.tensor as number);
  return { peakBytes: plan.peakBytes, step: best.step, tensors };
}

export function greedyPeakBytes(graph: Graph, registry?: KernelRegistry): number {
  return planGreedy(computeBufferRequests(graph, registry === undefined ? {} : { registry })).peakBytes;
}

/** The model with a new graph and no offline plan (tensor indices changed). */
export function withGraph(model: Model, graph: Graph): Model {
  return { ...model, graph, metadata: model.metadata.filter((m) => m.name !== OFFLINE_PLAN_METADATA_NAME) };
}
