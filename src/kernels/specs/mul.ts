// Mul, int8: TFLM mul_common.cc CalculateOpDataMul (multiplier double(s1)*double(s2)/double(s_out)
// via QuantizeMultiplier) and reference_integer_ops MulElementwise / BroadcastMul6DSlow: the flat
// loop when the shapes are equal, else the row-major output loop with broadcast strides.
import { Store } from '../nest.ts';
import { activationRange, quantizeMultiplier } from '../quant.ts';
import type { KernelSpec } from '../spec.ts';
import { binaryNest, broadcastParams, broadcastsTo } from './broadcast.ts';
import { constraint, fusableActivation, isInt8Quantized, scaleOf, zeroPointOf } from './common.ts';

export const mulSpec: KernelSpec<'mul'> = {
  kind: 'mul',
  constraints: [
    constraint('mul.types', 'inputs and output must be int8 quantized tensors', (c) =>
      isInt8Quantized(c.input(0)) && isInt8Quantized(c.input(1)) && isInt8Quantized(c.output(0))),
    constraint('mul.broadcast', 'input shapes must broadcast (numpy rules, rank <= 6) to the output shape', (c) =>
      broadcastsTo(c.input(0), c.input(1), c.output(0))),
    constraint('mul.scales', 'input and output scales must be positive and finite', (c) =>
      [scaleOf(c.input(0)), scaleOf(c.input(1)), scaleOf(c.output(0))].every((s) => s > 0 && Number.isFinite(s))),
    constraint('mul.activation', 'fused activation must be none, relu, relu6 or reluN1To1', (c) => fusableActivation(c.op.options.activation)),
  ],
  prepare(c) {
    const in1 = c.input(0)!;
    const in2 = c.input(1)!;
    const output = c.output(0);
    const q = quantizeMultiplier((scaleOf(in1) * scaleOf(in2)) / scaleOf(output));
    const act = activationRange(c.op.options.activation, scaleOf(output), zeroPointOf(output));
    const bc = broadcastParams(in1, in2, output);
    return {
      flags: bc.flags,
      scalars: {
        ...bc.scalars,
        input1Offset: -zeroPointOf(in1), input2Offset: -zeroPointOf(in2), outputOffset: zeroPointOf(output),
        mult: q.multiplier, shift: q.shift, actMin: act.min, actMax: act.max,
      },
      arrays: {},
      buffers: { input1: { kind: 'input', slot: 0 }, input2: { kind: 'input', slot: 1 }, output: { kind: 'output', slot: 0 } },
      scratch: [],
    };
  },
  body: (p) =>
    binaryNest(p.flags ?? {}, (a, b, o) => [
      Store('output', o, `clamp(mbqm((input1[${a}] + input1Offset) * (input2[${b}] + input2Offset), mult, shift) + outputOffset, actMin, actMax)`),
    ]),
};
