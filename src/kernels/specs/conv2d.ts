// Conv2D, int8 activations with per-channel (or per-tensor, broadcast) int8 filters: the loop
// order and arithmetic of TFLM reference_integer_ops::ConvPerChannel (integer_ops/conv.h).
// With a constant filter the input offset is hoisted out of the channel loop: per in-bounds tap,
// sum(in * f) + inputOffset * sum(f) (exact in wrapping int32; same loads in the same order).
import type { Tensor } from '../../ir/index.ts';
import { Let, Val } from '../nest.ts';
import type { KernelSpec } from '../spec.ts';
import { activationConstraint, constraint, convMultipliers, dim } from './common.ts';
import {
  biasConstraint, convOutputLoops, convScalars, convSpatialShapeHolds, convTaps, filterOpPrepared, filterScalesConstraint, hoistedDot,
  int8TypesConstraint, outputStage, rank4Constraint, strideConstraint,
} from './conv-common.ts';
import { OP_DATA_CONV, TFLITE_CONV_PARAMS, perChannelArrays, stock } from '../tflm-memory.ts';

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
  tflmPersistent: { ...stock(TFLITE_CONV_PARAMS, OP_DATA_CONV), prepareBuffers: (c) => perChannelArrays(dim(c.input(1), 0)) },
  constraints: [
    int8TypesConstraint('conv2d'),
    rank4Constraint('conv2d'),
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
    const input = c.input(0)!;
    const filter = c.input(1)!;
    const output = c.output(0);
    const s = convScalars(c.op.options, input, filter, output);
    const fsum = filterRunSums(filter, s.outD * s.fH * s.fW, s.inD);
    return filterOpPrepared(c.input(2), s, convMultipliers(input, filter, output, s.outD), fsum);
  },
  body: convOutputLoops([
    Val('acc', '0'),
    ...convTaps([
      Let('inBase', '((b * inH + inY) * inW + inX) * inD'),
      Let('fBase', '((oc * fH + fy) * fW + fx) * inD'),
      hoistedDot('ic', 'inD', 'filter[fBase + ic]', '(oc * fH + fy) * fW + fx'),
    ]),
    ...outputStage('outBase + oc'),
  ]),
};
