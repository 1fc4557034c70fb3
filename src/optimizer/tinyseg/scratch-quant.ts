// TinySeg temporary (scratch) tensor quantization (paper §5.3): TransposeConv's int32 accumulator
// scratch becomes int16 only where an exact bound proves every partial sum fits. Output position
// y only receives filter taps fy with fy = (y + pad) mod stride, so for output channel oc
// |partial sum| <= max|x - zp| * max over tap residue classes of sum |filter[oc, fy, fx, ic]|,
// with the input's value range narrowed by its producer's fused activation clamp.
// Where the bound does not prove int16, the TinySeg step keeps int32; mcusim can instead run that
// TransposeConv in its scratch-free gather form (kernels/specs/transpose-conv.ts), reported apart.
import type { Graph, Op, OpOf, Tensor } from '../../ir/index.ts';
import { activationRange } from '../../kernels/index.ts';

export const INT16_MAX = 32767;

export interface ScratchBound {
  readonly opIndex: number;
  /** Proven bound on |every partial sum| in the scratch; null when it cannot be bounded. */
  readonly boundAbs: number | null;
  readonly fits: boolean;
  /** int16: proven (TinySeg); scratchFree: gather form (mcusim extension); int32: kept as TFLM. */
  readonly mode: 'int16' | 'scratchFree' | 'int32';
  readonly savedBytes: number;
}

/** The int8 value range of `t` from its producer's fused activation clamp (else the full range). */
export function valueRange(graph: Graph, t: number): { readonly min: number; readonly max: number } {
  const tensor = graph.tensors[t];
  const producer = graph.ops.find((op) => op.outputs.includes(t));
  const act = producer && 'options' in producer && 'activation' in producer.options ? (producer.options as { activation: string }).activation : 'none';
  const q = tensor?.quant;
  if (tensor === undefined || q === null || q === undefined || act === 'none' || act === 'tanh' || act === 'signBit') return { min: -128, max: 127 };
  const r = activationRange(act as 'relu' | 'relu6' | 'reluN1To1', q.scale[0] ?? 1, q.zeroPoint[0] ?? 0);
  return { min: Math.max(-128, r.min), max: Math.min(127, r.max) };
}

function filterBound(filter: Tensor, oc: number, strideH: number, strideW: number): number | null {
  if (filter.data === null || filter.dtype !== 'int8') return null;
  const [, kh = 0, kw = 0, cin = 0] = filter.shape;
  const f = new Int8Array(filter.data.buffer, filter.data.byteOffset, filter.data.byteLength);
  let best = 0;
  for (let ry = 0; ry < Math.min(strideH, kh); ry++) {
    for (let rx = 0; rx < Math.min(strideW, kw); rx++) {
      let s = 0;
      for (let fy = ry; fy < kh; fy += strideH) {
        for (let fx = rx; fx < kw; fx += strideW) {
          const base = ((oc * kh + fy) * kw + fx) * cin;
          for (let ic = 0; ic < cin; ic++) s += Math.abs(f[base + ic] ?? 0);
        }
      }
      best = Math.max(best, s);
    }
  }
  return best;
}

/** The proven scratch bound of TransposeConv op `opIndex`. */
export function transposeConvScratchBound(graph: Graph, opIndex: number): ScratchBound {
  const op = graph.ops[opIndex] as OpOf<'transposeConv'>;
  const filter = graph.tensors[op.inputs[1] ?? -1];
  const input = graph.tensors[op.inputs[2] ?? -1];
  const output = graph.tensors[op.outputs[0] ?? -1];
  const outCount = output ? output.shape.reduce((a, b) => a * b, 1) : 0;
  const none = { opIndex, boundAbs: null, fits: false, mode: 'int32', savedBytes: 0 } as const;
  if (filter === undefined || input === undefined || input.dtype !== 'int8' || input.quant === null) return none;
  const zp = input.quant.zeroPoint[0] ?? 0;
  const r = valueRange(graph, op.inputs[2] ?? -1);
  const maxAbsIn = Math.max(Math.abs(r.min - zp), Math.abs(r.max - zp));
  let bound = 0;
  for (let oc = 0; oc < (filter.shape[0] ?? 0); oc++) {
    const b = filterBound(filter, oc, op.options.strideH, op.options.strideW);
    if (b === null) return none;
    bound = Math.max(bound, b * maxAbsIn);
  }
  const fits = bound <= INT16_MAX;
  return { opIndex, boundAbs: bound, fits, mode: fits ? 'int16' : 'int32', savedBytes: fits ? outCount * 2 : 0 };
}

/**
 * Marks every provably safe int8 TransposeConv int16-scratch; with `scratchFree`, every other one
 * runs scratch-free instead of keeping its int32 scratch. Returns the graph and every bound.
 */
export function quantizeScratch(graph: Graph, options: { readonly scratchFree?: boolean } = {}): { readonly graph: Graph; readonly bounds: readonly ScratchBound[] } {
  const bounds: ScratchBound[] = [];
  const ops = graph.ops.map((op, i): Op => {
    if (op.kind !== 'transposeConv' || op.options.scratchInt16 === true || op.options.scratchFree === true) return op;
    const b = transposeConvScratchBound(graph, i);
    if (b.fits) {
      bounds.push(b);
      return { ...op, options: { ...op.options, scratchInt16: true } };
    }
    if (options.scratchFree !== true) {
      bounds.push(b);
      return op;
    }
    const outCount = (graph.tensors[op.outputs[0] ?? -1]?.shape ?? []).reduce((a, d) => a * d, 1);
    bounds.push({ ...b, mode: 'scratchFree', savedBytes: outCount * 4 });
    return { ...op, options: { ...op.options, scratchFree: true } };
  });
  return { graph: { ...graph, ops }, bounds };
}
