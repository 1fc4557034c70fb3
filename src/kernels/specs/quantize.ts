// Quantize to int8: TFLM quantize_common.cc. float32 input: reference_ops::AffineQuantize,
// zp + (int32)round(val / scale) with the division in float32 and rounding half away from zero,
// then clamped. int8 input: reference_ops::Requantize with QuantizeMultiplier(double(in_s) /
// double(out_s)) applied to (q - zp_in), even when the scales are equal (multiplier 2^30, shift 1).
// The same Requantize covers uint8 -> int8 and int8 -> uint8 (quantize_common.cc); its x ^ 0x80 fast
// path for equal scales and zero points 128 apart gives the same bytes as the general loop.
import { For, Store } from '../nest.ts';
import { quantizeMultiplier } from '../quant.ts';
import type { KernelSpec } from '../spec.ts';
import { constraint, count, scaleOf, unaryPrepared, zeroPointOf } from './common.ts';
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
    constraint('quantize.types', 'input must be float32, int8 or uint8 quantized and the output int8 quantized (or uint8 from int8)', (c) => {
      const i = c.input(0);
      const o = c.output(0);
      if (i === null || o === null || o.quant === null || o.quant.scale.length !== 1) return false;
      if (i.dtype !== 'float32' && (i.quant === null || i.quant.scale.length < 1)) return false;
      return (o.dtype === 'int8' && ['float32', 'int8', 'uint8'].includes(i.dtype)) || (o.dtype === 'uint8' && i.dtype === 'int8');
    }),
    constraint('quantize.shape', 'input and output must have the same element count', (c) => count(c.input(0)) === count(c.output(0))),
    constraint('quantize.scales', 'scales must be positive and finite', (c) => {
      const ok = (s: number): boolean => s > 0 && Number.isFinite(s);
      return ok(scaleOf(c.output(0))) && (c.input(0)?.dtype === 'float32' || ok(scaleOf(c.input(0))));
    }),
  ],
  prepare(c) {
    const input = c.input(0)!;
    const output = c.output(0);
    const [outMin, outMax] = output?.dtype === 'uint8' ? [0, 255] : [-128, 127];
    const common = { n: count(input), outputZp: zeroPointOf(output), outMin, outMax };
    if (input.dtype === 'float32') {
      return unaryPrepared({ ...common, scaleBits: float32Bits(scaleOf(output)) }, { fromFloat: 1 });
    }
    const q = quantizeMultiplier(scaleOf(input) / scaleOf(output));
    return unaryPrepared({ ...common, inputZp: zeroPointOf(input), mult: q.multiplier, shift: q.shift }, { fromFloat: 0 });
  },
  body: (p) => [
    For('i', '0', 'n', [
      p.flags?.['fromFloat']
        ? Store('output', 'i', 'clamp(quantizeF32(input[i], scaleBits) + outputZp, outMin, outMax)')
        : Store('output', 'i', 'clamp(mbqm(input[i] - inputZp, mult, shift) + outputZp, outMin, outMax)'),
    ]),
  ],
};
