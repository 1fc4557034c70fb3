// Cost counts of an op's kernel nest (countCost: MACs, bytes loaded and stored, primitive calls),
// walked once per distinct placement-free instance in this process. The instruction model uses them
// only to price ops it has no measured model for (clearly marked), and reports MACs.
import type { Graph } from '../../ir/index.ts';
import type { CostCounts, KernelInstance } from '../../kernels/index.ts';
import { countCost, instantiateOp, placementFreeKey, prepareOp } from '../../kernels/index.ts';

/** What countCost is a function of: the instance without its placement, with buffer sizes and
 * the arrays' contents (bounds may read params); the walk is data-independent by construction. */
export function costKey(inst: KernelInstance): string {
  return placementFreeKey(inst, true);
}

/** Counts by costKey, for this process: a sweep or a search costs the same ops again and again
 * (zoo:tiny-unet's sweep spent 0.7 s of its 1.3 s walking the same nests at each point). Keys
 * carry per-channel params (a few KB for a wide conv), hence the bound. */
const COUNTS = new Map<string, CostCounts>();
const MAX_COUNTS = 1024;

/** countCost(inst), walked once per distinct costKey in this process. */
export function countCostCached(inst: KernelInstance): CostCounts {
  const key = costKey(inst);
  let c = COUNTS.get(key);
  if (c === undefined) {
    if (COUNTS.size >= MAX_COUNTS) COUNTS.clear();
    c = countCost(inst);
    COUNTS.set(key, c);
  }
  return c;
}

/** The instance countsOf costs: every activation and scratch at offset 0 (counts ignore addresses). */
export function costInstance(graph: Graph, opIndex: number): KernelInstance {
  const prepared = prepareOp(graph, opIndex);
  const offsets = graph.tensors.map((t) => (t.data === null ? 0 : null));
  return instantiateOp(graph, prepared, offsets, prepared.prepared.scratch.map(() => 0));
}

function countsOf(graph: Graph, opIndex: number): CostCounts {
  return countCostCached(costInstance(graph, opIndex));
}

