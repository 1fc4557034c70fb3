// Scratch buffers an op requests from the arena, in bytes and in request order, read from the
// op's kernel spec: each spec's prepare declares them exactly as the TFLM reference kernel's
// Prepare calls RequestScratchBufferInArena (int8 transposeConv: output elements x int32; MEAN:
// int32 sums, index array, resolved axes), or as the chosen library's kernel does (a registry).
// Planning and running use this one source. A spec's prepare reads only its op and the op's tensors
// (OpContext) and the IR is immutable, so sizes are cached per kernel table by the op's content
// (kind, options, each tensor's dtype / shape / variable flag, its quantization and constant bytes by
// identity): searches re-plan many graphs whose ops are rebuilt but equal, and CMSIS-NN's prepares
// derive per-channel data from the weights (~50x the reference kernels' cost per request pass).
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
  let table = CACHE.get(registry.specs);
  if (table === undefined) CACHE.set(registry.specs, (table = new Map()));
  const key = contentKey(graph, op);
  const cached = table.get(key);
  if (cached !== undefined) return [...cached];
  const sizes = prepareOp(graph, opIndex, registry).prepared.scratch.map((d) => d.sizeBytes);
  if (table.size >= CACHE_LIMIT) table.clear();
  table.set(key, sizes);
  return [...sizes];
}

const CACHE = new WeakMap<KernelRegistry['specs'], Map<string, readonly number[]>>();
const CACHE_LIMIT = 50_000;

// Objects compared by identity get a number each (quantization records, constant byte arrays).
const ids = new WeakMap<object, number>();
let nextId = 0;
const idOf = (o: object | null): number | string => {
  if (o === null) return '-';
  let id = ids.get(o);
  if (id === undefined) ids.set(o, (id = nextId++));
  return id;
};

function tensorKey(graph: Graph, t: number): string {
  const x: Tensor | undefined = t < 0 ? undefined : graph.tensors[t];
  return x === undefined ? `${t}` : `${x.dtype}/${x.shape.join('x')}/${idOf(x.quant)}/${idOf(x.data)}/${x.isVariable ? 1 : 0}`;
}

function contentKey(graph: Graph, op: Exclude<Op, { kind: 'custom' }>): string {
  return `${op.kind}${JSON.stringify(op.options)}|${op.inputs.map((t) => tensorKey(graph, t)).join(',')}|${op.outputs.map((t) => tensorKey(graph, t)).join(',')}`;
}
