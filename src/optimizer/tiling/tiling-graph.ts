// Graph-editing helpers shared by the FDT and FFMT transforms (fused tiling paper §4.4): slicing
// constant tensors (weights, biases, per-channel quantization) along one axis, partition tensors,
// near-equal partition sizes, and rebuilding a graph with a chain of ops replaced by a tiled block
// (unreferenced tensors dropped, indices renumbered, a stale offline plan removed).
import { InternalError, OFFLINE_PLAN_METADATA_NAME, DTYPE_BYTES, elementCount } from '../../ir/index.ts';
import type { Graph, Model, Op, Quantization, Tensor } from '../../ir/index.ts';
import { pruneUnusedTensors } from '../tinyseg/index.ts';

/** `total` split into `n` contiguous parts whose sizes differ by at most one: [start, size] each. */
export function splitSizes(total: number, n: number): { readonly start: number; readonly size: number }[] {
  const base = Math.floor(total / n);
  const extra = total % n;
  const out: { start: number; size: number }[] = [];
  let start = 0;
  for (let i = 0; i < n; i++) {
    const size = base + (i < extra ? 1 : 0);
    out.push({ start, size });
    start += size;
  }
  return out;
}

function sliceQuant(q: Quantization | null, axis: number, start: number, size: number): Quantization | null {
  if (q === null || q.scale.length <= 1 || q.quantizedDimension !== axis) return q;
  return { scale: q.scale.slice(start, start + size), zeroPoint: q.zeroPoint.slice(start, start + size), quantizedDimension: q.quantizedDimension };
}

/** Elements [start, start+size) of `axis` of a tensor: constant bytes sliced, per-channel quant too. */
export function sliceTensor(t: Tensor, axis: number, start: number, size: number, name: string): Tensor {
  const shape = t.shape.map((d, i) => (i === axis ? size : d));
  let data: Uint8Array | null = null;
  if (t.data !== null) {
    const elemBytes = DTYPE_BYTES[t.dtype];
    const inner = elementCount(t.shape.slice(axis + 1)) * elemBytes;
    const outer = elementCount(t.shape.slice(0, axis));
    const dimIn = t.shape[axis] ?? 1;
    data = new Uint8Array(outer * size * inner);
    for (let o = 0; o < outer; o++) {
      const src = (o * dimIn + start) * inner;
      data.set(t.data.subarray(src, src + size * inner), o * size * inner);
    }
  }
  return { ...t, name, shape, data, quant: sliceQuant(t.quant, axis, start, size) };
}

/** An activation tensor like `t` with a new shape (same dtype and quantization). */
export function reshapedTensor(t: Tensor, shape: readonly number[], name: string): Tensor {
  return { ...t, name, shape: [...shape], data: null, isVariable: false };
}

export function int32Const(name: string, values: readonly number[], shape: readonly number[] = [values.length]): Tensor {
  const data = new Uint8Array(values.length * 4);
  const dv = new DataView(data.buffer);
  values.forEach((v, i) => dv.setInt32(i * 4, v, true));
  return { name, dtype: 'int32', shape: [...shape], quant: null, data, isVariable: false };
}

/** Appends tensors to a copy of a graph's tensor list; indices are stable. */
export class TensorList {
  readonly tensors: Tensor[];
  constructor(base: readonly Tensor[]) {
    this.tensors = [...base];
  }
  add(t: Tensor): number {
    this.tensors.push(t);
    return this.tensors.length - 1;
  }
  get(i: number): Tensor {
    const t = this.tensors[i];
    if (t === undefined) throw new InternalError(`tiling: no tensor ${i}`);
    return t;
  }
}

/** Consumers (op indices) of every tensor. */
export function tensorConsumers(graph: Graph): number[][] {
  const out: number[][] = graph.tensors.map(() => []);
  graph.ops.forEach((op, i) => op.inputs.forEach((t) => t >= 0 && out[t]?.push(i)));
  return out;
}

/** The producing op of every tensor, or -1. */
export function tensorProducers(graph: Graph): number[] {
  const out = graph.tensors.map(() => -1);
  graph.ops.forEach((op, i) => op.outputs.forEach((t) => (out[t] = i)));
  return out;
}

/**
 * A graph with the ops in `remove` deleted and `block` inserted where the last removed op was,
 * over `tensors`; unreferenced tensors are dropped and indices renumbered.
 */
export function replaceOps(graph: Graph, remove: readonly number[], block: readonly Op[], tensors: readonly Tensor[]): Graph {
  const gone = new Set(remove);
  const at = Math.max(...remove);
  const ops: Op[] = [];
  graph.ops.forEach((op, i) => {
    if (!gone.has(i)) ops.push(op);
    if (i === at) ops.push(...block);
  });
  return pruneUnusedTensors({ ...graph, ops, tensors });
}

/** The model with a new graph; an offline plan (indexed by the old tensors) is dropped. */
export function withTiledGraph(model: Model, graph: Graph): Model {
  return { ...model, graph, metadata: model.metadata.filter((m) => m.name !== OFFLINE_PLAN_METADATA_NAME) };
}
