// Logistic, int8: TFLM logistic_common.cc CalculateArithmeticOpDataLogistic (input multiplier
// from frexp(in_s * 2^27) without QuantizeMultiplier's fix-ups, input_range_radius =
// CalculateInputRadius(4, left_shift, 31)) and reference_integer_ops::Logistic: saturate outside
// the radius, else gemmlowp::logistic on the Q4.27 input, RoundingDivideByPOT by 23, zp -128.
// The kernel assumes output scale 1/256 and checks only the output zero point, as TFLM does.
import { For, Store, Val } from '../nest.ts';
import { frexp, roundHalfAway } from '../quant.ts';
import type { KernelSpec } from '../spec.ts';
import { constraint, count, isInt8Quantized, scaleOf, unaryPrepared, zeroPointOf } from './common.ts';
import { OP_DATA_LOGISTIC, stock } from '../tflm-memory.ts';

const INPUT_INT_BITS = 4;

export const logisticSpec: KernelSpec<'logistic'> = {
  kind: 'logistic',
  tflmPersistent: stock(null, OP_DATA_LOGISTIC),
  constraints: [
    constraint('logistic.types', 'input and output must be int8 quantized with the same element count', (c) =>
      isInt8Quantized(c.input(0)) && isInt8Quantized(c.output(0)) && count(c.input(0)) === count(c.output(0))),
    constraint('logistic.output-zero-point', 'int8 output zero point must be -128 (the output scale is taken as 1/256)', (c) =>
      zeroPointOf(c.output(0)) === -128),
    constraint('logistic.input-scale', 'input scale must be finite and at least 2^-28 (the Q4.27 rescale shifts left)', (c) => {
      const s = scaleOf(c.input(0));
      return Number.isFinite(s) && s >= 2 ** -28;
    }),
  ],
  prepare(c) {
    const input = c.input(0)!;
    const f = frexp(scaleOf(input) * 2 ** (31 - INPUT_INT_BITS));
    // float32 scale * 2^27 has <= 24 significant bits: q * 2^31 is an exact integer below 2^31.
    const mult = roundHalfAway(f.q * 2 ** 31);
    const radius = Math.floor((((1 << INPUT_INT_BITS) - 1) * 2 ** (31 - INPUT_INT_BITS)) / 2 ** f.e);
    return unaryPrepared({
      n: count(input), inZp: zeroPointOf(input), radius, mult,
      // Only inputs strictly inside the radius reach the multiply; with a shift >= 30 that is
      // at most the input 0, so capping the shift keeps the eagerly evaluated branch defined.
      shift: Math.min(f.e, 30),
    });
  },
  body: [
    For('i', '0', 'n', [
      Val('x', 'input[i] - inZp'),
      Store('output', 'i', `select(x <= -radius, -128, select(x >= radius, 127, clamp(rdbpot(logisticQ(mbqm(x, mult, shift), ${INPUT_INT_BITS}), 23) - 128, -128, 127)))`),
    ]),
  ],
};
