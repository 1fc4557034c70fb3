// Scratch buffers an op requests from the arena, in bytes and in request order, read from the
// op's kernel spec: each spec's prepare declares them exactly as the TFLM reference kernel's
// Prepare calls RequestScratchBufferInArena (int8 transposeConv: output elements x int32; MEAN:
// int32 sums, index array, resolved axes). Planning and running use this one source.
import type { Graph } from '../ir/index.ts';
import { InternalError } from '../ir/index.ts';
import { prepareOp } from './prepare-op.ts';
import { kernelSpecOf } from './registry.ts';

/** Bytes of each scratch buffer op `opIndex` requests (empty for most ops and custom ops). */
export function scratchRequests(graph: Graph, opIndex: number): number[] {
  const op = graph.ops[opIndex];
  if (op === undefined) throw new InternalError(`scratchRequests: no op ${opIndex}`);
  if (op.kind === 'custom' || kernelSpecOf(op.kind)?.requestsScratch !== true) return [];
  return prepareOp(graph, opIndex).prepared.scratch.map((d) => d.sizeBytes);
}
