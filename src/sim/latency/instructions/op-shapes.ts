// What the block counters need from an op: its prepared scalars and per-channel shifts as a conv /
// pool geometry, constant int32 inputs (paddings, axes, permutations, sizes), element counts, and the
// error an op without a counter raises (a ModelError naming what is missing, never a guess).
import type { Graph } from '../../../ir/index.ts';
import { InternalError, ModelError } from '../../../ir/index.ts';
import type { ConvShape } from './cmsis-dsp-conv.ts';
import type { PoolShape } from './cmsis-dsp-misc.ts';

export const num = (s: Readonly<Record<string, number>>, k: string): number => {
  const v = s[k];
  if (v === undefined) throw new InternalError(`instruction model: prepared scalar '${k}' missing`);
  return v;
};

/** 1 per output channel whose requantize multiplier is >= 1 (QuantizeMultiplier's shift > 0). */
export function leftShiftsOf(arrays: Readonly<Record<string, Int32Array>> | undefined): number[] {
  return [...(arrays?.['shift'] ?? [])].map((v) => (v > 0 ? 1 : 0));
}

export function convShape(s: Readonly<Record<string, number>>, arrays: Readonly<Record<string, Int32Array>> | undefined): ConvShape {
  return {
    lsh: leftShiftsOf(arrays),
    batches: num(s, 'batches'), inH: num(s, 'inH'), inW: num(s, 'inW'), inD: num(s, 'inD'),
    outH: num(s, 'outH'), outW: num(s, 'outW'), outD: num(s, 'outD'), fH: num(s, 'fH'), fW: num(s, 'fW'),
    strideH: num(s, 'strideH'), strideW: num(s, 'strideW'), dilH: num(s, 'dilH'), dilW: num(s, 'dilW'),
    padH: num(s, 'padH'), padW: num(s, 'padW'),
  };
}

export function unsupported(graph: Graph, opIndex: number, what: string): never {
  const kind = graph.ops[opIndex]?.kind ?? 'op';
  throw new ModelError('E_MODEL_UNSUPPORTED_OP', `op ${opIndex} (${kind}): no instruction model for ${what}`, [
    { code: 'E_MODEL_UNSUPPORTED_OP', message: `no instruction model for ${what}`, opIndex, opKind: kind },
  ]);
}

export function poolShape(s: Readonly<Record<string, number>>): PoolShape {
  return {
    batches: num(s, 'batches'), inH: num(s, 'inH'), inW: num(s, 'inW'), ch: num(s, 'depth'), outH: num(s, 'outH'), outW: num(s, 'outW'),
    fH: num(s, 'fH'), fW: num(s, 'fW'), strideH: num(s, 'strideH'), strideW: num(s, 'strideW'), padH: num(s, 'padH'), padW: num(s, 'padW'),
  };
}

export const sameShape = (graph: Graph, a: number | undefined, b: number | undefined): boolean =>
  (graph.tensors[a ?? -1]?.shape ?? []).join('x') === (graph.tensors[b ?? -1]?.shape ?? []).join('x');

/** Elements of tensor `t`. */
export const elements = (graph: Graph, t: number | undefined): number => (graph.tensors[t ?? -1]?.shape ?? []).reduce((a, d) => a * d, 1);

export const shapeOf = (graph: Graph, t: number | undefined): readonly number[] => graph.tensors[t ?? -1]?.shape ?? [];

/** The int32 values of a constant tensor (paddings, axes, permutations, sizes). */
export function constInts(graph: Graph, t: number | undefined): number[] {
  const x = graph.tensors[t ?? -1];
  if (x?.data === null || x?.data === undefined) return [];
  const v = new DataView(x.data.buffer, x.data.byteOffset, x.data.byteLength);
  return Array.from({ length: x.data.byteLength >> 2 }, (_, i) => v.getInt32(4 * i, true));
}

export const scaleOf = (graph: Graph, t: number | undefined): number => graph.tensors[t ?? -1]?.quant?.scale[0] ?? 1;

