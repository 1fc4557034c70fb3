// LogSoftmax, int8 -> int8 over the last dimension: TFLM log_softmax.cc CalculateOpData
// (PreprocessLogSoftmaxScalingExp with beta 1 and 5 integer bits: input multiplier, reverse
// scaling divisor; diff_min = -CalculateInputRadius(5, left_shift); output scale 16/256, zero
// point 127) and reference_ops::LogSoftmaxQuantized (log_softmax.h): row max, Q12.19 sum of exps,
// log_x_for_x_greater_than_or_equal_to_1 into Q5.26, the adjusted diff_min, then the outputs.
// float32 -> float32 (after a DEQUANTIZE, as converters emit it): reference_ops::LogSoftmax on
// float, with glibc's expf / logf (primitives-float.ts).
import type { Nest } from '../nest.ts';
import { For, Let, Set, Store, Val } from '../nest.ts';
import { quantizeMultiplier } from '../quant.ts';
import type { KernelSpec } from '../spec.ts';
import type { OpContext } from '../spec.ts';
import { constraint, isInt8Quantized, scaleOf, unaryPrepared, zeroPointOf } from './common.ts';
import { LOG_SOFTMAX_OP_DATA, stock } from '../tflm-memory.ts';

/** Integer bits of the scaled differences (Q5.26), of the sum of exps (Q12.19) and of the output. */
const DIFF_INT_BITS = 5;
const ACCUM_INT_BITS = 12;
const OUTPUT_INT_BITS = 4;

/** beta (1) * input_scale * 2^26, capped as PreprocessSoftmaxScaling does. */
function realInputMultiplier(inputScale: number): number {
  return Math.min(inputScale * 2 ** (31 - DIFF_INT_BITS), 2 ** 31 - 1);
}

const isFloat = (c: OpContext<'logSoftmax'>): boolean => c.input(0)?.dtype === 'float32' && c.output(0).dtype === 'float32';

/** std::numeric_limits<float>::lowest() as a bit pattern (0xff7fffff). */
const FLOAT_LOWEST_BITS = -8388609;

const int8Body: Nest = [
  For('i', '0', 'outer', [
    Let('base', 'i * depth'),
    Val('mx', '-128'),
    For('c', '0', 'depth', [Set('mx', 'max(mx, input[base + c])')]),
    Val('sum', '0'),
    For('c', '0', 'depth', [
      Val('diff', 'input[base + c] - mx'),
      Set('sum', `sum + select(diff >= diffMin, rdbpot(expNeg(mbqm(diff, mult, lshift), ${DIFF_INT_BITS}), ${ACCUM_INT_BITS}), 0)`),
    ]),
    Val('logSum', `logGe1(sum, ${ACCUM_INT_BITS}, ${DIFF_INT_BITS})`),
    // log_sum + INT32_MIN (wrapping) rescaled back to input units; '>' below, '>=' above.
    Val('adjMin', 'max(diffMin - 1, mbqm(logSum - 2147483647 - 1, revMult, revShift))'),
    For('c', '0', 'depth', [
      Val('diff', 'input[base + c] - mx'),
      Store('output', 'base + c', `select(diff > adjMin, clamp(rdbpot(mbqm(diff, mult, lshift) - logSum, ${31 - DIFF_INT_BITS - OUTPUT_INT_BITS}) + 127, -128, 127), -128)`),
    ]),
  ]),
];

const floatBody: Nest = [
  For('i', '0', 'outer', [
    Let('base', 'i * depth'),
    Val('mx', `${FLOAT_LOWEST_BITS}`),
    For('c', '0', 'depth', [Set('mx', 'f32Max(mx, f32Bits(input[base + c]))')]),
    Val('sum', '0'),
    For('c', '0', 'depth', [Set('sum', 'f32ExpAcc(sum, f32Bits(input[base + c]), mx)')]),
    Val('logSum', 'f32Log(sum)'),
    For('c', '0', 'depth', [Store('output', 'base + c', 'f32LogSoftmaxOut(f32Bits(input[base + c]), mx, logSum)')]),
  ]),
];

export const logSoftmaxSpec: KernelSpec<'logSoftmax'> = {
  kind: 'logSoftmax',
  tflmPersistent: {
    ...stock(null, null),
    // LogSoftmaxPrepare allocates its OpData itself, and only for int8 (the float kernel needs none).
    prepareBuffers: (c) => (c.input(0)?.dtype === 'int8' ? [LOG_SOFTMAX_OP_DATA] : []),
  },
  constraints: [
    constraint('logSoftmax.types', 'input and output must both be int8 quantized or both float32', (c) =>
      (isInt8Quantized(c.input(0)) && isInt8Quantized(c.output(0))) || isFloat(c)),
    constraint('logSoftmax.shape', 'input must have rank >= 1 and the output the same shape', (c) => {
      const i = c.input(0)?.shape ?? [];
      const o = c.output(0).shape;
      return i.length >= 1 && i.length === o.length && i.every((d, k) => d === o[k]);
    }),
    constraint('logSoftmax.output-quant', 'int8 output must have scale exactly 16/256 and zero point 127', (c) =>
      isFloat(c) || (scaleOf(c.output(0)) === 16 / 256 && zeroPointOf(c.output(0)) === 127)),
    constraint('logSoftmax.input-scale', 'input scale * 2^26 must be finite and greater than 1 (QuantizeMultiplierGreaterThanOne)', (c) => {
      const r = realInputMultiplier(scaleOf(c.input(0)));
      return isFloat(c) || (Number.isFinite(r) && r > 1);
    }),
  ],
  prepare(c) {
    const input = c.input(0)!;
    const shape = input.shape;
    const depth = shape[shape.length - 1] ?? 1;
    const outer = shape.slice(0, -1).reduce((a, d) => a * d, 1);
    if (isFloat(c)) return unaryPrepared({ outer, depth }, { float: 1 });
    const q = quantizeMultiplier(realInputMultiplier(scaleOf(input)));
    const reverse = quantizeMultiplier(2 ** (31 - q.shift) / q.multiplier);
    const radius = Math.floor((((1 << DIFF_INT_BITS) - 1) * 2 ** (31 - DIFF_INT_BITS)) / 2 ** q.shift);
    return unaryPrepared({ outer, depth, mult: q.multiplier, lshift: q.shift, revMult: reverse.multiplier, revShift: reverse.shift, diffMin: -radius }, { float: 0 });
  },
  body: (p) => (p.flags?.['float'] ? floatBody : int8Body),
};
