// Mul, int8: TFLM mul_common.cc CalculateOpDataMul (multiplier double(s1)*double(s2)/double(s_out)
// via QuantizeMultiplier) and reference_integer_ops MulElementwise / BroadcastMul6DSlow: the flat
// loop when the shapes are equal, else the row-major output loop with broadcast strides.
import { Store } from '../nest.ts';
import { quantizeMultiplier } from '../quant.ts';
import type { KernelSpec } from '../spec.ts';
import { binaryNest, binaryPrepared, binaryQuant, binaryTypesConstraint, broadcastConstraint } from './broadcast.ts';
import { activationConstraint, constraint, scaleOf } from './common.ts';
import { OP_DATA_MUL, TFLITE_MUL_PARAMS, stock } from '../tflm-memory.ts';

export const mulSpec: KernelSpec<'mul'> = {
  kind: 'mul',
  tflmPersistent: stock(TFLITE_MUL_PARAMS, OP_DATA_MUL),
  constraints: [
    binaryTypesConstraint('mul'),
    broadcastConstraint('mul'),
    constraint('mul.scales', 'input and output scales must be positive and finite', (c) =>
      [scaleOf(c.input(0)), scaleOf(c.input(1)), scaleOf(c.output(0))].every((s) => s > 0 && Number.isFinite(s))),
    activationConstraint('mul', (c) => c.op.options.activation),
  ],
  prepare(c) {
    const q = quantizeMultiplier((scaleOf(c.input(0)) * scaleOf(c.input(1))) / scaleOf(c.output(0)));
    const { offsets, act } = binaryQuant(c);
    return binaryPrepared(c, { ...offsets, mult: q.multiplier, shift: q.shift, ...act });
  },
  body: (p) =>
    binaryNest(p.flags ?? {}, (a, b, o) => [
      Store('output', o, `clamp(mbqm((input1[${a}] + input1Offset) * (input2[${b}] + input2Offset), mult, shift) + outputOffset, actMin, actMax)`),
    ]),
};
