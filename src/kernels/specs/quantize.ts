// Quantize to int8: TFLM quantize_common.cc. float32 input: reference_ops::AffineQuantize,
// zp + (int32)round(val / scale) with the division in float32 and rounding half away from zero,
// then clamped. int8 input: reference_ops::Requantize with QuantizeMultiplier(double(in_s) /
// double(out_s)) applied to (q - zp_in), even when the scales are equal (multiplier 2^30, shift 1).
import { For, Store } from '../nest.ts';
import { quantizeMultiplier } from '../quant.ts';
import type { KernelSpec } from '../spec.ts';
import { constraint, count, isInt8Quantized, scaleOf, unaryPrepared, zeroPointOf } from './common.ts';
import { OP_DATA_QUANTIZE, stock } from '../tflm-memory.ts';

/** The IEEE-754 binary32 bit pattern of a float32 value, as an int32 scalar. */
export function float32Bits(x: number): number {
  const f = new Float32Array([x]);
  return new Int32Array(f.buffer)[0] ?? 0;
}

export const quantizeSpec: KernelSpec<'quantize'> = {
  kind: 'quantize',
  tflmPersistent: stock(null, OP_DATA_QUANTIZE),
  constraints: [
    constraint('quantize.types', 'input must be float32 or int8 quantized and the output int8 quantized', (c) => {
      const i = c.input(0);
      return (i?.dtype === 'float32' || isInt8Quantized(i)) && isInt8Quantized(c.output(0));
    }),
    constraint('quantize.shape', 'input and output must have the same element count', (c) => count(c.input(0)) === count(c.output(0))),
    constraint('quantize.scales', 'scales must be positive and finite', (c) => {
      const ok = (s: number): boolean => s > 0 && Number.isFinite(s);
      return ok(scaleOf(c.output(0))) && (c.input(0)?.dtype !== 'int8' || ok(scaleOf(c.input(0))));
    }),
  ],
  prepare(c) {
    const input = c.input(0)!;
    const output = c.output(0);
    const common = { n: count(input), outputZp: zeroPointOf(output) };
    if (input.dtype === 'float32') {
      return unaryPrepared({ ...common, scaleBits: float32Bits(scaleOf(output)) }, { fromFloat: 1 });
    }
    const q = quantizeMultiplier(scaleOf(input) / scaleOf(output));
    return unaryPrepared({ ...common, inputZp: zeroPointOf(input), mult: q.multiplier, shift: q.shift }, { fromFloat: 0 });
  },
  body: (p) => [
    For('i', '0', 'n', [
      p.flags?.['fromFloat']
        ? Store('output', 'i', 'clamp(quantizeF32(input[i], scaleBits) + outputZp, -128, 127)')
        : Store('output', 'i', 'clamp(mbqm(input[i] - inputZp, mult, shift) + outputZp, -128, 127)'),
    ]),
  ],
};
