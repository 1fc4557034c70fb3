// Softmax, int8 -> int8 over the last dimension: TFLM softmax_common.cc CalculateSoftmaxParams
// (PreprocessSoftmaxScaling with beta, diff_min = -CalculateInputRadius(5, left_shift)) and the
// loop order and gemmlowp arithmetic of reference_ops::Softmax (reference/softmax.h): row max,
// Q12.19 sum of exp of the Q5.26 scaled differences, GetReciprocal, TFLITE_CHECK on the output
// exponent (a sum of exps >= 512 aborts TFLM: here potCheck raises instead), then the outputs.
import { For, Let, Set, Store, Val } from '../nest.ts';
import { quantizeMultiplier } from '../quant.ts';
import type { KernelSpec } from '../spec.ts';
import { constraint, isInt8Quantized, scaleOf, unaryPrepared, zeroPointOf } from './common.ts';
import { SOFTMAX_PARAMS, TFLITE_SOFTMAX_PARAMS, stock } from '../tflm-memory.ts';

/** Integer bits of the scaled input differences (Q5.26) and of the sum of exps (Q12.19). */
const DIFF_INT_BITS = 5;
const ACCUM_INT_BITS = 12;

/** beta * input_scale * 2^(31 - 5), capped as PreprocessSoftmaxScaling does (double rounding). */
function realBetaMultiplier(beta: number, inputScale: number): number {
  return Math.min(beta * inputScale * 2 ** (31 - DIFF_INT_BITS), 2 ** 31 - 1);
}

export const softmaxSpec: KernelSpec<'softmax'> = {
  kind: 'softmax',
  tflmPersistent: stock(TFLITE_SOFTMAX_PARAMS, SOFTMAX_PARAMS),
  constraints: [
    constraint('softmax.types', 'input and output must be int8 quantized tensors', (c) =>
      isInt8Quantized(c.input(0)) && isInt8Quantized(c.output(0))),
    constraint('softmax.shape', 'input must have rank >= 1 and the output the same shape', (c) => {
      const i = c.input(0)?.shape ?? [];
      const o = c.output(0).shape;
      return i.length >= 1 && i.length === o.length && i.every((d, k) => d === o[k]);
    }),
    constraint('softmax.output-quant', 'int8 output must have scale exactly 1/256 and zero point -128', (c) =>
      scaleOf(c.output(0)) === 1 / 256 && zeroPointOf(c.output(0)) === -128),
    constraint('softmax.beta', 'beta * input scale * 2^26 must be finite and greater than 1 (QuantizeMultiplierGreaterThanOne)', (c) => {
      const r = realBetaMultiplier(Math.fround(c.op.options.beta), scaleOf(c.input(0)));
      return Number.isFinite(r) && r > 1;
    }),
  ],
  prepare(c) {
    const input = c.input(0)!;
    const shape = input.shape;
    const depth = shape[shape.length - 1] ?? 1;
    const outer = shape.slice(0, -1).reduce((a, d) => a * d, 1);
    const q = quantizeMultiplier(realBetaMultiplier(Math.fround(c.op.options.beta), scaleOf(input)));
    // CalculateInputRadius(5, left_shift, 31), exact in doubles; diff_min = -radius.
    const radius = Math.floor((((1 << DIFF_INT_BITS) - 1) * 2 ** (31 - DIFF_INT_BITS)) / 2 ** q.shift);
    return unaryPrepared({ outer, depth, mult: q.multiplier, lshift: q.shift, diffMin: -radius });
  },
  body: [
    For('i', '0', 'outer', [
      Let('base', 'i * depth'),
      Val('mx', '-128'),
      For('c', '0', 'depth', [Set('mx', 'max(mx, input[base + c])')]),
      Val('sum', '0'),
      For('c', '0', 'depth', [
        Val('diff', 'input[base + c] - mx'),
        Set('sum', `sum + select(diff >= diffMin, rdbpot(expNeg(srdhm(shl(diff, lshift), mult), ${DIFF_INT_BITS}), ${ACCUM_INT_BITS}), 0)`),
      ]),
      Val('scale', 'getRecip(sum)'),
      // exponent = num_bits_over_unit + 31 - 8, num_bits_over_unit = 12 - clz(sum).
      Val('expo', `potCheck(${ACCUM_INT_BITS + 31 - 8} - clz(sum))`),
      For('c', '0', 'depth', [
        Val('diff', 'input[base + c] - mx'),
        Val('e', `expNeg(srdhm(shl(diff, lshift), mult), ${DIFF_INT_BITS})`),
        Store('output', 'base + c', 'select(diff >= diffMin, clamp(rdbpot(srdhm(scale, e), expo) - 128, -128, 127), -128)'),
      ]),
    ]),
  ],
};
