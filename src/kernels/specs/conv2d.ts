// Conv2D, int8 activations with per-channel (or per-tensor, broadcast) int8 filters: the loop
// order and arithmetic of TFLM reference_integer_ops::ConvPerChannel (integer_ops/conv.h).
// With a constant filter the input offset is hoisted out of the channel loop: per in-bounds tap,
// sum(in * f) + inputOffset * sum(f) (exact in wrapping int32; same loads in the same order).
import type { Tensor } from '../../ir/index.ts';
import { convOutputSize, convPadding } from '../../ir/index.ts';
import { For, If, Let, Set, Store, Val } from '../nest.ts';
import { activationRange } from '../quant.ts';
import type { KernelSpec } from '../spec.ts';
import { constraint, convMultipliers, dim, fusableActivation, isInt8Quantized, rank, scaleOf, zeroPointOf } from './common.ts';

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
    constraint('conv2d.types', 'input, filter and output must be int8 quantized tensors', (c) =>
      isInt8Quantized(c.input(0)) && isInt8Quantized(c.input(1)) && isInt8Quantized(c.output(0))),
    constraint('conv2d.rank', 'input, filter and output must have rank 4', (c) =>
      rank(c.input(0)) === 4 && rank(c.input(1)) === 4 && rank(c.output(0)) === 4),
    constraint('conv2d.filter-depth', 'filter input depth must equal the input depth (grouped conv unsupported)', (c) =>
      dim(c.input(1), 3) === dim(c.input(0), 3)),
    constraint('conv2d.filter-scales', 'filter needs one scale per output channel or one per tensor', (c) => {
      const n = c.input(1)?.quant?.scale.length ?? 0;
      return n === 1 || n === dim(c.input(1), 0);
    }),
    constraint('conv2d.bias', 'bias, if present, must be int32 with one element per output channel', (c) => {
      const b = c.input(2);
      return b === null || (b.dtype === 'int32' && b.shape.reduce((a, x) => a * x, 1) === dim(c.input(1), 0));
    }),
    constraint('conv2d.stride', 'strides and dilations must be >= 1', (c) =>
      c.op.options.strideH >= 1 && c.op.options.strideW >= 1 && c.op.options.dilationH >= 1 && c.op.options.dilationW >= 1),
    constraint('conv2d.output-shape', 'output shape must be [N, outH, outW, Cout] from padding, stride and dilation', (c) => {
      const o = c.op.options;
      const i = c.input(0);
      const f = c.input(1);
      return (
        dim(c.output(0), 0) === dim(i, 0) &&
        dim(c.output(0), 1) === convOutputSize(o.padding, dim(i, 1), dim(f, 1), o.strideH, o.dilationH) &&
        dim(c.output(0), 2) === convOutputSize(o.padding, dim(i, 2), dim(f, 2), o.strideW, o.dilationW) &&
        dim(c.output(0), 3) === dim(f, 0)
      );
    }),
    constraint('conv2d.activation', 'fused activation must be none, relu, relu6 or reluN1To1', (c) => fusableActivation(c.op.options.activation)),
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
    const act = activationRange(o.activation, scaleOf(output), zeroPointOf(output));
    const { mult, shift } = convMultipliers(input, filter, output, outD);
    const fsum = filterRunSums(filter, outD * fH * fW, inD);
    return {
      flags: { hasBias: bias ? 1 : 0, hoist: fsum ? 1 : 0 },
      scalars: {
        batches: n, inH, inW, inD, outH, outW, outD, fH, fW,
        strideH: o.strideH, strideW: o.strideW, dilH: o.dilationH, dilW: o.dilationW,
        padH: convPadding(o.strideH, o.dilationH, inH, fH, outH).before,
        padW: convPadding(o.strideW, o.dilationW, inW, fW, outW).before,
        inputOffset: -zeroPointOf(input), outputOffset: zeroPointOf(output), actMin: act.min, actMax: act.max,
      },
      arrays: { mult, shift, ...(fsum ? { fsum } : {}) },
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
        Let('inYOrigin', 'outY * strideH - padH'),
        For('outX', '0', 'outW', [
          Let('inXOrigin', 'outX * strideW - padW'),
          Let('outBase', '((b * outH + outY) * outW + outX) * outD'),
          For('oc', '0', 'outD', [
            Val('acc', '0'),
            For('fy', '0', 'fH', [
              Let('inY', 'inYOrigin + dilH * fy'),
              For('fx', '0', 'fW', [
                Let('inX', 'inXOrigin + dilW * fx'),
                If('inX >= 0 && inX < inW && inY >= 0 && inY < inH', [
                  Let('inBase', '((b * inH + inY) * inW + inX) * inD'),
                  Let('fBase', '((oc * fH + fy) * fW + fx) * inD'),
                  If('hoist', [
                    For('ic', '0', 'inD', [Set('acc', 'acc + input[inBase + ic] * filter[fBase + ic]', 'mac')]),
                    Set('acc', 'acc + inputOffset * fsum[(oc * fH + fy) * fW + fx]'),
                  ], [
                    For('ic', '0', 'inD', [Set('acc', 'acc + (input[inBase + ic] + inputOffset) * filter[fBase + ic]', 'mac')]),
                  ]),
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
  ],
};
