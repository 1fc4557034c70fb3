// Scratch buffers an op requests from the arena, in bytes and in request order, read from the
// op's kernel spec: each spec's prepare declares them exactly as the TFLM reference kernel's
// Prepare calls RequestScratchBufferInArena (int8 transposeConv: output elements x int32; MEAN:
// int32 sums, index array, resolved axes), or as the chosen library's kernel does (a registry).
// Planning and running use this one source. A spec's prepare reads only its op and the op's tensors
// (OpContext), and the IR is immutable, so the sizes are cached per op object for the same tensor
// objects and kernel table: searches re-plan graphs that share most ops (CMSIS-NN's prepares derive
// per-channel data from the weights, ~50x the reference kernels' cost per buffer-request pass).
import type { Graph, Op, Tensor } from '../ir/index.ts';
import { InternalError } from '../ir/index.ts';
import { prepareOp } from './prepare-op.ts';
import { REFERENCE_KERNELS, kernelSpecOf } from './registry.ts';
import type { KernelRegistry } from './registry.ts';

/** Bytes of each scratch buffer op `opIndex` requests (empty for most ops and custom ops). */
export function scratchRequests(graph: Graph, opIndex: number, registry: KernelRegistry = REFERENCE_KERNELS): number[] {
  const op = graph.ops[opIndex];
  if (op === undefined) throw new InternalError(`scratchRequests: no op ${opIndex}`);
  if (op.kind === 'custom' || kernelSpecOf(op.kind, registry)?.requestsScratch !== true) return [];
  const tensors = [...op.inputs, ...op.outputs].map((t) => (t < 0 ? undefined : graph.tensors[t]));
  const cached = CACHE.get(op)?.find((e) => e.specs === registry.specs && sameTensors(e.tensors, tensors));
  if (cached !== undefined) return [...cached.sizes];
  const sizes = prepareOp(graph, opIndex, registry).prepared.scratch.map((d) => d.sizeBytes);
  const entries = CACHE.get(op) ?? [];
  entries.push({ specs: registry.specs, tensors, sizes });
  CACHE.set(op, entries.slice(-4));
  return [...sizes];
}

interface CacheEntry {
  readonly specs: KernelRegistry['specs'];
  readonly tensors: readonly (Tensor | undefined)[];
  readonly sizes: readonly number[];
}

const CACHE = new WeakMap<Op, CacheEntry[]>();

const sameTensors = (a: readonly (Tensor | undefined)[], b: readonly (Tensor | undefined)[]): boolean =>
  a.length === b.length && a.every((t, i) => t === b[i]);
