// Tanh, int8: TFLM tanh.cc CalculateArithmeticOpData (input multiplier from frexp(in_s * 2^27)
// without QuantizeMultiplier's fix-ups, input_range_radius = CalculateInputRadius(4, shift, 31))
// and reference_integer_ops::Tanh: saturate outside the radius, else gemmlowp::tanh on the Q4.27
// input, RoundingDivideByPOT by 24 and clamp (output scale 1/128, zero point 0 assumed, unchecked).
import { For, Store, Val } from '../nest.ts';
import { frexp, roundHalfAway } from '../quant.ts';
import type { KernelSpec } from '../spec.ts';
import { constraint, count, isInt8Quantized, scaleOf, unaryPrepared, zeroPointOf } from './common.ts';
import { OP_DATA_TANH, stock } from '../tflm-memory.ts';

const INPUT_INT_BITS = 4;

export const tanhSpec: KernelSpec<'tanh'> = {
  kind: 'tanh',
  tflmPersistent: stock(null, OP_DATA_TANH),
  constraints: [
    constraint('tanh.types', 'input and output must be int8 quantized with the same element count', (c) =>
      isInt8Quantized(c.input(0)) && isInt8Quantized(c.output(0)) && count(c.input(0)) === count(c.output(0))),
    constraint('tanh.input-scale', 'input scale must be finite and at least 2^-28 (the Q4.27 rescale shifts left)', (c) => {
      const s = scaleOf(c.input(0));
      return Number.isFinite(s) && s >= 2 ** -28;
    }),
  ],
  prepare(c) {
    const input = c.input(0)!;
    const f = frexp(scaleOf(input) * 2 ** (31 - INPUT_INT_BITS));
    const radius = Math.floor((((1 << INPUT_INT_BITS) - 1) * 2 ** (31 - INPUT_INT_BITS)) / 2 ** f.e);
    return unaryPrepared({
      n: count(input), inZp: zeroPointOf(input), radius, mult: roundHalfAway(f.q * 2 ** 31),
      // As in logistic.ts: only inputs strictly inside the radius use the product.
      shift: Math.min(f.e, 30),
    });
  },
  body: [
    For('i', '0', 'n', [
      Val('x', 'input[i] - inZp'),
      Store('output', 'i', `select(x <= -radius, -128, select(x >= radius, 127, clamp(rdbpot(tanhQ(mbqm(x, mult, shift), ${INPUT_INT_BITS}), 24), -128, 127)))`),
    ]),
  ],
};
