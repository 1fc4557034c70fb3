// L2Normalization, int8 over the last dimension: TFLM l2norm.cc (rank <= 4, no fused activation)
// and reference_integer_ops::L2Normalization: per row the int32 sum of squared (x - zp), its
// inverse square root from GetInvSqrtQuantizedMultiplierExp (reverse shift -1), then each
// element times that multiplier with shift + 7 (output scale 1/128, zero point 0 assumed, unchecked).
import { For, Let, Set, Store, Val } from '../nest.ts';
import type { KernelSpec } from '../spec.ts';
import { constraint, isInt8Quantized, unaryPrepared, zeroPointOf } from './common.ts';
import { L2_NORMALIZATION_PARAMS, TFLITE_L2_NORM_PARAMS, stock } from '../tflm-memory.ts';

/** kOutputScale: the output is Q0.7. */
const OUTPUT_SCALE_BITS = 7;

export const l2NormalizationSpec: KernelSpec<'l2Normalization'> = {
  kind: 'l2Normalization',
  tflmPersistent: stock(TFLITE_L2_NORM_PARAMS, L2_NORMALIZATION_PARAMS),
  constraints: [
    constraint('l2Normalization.types', 'input and output must be int8 quantized tensors', (c) =>
      isInt8Quantized(c.input(0)) && isInt8Quantized(c.output(0))),
    constraint('l2Normalization.shape', 'input must have rank 1 to 4 and the output the same shape', (c) => {
      const i = c.input(0)?.shape ?? [];
      const o = c.output(0).shape;
      return i.length >= 1 && i.length <= 4 && i.length === o.length && i.every((d, k) => d === o[k]);
    }),
    constraint('l2Normalization.activation', 'fused activation must be none', (c) => c.op.options.activation === 'none'),
    // 255^2 per element: a longer row could overflow TFLM's int32 sum of squares.
    constraint('l2Normalization.depth', 'the last dimension must be at most 33025 (int32 sum of squares)', (c) => {
      const s = c.input(0)?.shape ?? [];
      return (s[s.length - 1] ?? 0) <= 33025;
    }),
  ],
  prepare(c) {
    const shape = c.input(0)!.shape;
    const depth = shape[shape.length - 1] ?? 1;
    return unaryPrepared({ outer: shape.slice(0, -1).reduce((a, d) => a * d, 1), depth, inZp: zeroPointOf(c.input(0)) });
  },
  body: [
    For('i', '0', 'outer', [
      Let('base', 'i * depth'),
      Val('acc', '0'),
      For('c', '0', 'depth', [Val('v', 'input[base + c] - inZp'), Set('acc', 'acc + v * v', 'mac')]),
      Val('mult', 'invSqrtMult(acc)'),
      Val('shift', `invSqrtShift(acc) + ${OUTPUT_SCALE_BITS}`),
      For('c', '0', 'depth', [Store('output', 'base + c', 'clamp(mbqm(input[base + c] - inZp, mult, shift), -128, 127)')]),
    ]),
  ],
};
