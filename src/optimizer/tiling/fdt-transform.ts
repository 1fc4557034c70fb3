// Fused depthwise tiling (paper §3, §4.4): a chain FDT Fan-Out (conv2d / fullyConnected split by
// output channels) -> PART ops (partition-local: depthwise conv, pooling, activations, pad, mean,
// reshape) -> FDT Fan-In (conv2d / fullyConnected split by input channels, accumulated by chained
// MergeAccumulators ops, the last one requantizing once) or a channel CONCAT. Ops are emitted
// partition by partition, so each partition's buffers die before the next starts.
import { InternalError, PlanError, constInts } from '../../ir/index.ts';
import type { Model, Op, OpOf, Tensor } from '../../ir/index.ts';
import { TensorList, tensorConsumers, int32Const, replaceOps, reshapedTensor, sliceTensor, splitSizes, withTiledGraph } from './tiling-graph.ts';

export interface FdtPath {
  /** conv2d or fullyConnected whose output channels are partitioned. */
  readonly fanOut: number;
  /** Partition-local ops in chain order. */
  readonly part: readonly number[];
  /** conv2d / fullyConnected split by input channels and merged, or null: concatenate. */
  readonly fanIn: number | null;
  readonly partitions: number;
}

const PART_KINDS = new Set(['depthwiseConv2d', 'maxPool2d', 'averagePool2d', 'relu', 'relu6', 'leakyRelu', 'logistic', 'quantize', 'pad', 'mean', 'reshape', 'hardSwish', 'tanh', 'elu']);

function lastDim(t: Tensor): number {
  return t.shape[t.shape.length - 1] ?? 0;
}

/** Channel count the op partitions over its (single data) input, or null when it cannot be PART. */
export function partChannels(graph: Model['graph'], opIndex: number): number | null {
  const op = graph.ops[opIndex];
  if (op === undefined || !PART_KINDS.has(op.kind)) return null;
  const x = graph.tensors[op.inputs[0] ?? -1];
  const y = graph.tensors[op.outputs[0] ?? -1];
  if (x === undefined || y === undefined || x.data !== null || x.dtype !== 'int8') return null;
  const c = lastDim(x);
  switch (op.kind) {
    case 'depthwiseConv2d':
      return x.shape.length === 4 ? c : null;
    case 'pad': {
      const p = constInts(graph.tensors[op.inputs[1] ?? -1] ?? null);
      return p !== null && p[p.length - 1] === 0 && p[p.length - 2] === 0 ? c : null;
    }
    case 'mean': {
      const axes = constInts(graph.tensors[op.inputs[1] ?? -1] ?? null);
      const r = x.shape.length;
      return axes !== null && lastDim(y) === c && axes.every((a) => (a < 0 ? a + r : a) !== r - 1) ? c : null;
    }
    case 'reshape':
      return lastDim(y) === c ? c : null;
    default:
      return lastDim(y) === c ? c : null;
  }
}

/** Output channels of a Fan-Out op (conv2d / fullyConnected), else null. */
export function fanOutChannels(graph: Model['graph'], opIndex: number): number | null {
  const op = graph.ops[opIndex];
  if (op === undefined || (op.kind !== 'conv2d' && op.kind !== 'fullyConnected')) return null;
  const w = graph.tensors[op.inputs[1] ?? -1];
  if (w === undefined || w.data === null) return null;
  if (op.kind === 'fullyConnected' && graph.tensors[op.outputs[0] ?? -1]?.shape.length !== 2) return null;
  return w.shape[0] ?? null;
}

/** Input channels a Fan-In op splits (conv2d: filter depth; fullyConnected: K of a [B, K] input). */
export function fanInChannels(graph: Model['graph'], opIndex: number): number | null {
  const op = graph.ops[opIndex];
  if (op === undefined || (op.kind !== 'conv2d' && op.kind !== 'fullyConnected')) return null;
  const x = graph.tensors[op.inputs[0] ?? -1];
  const w = graph.tensors[op.inputs[1] ?? -1];
  const y = graph.tensors[op.outputs[0] ?? -1];
  if (x === undefined || w === undefined || y === undefined || w.data === null || y.dtype !== 'int8') return null;
  if (op.kind === 'fullyConnected') return x.shape.length === 2 && y.shape.length === 2 && w.shape[1] === lastDim(x) ? lastDim(x) : null;
  return w.shape[3] === lastDim(x) ? lastDim(x) : null;
}

function must<T>(v: T | undefined | null, what: string): T {
  if (v === undefined || v === null) throw new PlanError('E_PLAN_INFEASIBLE', `FDT: ${what}`);
  return v;
}

/** Apply one FDT path; throws PlanError when the path is not a valid FDT chain. */
export function applyFdt(model: Model, path: FdtPath): Model {
  const graph = model.graph;
  const chain = [path.fanOut, ...path.part, ...(path.fanIn === null ? [] : [path.fanIn])];
  const channels = must(fanOutChannels(graph, path.fanOut), `op ${path.fanOut} is not a conv2d / fullyConnected Fan-Out`);
  if (path.partitions < 2 || path.partitions > channels) throw new PlanError('E_PLAN_INFEASIBLE', `FDT: ${path.partitions} partitions of ${channels} channels`);
  const consumers = tensorConsumers(graph);
  for (let k = 0; k + 1 < chain.length; k++) {
    const t = must(graph.ops[chain[k] as number]?.outputs[0], 'op without output');
    const next = chain[k + 1] as number;
    if (graph.outputs.includes(t) || consumers[t]?.length !== 1 || graph.ops[next]?.inputs[0] !== t) {
      throw new PlanError('E_PLAN_INFEASIBLE', `FDT: tensor ${t} is not consumed only by op ${next}`);
    }
  }
  path.part.forEach((i) => {
    if (partChannels(graph, i) === null) throw new PlanError('E_PLAN_INFEASIBLE', `FDT: op ${i} (${graph.ops[i]?.kind}) cannot be tiled depthwise`);
  });
  if (path.fanIn === null && path.partitions > 10) throw new PlanError('E_PLAN_INFEASIBLE', `FDT: a concatenation takes at most 10 inputs, not ${path.partitions}`);
  if (path.fanIn !== null && fanInChannels(graph, path.fanIn) === null) throw new PlanError('E_PLAN_INFEASIBLE', `FDT: op ${path.fanIn} cannot be a Fan-In`);

  const tl = new TensorList(graph.tensors);
  const sizes = splitSizes(channels, path.partitions);
  const block: Op[] = [];
  const tails: number[] = [];
  let acc = -1;
  sizes.forEach(({ start, size }, p) => {
    // Fan-Out: output channels [start, start+size).
    const fo = graph.ops[path.fanOut] as OpOf<'conv2d' | 'fullyConnected'>;
    const foOut = tl.get(fo.outputs[0] as number);
    const w = tl.add(sliceTensor(tl.get(fo.inputs[1] as number), 0, start, size, `${foOut.name}/fdt${p}/filter`));
    const bi = fo.inputs[2] ?? -1;
    const b = bi >= 0 ? tl.add(sliceTensor(tl.get(bi), 0, start, size, `${foOut.name}/fdt${p}/bias`)) : -1;
    let cur = tl.add(sliceTensor(foOut, foOut.shape.length - 1, start, size, `${foOut.name}/fdt${p}`));
    block.push({ ...fo, inputs: [fo.inputs[0] as number, w, b], outputs: [cur] } as Op);
    let lo = start;
    let n = size;
    for (const i of path.part) {
      const op = graph.ops[i] as Op;
      const y = tl.get(op.outputs[0] as number);
      const name = `${y.name}/fdt${p}`;
      if (op.kind === 'depthwiseConv2d') {
        const m = op.options.depthMultiplier;
        const f = tl.add(sliceTensor(tl.get(op.inputs[1] as number), 3, lo * m, n * m, `${name}/filter`));
        const bb = (op.inputs[2] ?? -1) >= 0 ? tl.add(sliceTensor(tl.get(op.inputs[2] as number), 0, lo * m, n * m, `${name}/bias`)) : -1;
        const out = tl.add(sliceTensor(y, 3, lo * m, n * m, name));
        block.push({ ...op, inputs: [cur, f, bb], outputs: [out] });
        cur = out;
        lo *= m;
        n *= m;
        continue;
      }
      const out = tl.add(reshapedTensor(y, [...y.shape.slice(0, -1), n], name));
      if (op.kind === 'reshape') {
        const shape = [...y.shape.slice(0, -1), n];
        const ins = op.inputs.length > 1 && (op.inputs[1] ?? -1) >= 0 ? [cur, tl.add(int32Const(`${name}/shape`, shape))] : [cur];
        block.push({ ...op, inputs: ins, outputs: [out], options: { newShape: op.options.newShape === null ? null : shape } });
      } else {
        block.push({ ...op, inputs: [cur, ...op.inputs.slice(1)], outputs: [out] } as Op);
      }
      cur = out;
    }
    if (path.fanIn === null) {
      tails.push(cur);
      return;
    }
    const fi = graph.ops[path.fanIn] as OpOf<'conv2d' | 'fullyConnected'>;
    const y = tl.get(fi.outputs[0] as number);
    const wIn = tl.get(fi.inputs[1] as number);
    const fw = tl.add(sliceTensor(wIn, wIn.shape.length - 1, lo, n, `${y.name}/fdt${p}/filter`));
    const last = p === sizes.length - 1;
    const out = last ? (fi.outputs[0] as number) : tl.add({ name: `${y.name}/fdt${p}/acc`, dtype: 'int32', shape: [...y.shape], quant: null, data: null, isVariable: false });
    const geometry = fi.kind === 'conv2d' ? fi.options : { padding: 'valid' as const, strideH: 1, strideW: 1, dilationH: 1, dilationW: 1, activation: fi.options.activation };
    block.push({
      kind: 'merge',
      inputs: [cur, fw, last ? (fi.inputs[2] ?? -1) : -1, acc],
      outputs: [out],
      options: { base: fi.kind, padding: geometry.padding, strideH: geometry.strideH, strideW: geometry.strideW, dilationH: geometry.dilationH, dilationW: geometry.dilationW, activation: geometry.activation },
    });
    acc = out;
  });
  if (path.fanIn === null) {
    const lastOp = graph.ops[chain[chain.length - 1] as number] as Op;
    const y = tl.get(lastOp.outputs[0] as number);
    block.push({ kind: 'concatenation', inputs: tails, outputs: [lastOp.outputs[0] as number], options: { axis: y.shape.length - 1, activation: 'none' } });
  }
  if (block.length === 0) throw new InternalError('FDT: empty block');
  return withTiledGraph(model, replaceOps(graph, chain, block, tl.tensors));
}
