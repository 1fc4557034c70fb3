// Scratch buffers an op requests from the arena, in bytes and in request order, read from the
// op's kernel spec: each spec's prepare declares them exactly as the TFLM reference kernel's
// Prepare calls RequestScratchBufferInArena (int8 transposeConv: output elements x int32; MEAN:
// int32 sums, index array, resolved axes), or as the chosen library's kernel does (a registry).
// Planning and running use this one source.
import type { Graph } from '../ir/index.ts';
import { InternalError } from '../ir/index.ts';
import { prepareOp } from './prepare-op.ts';
import { REFERENCE_KERNELS, kernelSpecOf } from './registry.ts';
import type { KernelRegistry } from './registry.ts';

/** Bytes of each scratch buffer op `opIndex` requests (empty for most ops and custom ops). */
export function scratchRequests(graph: Graph, opIndex: number, registry: KernelRegistry = REFERENCE_KERNELS): number[] {
  const op = graph.ops[opIndex];
  if (op === undefined) throw new InternalError(`scratchRequests: no op ${opIndex}`);
  if (op.kind === 'custom' || kernelSpecOf(op.kind, registry)?.requestsScratch !== true) return [];
  return prepareOp(graph, opIndex, registry).prepared.scratch.map((d) => d.sizeBytes);
}
