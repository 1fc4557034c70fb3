// Conv2D, int8 activations with per-channel (or per-tensor, broadcast) int8 filters: the loop
// order and arithmetic of TFLM reference_integer_ops::ConvPerChannel (integer_ops/conv.h).
// With a constant filter the input offset is hoisted out of the channel loop: per in-bounds tap,
// sum(in * f) + inputOffset * sum(f) (exact in wrapping int32; same loads in the same order).
import type { Tensor } from '../../ir/index.ts';
import { For, If, Let, Set, Val } from '../nest.ts';
import type { KernelSpec } from '../spec.ts';
import { constraint, convMultipliers, dim, isInt8Quantized, rank } from './common.ts';
import {
  activationConstraint, biasConstraint, convGeometry, convOutputLoops, convSpatialShapeHolds, convTaps, filterOpBuffers, filterScalesConstraint,
  int8TypesConstraint, outputQuantScalars, outputStage, strideConstraint,
} from './conv-common.ts';

/**
 * Sums of `len` consecutive int8 filter values (each plus `offset`) for `runs` runs, or null when
 * the filter is not a constant (then the kernels keep the plain form).
 */
export function filterRunSums(filter: Tensor, runs: number, len: number, offset = 0): Int32Array | null {
  if (filter.data === null || filter.data.length < runs * len) return null;
  const f = new Int8Array(filter.data.buffer, filter.data.byteOffset, runs * len);
  const sums = new Int32Array(runs);
  for (let r = 0; r < runs; r++) {
    let s = 0;
    for (let i = r * len; i < (r + 1) * len; i++) s = (s + (f[i] ?? 0) + offset) | 0;
    sums[r] = s;
  }
  return sums;
}

export const conv2dSpec: KernelSpec<'conv2d'> = {
  kind: 'conv2d',
  constraints: [
    int8TypesConstraint('conv2d'),
    constraint('conv2d.rank', 'input, filter and output must have rank 4', (c) =>
      rank(c.input(0)) === 4 && rank(c.input(1)) === 4 && rank(c.output(0)) === 4),
    constraint('conv2d.filter-depth', 'filter input depth must equal the input depth (grouped conv unsupported)', (c) =>
      dim(c.input(1), 3) === dim(c.input(0), 3)),
    filterScalesConstraint('conv2d', (c) => c.input(1)),
    biasConstraint('conv2d', (c) => c.input(2), (c) => dim(c.input(1), 0)),
    strideConstraint('conv2d', (c) => c.op.options),
    constraint('conv2d.output-shape', 'output shape must be [N, outH, outW, Cout] from padding, stride and dilation', (c) =>
      convSpatialShapeHolds(c.op.options, c.input(0), c.input(1), c.output(0)) && dim(c.output(0), 3) === dim(c.input(1), 0)),
    activationConstraint('conv2d', (c) => c.op.options.activation),
  ],
  prepare(c) {
    const o = c.op.options;
    const input = c.input(0)!;
    const filter = c.input(1)!;
    const bias = c.input(2);
    const output = c.output(0);
    const [n, inH, inW, inD] = input.shape as [number, number, number, number];
    const [outD, fH, fW] = filter.shape as [number, number, number, number];
    const [, outH, outW] = output.shape as [number, number, number, number];
    const { mult, shift } = convMultipliers(input, filter, output, outD);
    const fsum = filterRunSums(filter, outD * fH * fW, inD);
    return {
      flags: { hasBias: bias ? 1 : 0, hoist: fsum ? 1 : 0 },
      scalars: {
        batches: n, inH, inW, inD, outH, outW, outD, fH, fW,
        ...convGeometry(o, inH, inW, fH, fW, outH, outW),
        ...outputQuantScalars(input, output, o.activation),
      },
      arrays: { mult, shift, ...(fsum ? { fsum } : {}) },
      buffers: filterOpBuffers(bias !== null),
      scratch: [],
    };
  },
  body: convOutputLoops([
    Val('acc', '0'),
    ...convTaps([
      Let('inBase', '((b * inH + inY) * inW + inX) * inD'),
      Let('fBase', '((oc * fH + fy) * fW + fx) * inD'),
      If('hoist', [
        For('ic', '0', 'inD', [Set('acc', 'acc + input[inBase + ic] * filter[fBase + ic]', 'mac')]),
        Set('acc', 'acc + inputOffset * fsum[(oc * fH + fy) * fW + fx]'),
      ], [
        For('ic', '0', 'inD', [Set('acc', 'acc + (input[inBase + ic] + inputOffset) * filter[fBase + ic]', 'mac')]),
      ]),
    ]),
    ...outputStage('outBase + oc'),
  ]),
};
