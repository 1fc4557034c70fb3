// Mean, int8: TFLM reduce_common.cc PrepareMeanOrSumHelper + EvalMeanHelper -> reference_ops::
// QuantizedMeanOrSum. Zero the output and the int32 temp sums (scratch 0), sum every input element
// in row-major order into its reduced output slot, then rescale: QuantizeMultiplier(double(in_s) /
// double(out_s)) with 1/n folded in (shift = min(floor(log2 n), 32, 31 + shift0), mult = (mult0 <<
// shift) / n in int64), applied to sum - zp_in * n. Scratch requests (sums, index array, axes)
// follow the reference's request order; the index and axis arrays are declared, not traced.
import type { Tensor } from '../../ir/index.ts';
import type { Nest, Stmt } from '../nest.ts';
import { For, Let, Store } from '../nest.ts';
import { quantizeMultiplier } from '../quant.ts';
import type { KernelSpec } from '../spec.ts';
import { constraint, count, isInt8Quantized, rank, scaleOf, zeroPointOf } from './common.ts';
import { OP_DATA_REDUCE, TFLITE_REDUCER_PARAMS, stock } from '../tflm-memory.ts';

/** TFLM's temp index array covers at most this many input dims. */
const MAX_RANK = 5;

function axisValues(axis: Tensor | null): number[] | null {
  if (axis === null || axis.dtype !== 'int32' || axis.data === null) return null;
  const n = count(axis);
  if (axis.data.byteLength < 4 * n) return null;
  const dv = new DataView(axis.data.buffer, axis.data.byteOffset, 4 * n);
  return Array.from({ length: n }, (_, i) => dv.getInt32(4 * i, true));
}

/** ResolveAxis: negative axes wrapped, duplicates dropped; null when an axis is out of range. */
function resolvedAxes(input: Tensor | null, axis: Tensor | null): number[] | null {
  const r = rank(input);
  const raw = axisValues(axis);
  if (raw === null) return null;
  const out: number[] = [];
  for (const a of raw) {
    const x = a < 0 ? a + r : a;
    if (x < 0 || x >= r) return null;
    if (!out.includes(x)) out.push(x);
  }
  return out;
}

/** (mult0 << shift) / n as TFLM folds the element count into the multiplier (int64 math). */
export function meanMultiplier(realMultiplier: number, n: number): { multiplier: number; shift: number } {
  const q = quantizeMultiplier(realMultiplier);
  const s = Math.min(31 - Math.clz32(n), 32, 31 + q.shift);
  const mult = (BigInt(q.multiplier) << BigInt(Math.max(0, s))) / BigInt(n);
  return { multiplier: Number(BigInt.asIntN(32, mult)), shift: q.shift - s };
}

export const meanSpec: KernelSpec<'mean'> = {
  kind: 'mean',
  tflmPersistent: stock(TFLITE_REDUCER_PARAMS, OP_DATA_REDUCE),
  requestsScratch: true,
  constraints: [
    constraint('mean.types', 'input and output must be int8 quantized tensors', (c) => isInt8Quantized(c.input(0)) && isInt8Quantized(c.output(0))),
    constraint('mean.rank', `input rank must be 1..${MAX_RANK} with every dimension >= 1`, (c) => {
      const r = rank(c.input(0));
      return r >= 1 && r <= MAX_RANK && (c.input(0)?.shape ?? []).every((d) => d >= 1);
    }),
    constraint('mean.axis', 'axis must be a constant int32 tensor of in-range dimensions', (c) => resolvedAxes(c.input(0), c.input(1)) !== null),
    constraint('mean.output-shape', 'output must hold one element per kept (non-reduced) input position', (c) => {
      const axes = resolvedAxes(c.input(0), c.input(1)) ?? [];
      const kept = (c.input(0)?.shape ?? []).reduce((a, d, k) => (axes.includes(k) ? a : a * d), 1);
      return count(c.output(0)) === (axes.length === 0 ? count(c.input(0)) : kept);
    }),
    constraint('mean.scales', 'input and output scales must be positive and finite', (c) =>
      [scaleOf(c.input(0)), scaleOf(c.output(0))].every((s) => s > 0 && Number.isFinite(s))),
  ],
  prepare(c) {
    const input = c.input(0)!;
    const output = c.output(0);
    const axisCount = count(c.input(1));
    const axes = resolvedAxes(input, c.input(1)) ?? [];
    const dims = input.shape;
    const nOut = count(output);
    const reduced = dims.reduce((a, d, k) => (axes.includes(k) ? a * d : a), 1);
    const q = meanMultiplier(scaleOf(input) / scaleOf(output), reduced);
    const scalars: Record<string, number> = {
      nOut, zpSum: zeroPointOf(input) * reduced, mult: q.multiplier, shift: q.shift, outputZp: zeroPointOf(output),
    };
    let stride = 1;
    for (let k = dims.length - 1; k >= 0; k--) {
      scalars[`d${k}`] = dims[k] ?? 1;
      scalars[`os${k}`] = axes.includes(k) ? 0 : stride;
      if (!axes.includes(k)) stride *= dims[k] ?? 1;
    }
    return {
      flags: { rank: dims.length, copy: axisCount === 0 ? 1 : 0 },
      scalars,
      arrays: {},
      buffers: { input: { kind: 'input', slot: 0 }, output: { kind: 'output', slot: 0 }, tempSum: { kind: 'scratch', index: 0 } },
      scratch: [
        { name: 'tempSum', dtype: 'int32', sizeBytes: 4 * nOut },
        { name: 'tempIndex', dtype: 'int32', sizeBytes: 4 * dims.length },
        { name: 'resolvedAxis', dtype: 'int32', sizeBytes: 4 * axisCount },
      ],
    };
  },
  body: (p) => {
    // ReduceIsCopy: an empty axis list copies the input.
    if (p.flags?.['copy']) return [For('i', '0', 'nOut', [Store('output', 'i', 'input[i]')])];
    const r = p.flags?.['rank'] ?? 0;
    const level = (k: number): Stmt[] => {
      if (k === r) return [Store('tempSum', `y${k - 1}`, `tempSum[y${k - 1}] + input[x${k - 1}]`)];
      const prev = (v: string): string => (k === 0 ? '0' : `${v}${k - 1}`);
      return [For(`i${k}`, '0', `d${k}`, [Let(`x${k}`, `${prev('x')} * d${k} + i${k}`), Let(`y${k}`, `${prev('y')} + i${k} * os${k}`), ...level(k + 1)])];
    };
    const nest: Nest = [
      For('o', '0', 'nOut', [Store('output', 'o', '0'), Store('tempSum', 'o', '0')]),
      ...level(0),
      For('o', '0', 'nOut', [Store('output', 'o', 'clamp(mbqm(tempSum[o] - zpSum, mult, shift) + outputZp, -128, 127)')]),
    ];
    return nest;
  },
};
