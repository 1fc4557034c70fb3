// Dequantize int8 -> float32: TFLM dequantize.cc / reference_ops::Dequantize,
// (float)(double(scale) * (q - zp)); the product is formed in double by the primitive and
// rounded to float32 by the store.
import { For, Store } from '../nest.ts';
import type { KernelSpec } from '../spec.ts';
import { constraint, count, isInt8Quantized, scaleOf, unaryPrepared, zeroPointOf } from './common.ts';
import { float32Bits } from './quantize.ts';
import { OP_DATA_DEQUANTIZE, stock } from '../tflm-memory.ts';

export const dequantizeSpec: KernelSpec<'dequantize'> = {
  kind: 'dequantize',
  tflmPersistent: stock(null, OP_DATA_DEQUANTIZE),
  constraints: [
    constraint('dequantize.types', 'input must be int8 quantized and the output float32', (c) =>
      isInt8Quantized(c.input(0)) && c.output(0).dtype === 'float32'),
    constraint('dequantize.shape', 'input and output must have the same element count', (c) => count(c.input(0)) === count(c.output(0))),
  ],
  prepare(c) {
    const input = c.input(0)!;
    return unaryPrepared({ n: count(input), inputZp: zeroPointOf(input), scaleBits: float32Bits(scaleOf(input)) });
  },
  body: [For('i', '0', 'n', [Store('output', 'i', 'dequantizeF32(input[i] - inputZp, scaleBits)')])],
};
