// Relu and Relu6, int8: TFLM activations.cc ReluQuantized (requantize by float32(in_s/out_s),
// clamp at the output zero point) and Relu6 (clamp raw values to [zp_in, zp_in + q(6)], output
// quantization ignored, as the reference kernel does).
import { For, Store } from '../nest.ts';
import { quantizeFloat32 } from '../quant.ts';
import type { KernelSpec } from '../spec.ts';
import { constraint, count, isInt8Quantized, multiplierArrays, scaleOf, unaryPrepared, zeroPointOf } from './common.ts';
import { RELU6_OP_DATA, RELU_OP_DATA, stock } from '../tflm-memory.ts';

const sameSize = <K extends 'relu' | 'relu6'>(kind: K) =>
  constraint<K>(`${kind}.shape`, 'input and output must be int8 quantized with the same element count', (c) =>
    isInt8Quantized(c.input(0)) && isInt8Quantized(c.output(0)) && count(c.input(0)) === count(c.output(0)));

export const reluSpec: KernelSpec<'relu'> = {
  kind: 'relu',
  tflmPersistent: stock(null, RELU_OP_DATA),
  constraints: [sameSize('relu')],
  prepare(c) {
    const input = c.input(0)!;
    const output = c.output(0);
    const { mult, shift } = multiplierArrays(1, () => Math.fround(scaleOf(input) / scaleOf(output)));
    return unaryPrepared({
      n: count(input), inputZp: zeroPointOf(input), outputZp: zeroPointOf(output),
      mult: mult[0] ?? 0, shift: shift[0] ?? 0, actMin: Math.max(-128, zeroPointOf(output)), actMax: 127,
    });
  },
  body: [For('i', '0', 'n', [Store('output', 'i', 'clamp(outputZp + mbqm(input[i] - inputZp, mult, shift), actMin, actMax)')])],
};

export const relu6Spec: KernelSpec<'relu6'> = {
  kind: 'relu6',
  tflmPersistent: stock(null, RELU6_OP_DATA),
  constraints: [sameSize('relu6')],
  prepare(c) {
    const input = c.input(0)!;
    const six = Math.min(127, Math.max(-128, quantizeFloat32(6, scaleOf(input), zeroPointOf(input))));
    return unaryPrepared({ n: count(input), lo: zeroPointOf(input), hi: six });
  },
  body: [For('i', '0', 'n', [Store('output', 'i', 'min(max(lo, input[i]), hi)')])],
};
