// LeakyRelu, int8: TFLM leaky_relu_common.cc (identity multiplier double(float32(in_s / out_s)),
// alpha multiplier double(float32(float32(in_s * alpha) / out_s))) and reference_ops
// QuantizeLeakyRelu. Its data-dependent branch (input >= 0) is written branch-free: mbqm(0, m, s)
// is 0, so mbqm(max(v, 0), mId, sId) + mbqm(min(v, 0), mAlpha, sAlpha) selects the taken side.
import { For, Store, Val } from '../nest.ts';
import { quantizeMultiplier } from '../quant.ts';
import type { KernelSpec } from '../spec.ts';
import { constraint, count, isInt8Quantized, scaleOf, unaryPrepared, zeroPointOf } from './common.ts';
import { LEAKY_RELU_OP_DATA, TFLITE_LEAKY_RELU_PARAMS, stock } from '../tflm-memory.ts';

export const leakyReluSpec: KernelSpec<'leakyRelu'> = {
  kind: 'leakyRelu',
  tflmPersistent: stock(TFLITE_LEAKY_RELU_PARAMS, LEAKY_RELU_OP_DATA),
  constraints: [
    constraint('leakyRelu.shape', 'input and output must be int8 quantized with the same element count', (c) =>
      isInt8Quantized(c.input(0)) && isInt8Quantized(c.output(0)) && count(c.input(0)) === count(c.output(0))),
    constraint('leakyRelu.scales', 'alpha must be finite and the input and output scales positive', (c) =>
      Number.isFinite(c.op.options.alpha) && scaleOf(c.input(0)) > 0 && scaleOf(c.output(0)) > 0),
  ],
  prepare(c) {
    const input = c.input(0)!;
    const output = c.output(0);
    const inS = scaleOf(input);
    const outS = scaleOf(output);
    const alpha = Math.fround(c.op.options.alpha);
    const id = quantizeMultiplier(Math.fround(inS / outS));
    const al = quantizeMultiplier(Math.fround(Math.fround(inS * alpha) / outS));
    return unaryPrepared({
      n: count(input), inputZp: zeroPointOf(input), outputZp: zeroPointOf(output),
      multId: id.multiplier, shiftId: id.shift, multAlpha: al.multiplier, shiftAlpha: al.shift,
    });
  },
  body: [
    For('i', '0', 'n', [
      Val('v', 'input[i] - inputZp'),
      Store('output', 'i', 'clamp(outputZp + mbqm(max(v, 0), multId, shiftId) + mbqm(min(v, 0), multAlpha, shiftAlpha), -128, 127)'),
    ]),
  ],
};
