// Which (input, output) buffer pairs of a graph DMO may overlap, and by how much (DMO paper
// §II-D): op i's primary input may start O_s bytes below its output's end only if op i is its
// last reader (request lastStep == i+1), it is not a graph output and op i reads it once. O_s
// comes from the exact algorithmic walk (safe-overlap.ts, §III-C) or the analytic lower bound
// (safe-overlap-analytic.ts, §III-D); either is safe, the algorithmic one is larger.
import type { Graph } from '../../ir/index.ts';
import { byteSize } from '../../ir/index.ts';
import type { SafeOverlapPair, BufferRequest, Plan } from '../planners/index.ts';
import type { KernelRegistry } from '../../kernels/index.ts';
import { analyticApplies, safeOverlap } from './safe-overlap.ts';
import { analyticSafeOverlap, primaryInputPosition } from './safe-overlap-analytic.ts';

export type OverlapPairMethod = 'algorithmic' | 'analytic';

export interface OverlapPairOptions {
  /** 'algorithmic' (default): exact O_s, analytic where the walk fails; 'analytic': lower bound only. */
  readonly method?: OverlapPairMethod;
  /** Whose access order O_s is for (default reference); the analytic bound only where the op runs the reference spec. */
  readonly registry?: KernelRegistry;
}

export interface GraphOverlapPair extends SafeOverlapPair {
  readonly opIndex: number;
  /** O_s of the op in tensor bytes (safeOverlapBytes adds the output's alignment padding). */
  readonly opSafeOverlapBytes: number;
  readonly method: OverlapPairMethod;
}

/** Request id per tensor index (tensors that are planned). */
function requestByTensor(requests: readonly BufferRequest[]): Map<number, BufferRequest> {
  const m = new Map<number, BufferRequest>();
  for (const r of requests) if (r.tensor !== null) m.set(r.tensor, r);
  return m;
}

/** The op's (input tensor, output tensor) DMO may overlap, or null when the rules forbid it. */
export function overlapCandidate(graph: Graph, opIndex: number, requests: readonly BufferRequest[]): { input: BufferRequest; output: BufferRequest } | null {
  const op = graph.ops[opIndex];
  if (op === undefined || op.kind === 'custom') return null;
  const byTensor = requestByTensor(requests);
  const t = op.inputs[primaryInputPosition(op)];
  const u = op.outputs[0];
  if (t === undefined || u === undefined || t < 0 || u < 0 || t === u) return null;
  const input = byTensor.get(t);
  const output = byTensor.get(u);
  if (input === undefined || output === undefined) return null;
  if (input.lastStep !== opIndex + 1 || graph.outputs.includes(t)) return null;
  if (op.inputs.filter((x) => x === t).length !== 1 || op.outputs.includes(t)) return null;
  return { input, output };
}

function opOverlap(graph: Graph, opIndex: number, method: OverlapPairMethod, registry: KernelRegistry | undefined): { bytes: number; method: OverlapPairMethod } | null {
  const op = graph.ops[opIndex];
  if (op === undefined) return null;
  const analytic = analyticApplies(op, registry);
  if (method === 'algorithmic' || !analytic) {
    try {
      return { bytes: safeOverlap(graph, opIndex, { method: 'algorithmic', ...(registry === undefined ? {} : { registry }) }), method: 'algorithmic' };
    } catch {
      // fall through to the analytic lower bound (the reference order's: none for another library's spec)
      if (!analytic) return null;
    }
  }
  try {
    return { bytes: analyticSafeOverlap(op, graph), method: 'analytic' };
  } catch {
    return null;
  }
}

function pairOf(graph: Graph, opIndex: number, c: { input: BufferRequest; output: BufferRequest }, os: { bytes: number; method: OverlapPairMethod } | null): GraphOverlapPair | null {
  if (os === null || os.bytes <= 0) return null;
  const out = graph.tensors[graph.ops[opIndex]?.outputs[0] ?? -1];
  if (out === undefined) return null;
  const padding = c.output.sizeBytes - byteSize(out.dtype, out.shape);
  return { inputId: c.input.id, outputId: c.output.id, safeOverlapBytes: os.bytes + padding, opIndex, opSafeOverlapBytes: os.bytes, method: os.method };
}

/** Every overlap DMO may use in `graph`, with O_s converted to request bytes. */
export function graphOverlapPairs(graph: Graph, requests: readonly BufferRequest[], options: OverlapPairOptions = {}): GraphOverlapPair[] {
  const method = options.method ?? 'algorithmic';
  const pairs: GraphOverlapPair[] = [];
  graph.ops.forEach((_, opIndex) => {
    const c = overlapCandidate(graph, opIndex, requests);
    const p = c === null ? null : pairOf(graph, opIndex, c, opOverlap(graph, opIndex, method, options.registry));
    if (p !== null) pairs.push(p);
  });
  return pairs;
}

/**
 * The overlaps that checking `plan` needs (verifyPlanWithOverlaps gives the same verdict as with
 * graphOverlapPairs): only candidate pairs whose buffers share bytes in the plan matter, and for
 * those the analytic lower bound suffices when the plan overlaps them by no more than it allows;
 * the address walk runs only for the rest. A plan check then costs a fraction of a DMO plan.
 */
export function planOverlapPairs(graph: Graph, requests: readonly BufferRequest[], plan: Plan, registry?: KernelRegistry): GraphOverlapPair[] {
  const pairs: GraphOverlapPair[] = [];
  graph.ops.forEach((op, opIndex) => {
    const c = overlapCandidate(graph, opIndex, requests);
    if (c === null) return;
    const offIn = plan.offsets[c.input.id] ?? 0;
    const offOut = plan.offsets[c.output.id] ?? 0;
    if (offIn + c.input.sizeBytes <= offOut || offOut + c.output.sizeBytes <= offIn) return;
    let analytic: GraphOverlapPair | null = null;
    try {
      if (!analyticApplies(op, registry)) throw new Error('another library\'s access order');
      analytic = pairOf(graph, opIndex, c, { bytes: analyticSafeOverlap(op, graph), method: 'analytic' });
    } catch {
      // no analytic bound for this op: the walk decides
    }
    const p = analytic !== null && offIn >= offOut + c.output.sizeBytes - analytic.safeOverlapBytes ? analytic : pairOf(graph, opIndex, c, opOverlap(graph, opIndex, 'algorithmic', registry));
    if (p !== null) pairs.push(p);
  });
  return pairs;
}
