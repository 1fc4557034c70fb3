// Buffer requests exactly as TFLM hands them to its memory planner (micro_allocation_info.cc
// AllocationInfoBuilder + micro_allocator.cc CreatePlan): tensors by index, skipping
// constants, variables and zero-size tensors, then scratch buffers in request order; sizes
// rounded up to 16; lifetimes in allocation scope counts (graph inputs 0, op i at i+1).
import { DTYPE_BYTES, ModelError, elementCount, readOfflinePlan } from '../../ir/index.ts';
import type { Graph, Issue, Model } from '../../ir/index.ts';
import { scratchRequests } from '../../kernels/index.ts';
import type { KernelRegistry } from '../../kernels/index.ts';
import type { BufferRequest } from './plan-types.ts';

/** MicroArenaBufferAlignment(). */
export const ARENA_ALIGNMENT_BYTES = 16;
const UNSET = -1;

export function alignUp(bytes: number, alignment = ARENA_ALIGNMENT_BYTES): number {
  return Math.ceil(bytes / alignment) * alignment;
}

export interface BufferRequestOptions {
  /** Per-tensor offsets from OfflineMemoryAllocation (null entries = online). */
  readonly offlineOffsets?: readonly (number | null)[] | null;
  /** The kernels whose scratch requests are planned (default: reference). */
  readonly registry?: KernelRegistry;
}

interface Lifetime {
  first: number;
  last: number;
}

function checkIndices(graph: Graph): void {
  const n = graph.tensors.length;
  const issues: Issue[] = [];
  const check = (index: number, where: string, opIndex?: number): void => {
    if (!Number.isInteger(index) || index >= n || index < (where === 'input' ? -1 : 0)) {
      const opKind = opIndex === undefined ? undefined : graph.ops[opIndex]?.kind;
      issues.push({ code: 'E_MODEL_INVALID', message: `${where} names tensor ${index}, graph has ${n}`, opIndex, opKind });
    }
  };
  graph.inputs.forEach((t) => check(t, 'graph input'));
  graph.outputs.forEach((t) => check(t, 'graph output'));
  graph.ops.forEach((op, i) => {
    op.inputs.forEach((t) => check(t, 'input', i));
    op.outputs.forEach((t) => check(t, 'output', i));
  });
  if (issues.length > 0) throw ModelError.fromIssues(issues);
}

/**
 * MarkAllocationLifetimes for one subgraph. UpdateFirstCreated sets both ends (a produced
 * tensor restarts its lifetime, so a graph output written by op i starts at i+1, not 0);
 * UpdateLastUsed only moves the end.
 */
function markLifetimes(graph: Graph): Lifetime[] {
  const life = graph.tensors.map(() => ({ first: UNSET, last: UNSET }));
  const created = (t: number, scope: number): void => {
    const l = life[t];
    if (l) [l.first, l.last] = [scope, scope];
  };
  const used = (t: number, scope: number): void => {
    const l = life[t];
    if (l) l.last = scope;
  };
  graph.inputs.forEach((t) => created(t, 0));
  graph.outputs.forEach((t) => created(t, 0));
  graph.ops.forEach((op, i) => {
    const scope = i + 1;
    op.outputs.forEach((t) => created(t, scope));
    op.inputs.forEach((t) => t >= 0 && used(t, scope));
    op.outputs.forEach((t) => used(t, scope));
  });
  graph.outputs.forEach((t) => used(t, graph.ops.length));
  return life;
}

/** The planner's buffer list for `graph`, in TFLM's order (request id = TFLM buffer index). */
export function computeBufferRequests(graph: Graph, options: BufferRequestOptions = {}): BufferRequest[] {
  checkIndices(graph);
  const offline = options.offlineOffsets ?? null;
  if (offline !== null && offline.length !== graph.tensors.length) {
    throw new ModelError('E_MODEL_METADATA', `offline plan has ${offline.length} offsets, the graph has ${graph.tensors.length} tensors`);
  }
  const life = markLifetimes(graph);
  const requests: BufferRequest[] = [];
  graph.tensors.forEach((t, index) => {
    const bytes = elementCount(t.shape) * DTYPE_BYTES[t.dtype];
    if (t.data !== null || t.isVariable || bytes === 0) return;
    const l = life[index] ?? { first: UNSET, last: UNSET };
    requests.push({
      id: requests.length,
      tensor: index,
      scratchIndex: null,
      opIndex: null,
      name: t.name,
      sizeBytes: alignUp(bytes),
      firstStep: l.first,
      lastStep: l.last,
      offlineOffsetBytes: offline?.[index] ?? null,
    });
  });
  let scratchIndex = 0;
  graph.ops.forEach((op, opIndex) => {
    for (const bytes of scratchRequests(graph, opIndex, options.registry)) {
      requests.push({
        id: requests.length,
        tensor: null,
        scratchIndex,
        opIndex,
        name: `scratch ${scratchIndex} (op ${opIndex} ${op.kind})`,
        sizeBytes: alignUp(bytes),
        firstStep: opIndex + 1,
        lastStep: opIndex + 1,
        offlineOffsetBytes: null,
      });
      scratchIndex++;
    }
  });
  return requests;
}

/** computeBufferRequests with the model's OfflineMemoryAllocation metadata applied. */
export function computeModelBufferRequests(model: Model, registry?: KernelRegistry): BufferRequest[] {
  const plan = readOfflinePlan(model);
  const offlineOffsets = plan === null ? null : Array.from(plan, (o) => (o === -1 ? null : o));
  return computeBufferRequests(model.graph, { offlineOffsets, ...(registry === undefined ? {} : { registry }) });
}
