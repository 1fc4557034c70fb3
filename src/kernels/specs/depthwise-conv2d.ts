// DepthwiseConv2D, int8 with per-channel filters [1, KH, KW, Cin*M] and a depth multiplier M: the
// loop order and arithmetic of TFLM reference_integer_ops::DepthwiseConvPerChannel.
import { For, If, Let, Set, Val } from '../nest.ts';
import type { KernelSpec } from '../spec.ts';
import { activationConstraint, constraint, convMultipliers, dim } from './common.ts';
import {
  biasConstraint, convScalars, convSpatialShapeHolds, filterOpPrepared, filterScalesConstraint, int8TypesConstraint, outputStage, rank4Constraint, strideConstraint,
} from './conv-common.ts';
import { OP_DATA_CONV, TFLITE_DEPTHWISE_CONV_PARAMS, perChannelArrays, stock } from '../tflm-memory.ts';

export const depthwiseConv2dSpec: KernelSpec<'depthwiseConv2d'> = {
  kind: 'depthwiseConv2d',
  tflmPersistent: { ...stock(TFLITE_DEPTHWISE_CONV_PARAMS, OP_DATA_CONV), prepareBuffers: (c) => perChannelArrays(dim(c.input(1), 3)) },
  constraints: [
    int8TypesConstraint('depthwiseConv2d'),
    rank4Constraint('depthwiseConv2d'),
    constraint('depthwiseConv2d.depth', 'output depth must equal filter depth and input depth x depth multiplier', (c) =>
      c.op.options.depthMultiplier >= 1 &&
      dim(c.output(0), 3) === dim(c.input(1), 3) &&
      dim(c.output(0), 3) === dim(c.input(0), 3) * c.op.options.depthMultiplier && dim(c.input(1), 0) === 1),
    filterScalesConstraint('depthwiseConv2d', (c) => c.input(1), 3),
    biasConstraint('depthwiseConv2d', (c) => c.input(2), (c) => dim(c.output(0), 3)),
    strideConstraint('depthwiseConv2d', (c) => c.op.options),
    constraint('depthwiseConv2d.output-shape', 'output shape must be [N, outH, outW, C] from padding, stride and dilation', (c) =>
      convSpatialShapeHolds(c.op.options, c.input(0), c.input(1), c.output(0))),
    activationConstraint('depthwiseConv2d', (c) => c.op.options.activation),
  ],
  prepare(c) {
    const o = c.op.options;
    const input = c.input(0)!;
    const filter = c.input(1)!;
    const output = c.output(0);
    const s = convScalars(o, input, filter, output, { depthMult: o.depthMultiplier });
    return filterOpPrepared(c.input(2), s, convMultipliers(input, filter, output, s.outD));
  },
  body: [
    For('b', '0', 'batches', [
      For('outY', '0', 'outH', [
        For('outX', '0', 'outW', [
          Let('outBase', '((b * outH + outY) * outW + outX) * outD'),
          For('ic', '0', 'inD', [
            For('m', '0', 'depthMult', [
              Let('oc', 'm + ic * depthMult'),
              Let('inXOrigin', 'outX * strideW - padW'),
              Let('inYOrigin', 'outY * strideH - padH'),
              Val('acc', '0'),
              For('fy', '0', 'fH', [
                For('fx', '0', 'fW', [
                  Let('inX', 'inXOrigin + dilW * fx'),
                  Let('inY', 'inYOrigin + dilH * fy'),
                  If('inX >= 0 && inX < inW && inY >= 0 && inY < inH', [
                    Set('acc', 'acc + (input[((b * inH + inY) * inW + inX) * inD + ic] + inputOffset) * filter[(fy * fW + fx) * outD + oc]', 'mac'),
                  ]),
                ]),
              ]),
              ...outputStage('outBase + oc'),
            ]),
          ]),
        ]),
      ]),
    ]),
  ],
};
