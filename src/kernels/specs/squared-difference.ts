// SquaredDifference, int8: TFLM squared_difference.cc PrepareQuantized (left_shift 7, double
// arithmetic, inputs via QuantizeMultiplierSmallerThanOneExp, output via QuantizeMultiplier with
// (2 max_s)^2 / (2^14 s_out)) and its SquaredDifference(x, y, params), run by ElementWise when the
// shapes are equal or BroadcastBinaryFunction4DSlow's row-major output loop otherwise (rank <= 4).
// The output range is the full int8 range (the op has no fused activation).
import { Store, Val } from '../nest.ts';
import { quantizeMultiplier } from '../quant.ts';
import type { KernelSpec, OpContext } from '../spec.ts';
import { binaryNest, binaryPrepared, binaryTypesConstraint, broadcastConstraint } from './broadcast.ts';
import { constraint, scaleOf, zeroPointOf } from './common.ts';
import { OP_DATA_SQUARED_DIFFERENCE, stock } from '../tflm-memory.ts';

const LEFT_SHIFT = 7;
const MAX_RANK = 4;

function realMultipliers(c: OpContext<'squaredDifference'>): { in1: number; in2: number; out: number } {
  const s1 = scaleOf(c.input(0));
  const s2 = scaleOf(c.input(1));
  const twiceMax = 2 * Math.max(s1, s2);
  return { in1: s1 / twiceMax, in2: s2 / twiceMax, out: (twiceMax * twiceMax) / Math.fround(2 ** (2 * LEFT_SHIFT) * scaleOf(c.output(0))) };
}

export const squaredDifferenceSpec: KernelSpec<'squaredDifference'> = {
  kind: 'squaredDifference',
  // ParseSquaredDifference allocates nothing.
  tflmPersistent: stock(null, OP_DATA_SQUARED_DIFFERENCE),
  constraints: [
    binaryTypesConstraint('squaredDifference'),
    broadcastConstraint('squaredDifference', MAX_RANK),
    constraint('squaredDifference.multipliers', 'scales must give input multipliers in (0, 1) and a representable output multiplier', (c) => {
      const m = realMultipliers(c);
      const out = quantizeMultiplier(m.out);
      return [m.in1, m.in2].every((x) => x > 0 && x < 1 && quantizeMultiplier(x).shift <= 0) && out.multiplier > 0 && out.shift <= 30;
    }),
  ],
  prepare(c) {
    const m = realMultipliers(c);
    const q1 = quantizeMultiplier(m.in1);
    const q2 = quantizeMultiplier(m.in2);
    const qo = quantizeMultiplier(m.out);
    return binaryPrepared(c, {
      leftShift: LEFT_SHIFT,
      input1Offset: -zeroPointOf(c.input(0)),
      input2Offset: -zeroPointOf(c.input(1)),
      outputOffset: zeroPointOf(c.output(0)),
      mult1: q1.multiplier, shift1: q1.shift, mult2: q2.multiplier, shift2: q2.shift, outMult: qo.multiplier, outShift: qo.shift,
    });
  },
  body: (p) =>
    binaryNest(p.flags ?? {}, (a, b, o) => [
      Val('scaled1', `mbqm(shl(input1[${a}] + input1Offset, leftShift), mult1, shift1)`),
      Val('scaled2', `mbqm(shl(input2[${b}] + input2Offset, leftShift), mult2, shift2)`),
      Val('diff', 'scaled1 - scaled2'),
      Store('output', o, 'clamp(mbqm(diff * diff, outMult, outShift) + outputOffset, -128, 127)'),
    ]),
};
