// Sub, int8: TFLM sub_common.cc CalculateOpDataSub (left_shift 20; unlike ADD, twice_max_input_scale
// and the three real multipliers are computed in float32 and only then widened to double) and
// reference_ops SubElementwise, or BroadcastQuantSubSlow's row-major output loop when the shapes
// differ. MultiplyByQuantizedMultiplierSmallerThanOneExp == mbqm for shift <= 0.
import { Store, Val } from '../nest.ts';
import { quantizeMultiplier } from '../quant.ts';
import type { KernelSpec, OpContext } from '../spec.ts';
import { binaryNest, binaryPrepared, binaryQuant, binaryTypesConstraint, broadcastConstraint } from './broadcast.ts';
import { activationConstraint, constraint, scaleOf } from './common.ts';
import { OP_DATA_SUB, TFLITE_SUB_PARAMS, stock } from '../tflm-memory.ts';

const LEFT_SHIFT = 20;
/** BroadcastQuantSubSlow's NdArrayDesc<5>. */
const MAX_RANK = 5;

/** The three real multipliers as TFLM computes them (float32 arithmetic, then double). */
function realMultipliers(c: OpContext<'sub'>): { in1: number; in2: number; out: number } {
  const s1 = scaleOf(c.input(0));
  const s2 = scaleOf(c.input(1));
  const twiceMax = Math.fround(2 * Math.max(s1, s2));
  return {
    in1: Math.fround(s1 / twiceMax),
    in2: Math.fround(s2 / twiceMax),
    out: Math.fround(twiceMax / Math.fround(2 ** LEFT_SHIFT * scaleOf(c.output(0)))),
  };
}

export const subSpec: KernelSpec<'sub'> = {
  kind: 'sub',
  tflmPersistent: stock(TFLITE_SUB_PARAMS, OP_DATA_SUB),
  constraints: [
    binaryTypesConstraint('sub'),
    broadcastConstraint('sub', MAX_RANK),
    constraint('sub.multipliers', 'scales must give input and output multipliers in (0, 1) (QuantizeMultiplierSmallerThanOneExp)', (c) => {
      const m = realMultipliers(c);
      return [m.in1, m.in2, m.out].every((x) => x > 0 && x < 1 && quantizeMultiplier(x).shift <= 0);
    }),
    activationConstraint('sub', (c) => c.op.options.activation),
  ],
  prepare(c) {
    const m = realMultipliers(c);
    const q1 = quantizeMultiplier(m.in1);
    const q2 = quantizeMultiplier(m.in2);
    const qo = quantizeMultiplier(m.out);
    const { offsets, act } = binaryQuant(c);
    return binaryPrepared(c, {
      leftShift: LEFT_SHIFT, ...offsets,
      mult1: q1.multiplier, shift1: q1.shift, mult2: q2.multiplier, shift2: q2.shift, outMult: qo.multiplier, outShift: qo.shift, ...act,
    });
  },
  body: (p) =>
    binaryNest(p.flags ?? {}, (a, b, o) => [
      Val('scaled1', `mbqm(shl(input1[${a}] + input1Offset, leftShift), mult1, shift1)`),
      Val('scaled2', `mbqm(shl(input2[${b}] + input2Offset, leftShift), mult2, shift2)`),
      Store('output', o, 'clamp(mbqm(scaled1 - scaled2, outMult, outShift) + outputOffset, actMin, actMax)'),
    ]),
};
