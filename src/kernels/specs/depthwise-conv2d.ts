// DepthwiseConv2D, int8 with per-channel filters [1, KH, KW, Cin*M] and a depth multiplier M: the
// loop order and arithmetic of TFLM reference_integer_ops::DepthwiseConvPerChannel.
import { convOutputSize, convPadding } from '../../ir/index.ts';
import { For, If, Let, Set, Store, Val } from '../nest.ts';
import { activationRange } from '../quant.ts';
import type { KernelSpec } from '../spec.ts';
import { constraint, convMultipliers, count, dim, fusableActivation, isInt8Quantized, rank, scaleOf, zeroPointOf } from './common.ts';

export const depthwiseConv2dSpec: KernelSpec<'depthwiseConv2d'> = {
  kind: 'depthwiseConv2d',
  constraints: [
    constraint('depthwiseConv2d.types', 'input, filter and output must be int8 quantized tensors', (c) =>
      isInt8Quantized(c.input(0)) && isInt8Quantized(c.input(1)) && isInt8Quantized(c.output(0))),
    constraint('depthwiseConv2d.rank', 'input, filter and output must have rank 4', (c) =>
      rank(c.input(0)) === 4 && rank(c.input(1)) === 4 && rank(c.output(0)) === 4),
    constraint('depthwiseConv2d.depth', 'output depth must equal filter depth and input depth x depth multiplier', (c) =>
      c.op.options.depthMultiplier >= 1 &&
      dim(c.output(0), 3) === dim(c.input(1), 3) &&
      dim(c.output(0), 3) === dim(c.input(0), 3) * c.op.options.depthMultiplier && dim(c.input(1), 0) === 1),
    constraint('depthwiseConv2d.filter-scales', 'filter needs one scale per output channel or one per tensor', (c) => {
      const n = c.input(1)?.quant?.scale.length ?? 0;
      return n === 1 || n === dim(c.input(1), 3);
    }),
    constraint('depthwiseConv2d.bias', 'bias, if present, must be int32 with one element per output channel', (c) => {
      const b = c.input(2);
      return b === null || (b.dtype === 'int32' && count(b) === dim(c.output(0), 3));
    }),
    constraint('depthwiseConv2d.stride', 'strides and dilations must be >= 1', (c) =>
      c.op.options.strideH >= 1 && c.op.options.strideW >= 1 && c.op.options.dilationH >= 1 && c.op.options.dilationW >= 1),
    constraint('depthwiseConv2d.output-shape', 'output shape must be [N, outH, outW, C] from padding, stride and dilation', (c) => {
      const o = c.op.options;
      const i = c.input(0);
      const f = c.input(1);
      return (
        dim(c.output(0), 0) === dim(i, 0) &&
        dim(c.output(0), 1) === convOutputSize(o.padding, dim(i, 1), dim(f, 1), o.strideH, o.dilationH) &&
        dim(c.output(0), 2) === convOutputSize(o.padding, dim(i, 2), dim(f, 2), o.strideW, o.dilationW)
      );
    }),
    constraint('depthwiseConv2d.activation', 'fused activation must be none, relu, relu6 or reluN1To1', (c) => fusableActivation(c.op.options.activation)),
  ],
  prepare(c) {
    const o = c.op.options;
    const input = c.input(0)!;
    const filter = c.input(1)!;
    const bias = c.input(2);
    const output = c.output(0);
    const [n, inH, inW, inD] = input.shape as [number, number, number, number];
    const [, fH, fW] = filter.shape as [number, number, number, number];
    const [, outH, outW, outD] = output.shape as [number, number, number, number];
    const act = activationRange(o.activation, scaleOf(output), zeroPointOf(output));
    const { mult, shift } = convMultipliers(input, filter, output, outD);
    return {
      flags: { hasBias: bias ? 1 : 0 },
      scalars: {
        batches: n, inH, inW, inD, outH, outW, outD, fH, fW, depthMult: o.depthMultiplier,
        strideH: o.strideH, strideW: o.strideW, dilH: o.dilationH, dilW: o.dilationW,
        padH: convPadding(o.strideH, o.dilationH, inH, fH, outH).before,
        padW: convPadding(o.strideW, o.dilationW, inW, fW, outW).before,
        inputOffset: -zeroPointOf(input), outputOffset: zeroPointOf(output), actMin: act.min, actMax: act.max,
      },
      arrays: { mult, shift },
      buffers: {
        input: { kind: 'input', slot: 0 },
        filter: { kind: 'input', slot: 1 },
        ...(bias ? { bias: { kind: 'input', slot: 2 } as const } : {}),
        output: { kind: 'output', slot: 0 },
      },
      scratch: [],
    };
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
              If('hasBias', [Set('acc', 'acc + bias[oc]')]),
              Set('acc', 'mbqm(acc, mult[oc], shift[oc]) + outputOffset'),
              Store('output', 'outBase + oc', 'clamp(acc, actMin, actMax)'),
            ]),
          ]),
        ]),
      ]),
    ]),
  ],
};
