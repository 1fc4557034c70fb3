// Shared constraints and prepare of the int8 2-D pooling specs (MaxPool2D, AveragePool2D): TFLM
// pooling_common.cc PoolingPrepare (input/output scale within 1e-6, equal zero points, activation
// range of the output) and the padding of ComputePaddingHeightWidth with dilation 1.
import type { Pool2dOptions } from '../../ir/index.ts';
import { convOutputSize, convPadding } from '../../ir/index.ts';
import { activationRange } from '../quant.ts';
import type { Nest, Stmt } from '../nest.ts';
import { For, Let, Set, Store, Val } from '../nest.ts';
import type { Constraint, OpContext, Prepared } from '../spec.ts';
import { constraint, dim, fusableActivation, isInt8Quantized, rank, scaleOf, unaryPrepared, zeroPointOf } from './common.ts';

export type PoolKind = 'maxPool2d' | 'averagePool2d';

/** The part of an op context the pooling rules read (either pooling kind fits). */
type PoolCtx = Pick<OpContext, 'input' | 'output'> & { readonly op: { readonly options: Pool2dOptions } };

type Rule = readonly [id: string, text: string, holds: (c: PoolCtx) => boolean];

const RULES: readonly Rule[] = [
  ['types', 'input and output must be int8 quantized tensors', (c) => isInt8Quantized(c.input(0)) && isInt8Quantized(c.output(0))],
  ['rank', 'input and output must have rank 4', (c) => rank(c.input(0)) === 4 && rank(c.output(0)) === 4],
  ['qparams', 'input and output scales must match (within 1e-6) and zero points must be equal', (c) =>
    Math.abs(scaleOf(c.input(0)) - scaleOf(c.output(0))) <= 1e-6 && zeroPointOf(c.input(0)) === zeroPointOf(c.output(0))],
  ['window', 'strides and filter sizes must be >= 1', (c) => {
    const o = c.op.options;
    return o.strideH >= 1 && o.strideW >= 1 && o.filterH >= 1 && o.filterW >= 1;
  }],
  ['output-shape', 'output shape must be [N, outH, outW, C] from padding, filter and stride', (c) => {
    const o = c.op.options;
    const i = c.input(0);
    const y = c.output(0);
    const outH = convOutputSize(o.padding, dim(i, 1), o.filterH, o.strideH);
    const outW = convOutputSize(o.padding, dim(i, 2), o.filterW, o.strideW);
    return dim(y, 0) === dim(i, 0) && dim(y, 1) === outH && dim(y, 2) === outW && dim(y, 3) === dim(i, 3) && outH >= 1 && outW >= 1;
  }],
  ['activation', 'fused activation must be none, relu, relu6 or reluN1To1', (c) => fusableActivation(c.op.options.activation)],
];

export function poolConstraints<K extends PoolKind>(kind: K): Constraint<K>[] {
  return RULES.map(([id, text, holds]) => constraint<K>(`${kind}.${id}`, text, (c: OpContext<K>) => holds(c)));
}

export function preparePool(c: PoolCtx): Prepared {
  const o = c.op.options;
  const input = c.input(0)!;
  const output = c.output(0);
  const [n, inH, inW, depth] = input.shape as [number, number, number, number];
  const [, outH, outW] = output.shape as [number, number, number, number];
  const act = activationRange(o.activation, scaleOf(output), zeroPointOf(output));
  return unaryPrepared({
    batches: n, inH, inW, depth, outH, outW, fH: o.filterH, fW: o.filterW, strideH: o.strideH, strideW: o.strideW,
    padH: convPadding(o.strideH, 1, inH, o.filterH, outH).before,
    padW: convPadding(o.strideW, 1, inW, o.filterW, outW).before,
    actMin: act.min, actMax: act.max,
  });
}

/**
 * The pooling loop nest of TFLM's reference MaxPool / AveragePool: batch, out_y, out_x, channel,
 * then the filter window clipped to the input. Only the accumulator differs between the two:
 * its initial value, its update with the input element `x`, and the stored expression of `acc`.
 * `windowLets` are computed once per output position (after the clipped bounds).
 */
export function poolNest(acc: { readonly init: string; readonly update: (x: string) => string; readonly store: string }, windowLets: readonly Stmt[] = []): Nest {
  return [
    For('b', '0', 'batches', [
      For('outY', '0', 'outH', [
        Let('inYOrigin', 'outY * strideH - padH'),
        Let('fyStart', 'max(0, -inYOrigin)'),
        Let('fyEnd', 'min(fH, inH - inYOrigin)'),
        For('outX', '0', 'outW', [
          Let('inXOrigin', 'outX * strideW - padW'),
          Let('fxStart', 'max(0, -inXOrigin)'),
          Let('fxEnd', 'min(fW, inW - inXOrigin)'),
          ...windowLets,
          Let('outBase', '((b * outH + outY) * outW + outX) * depth'),
          For('ch', '0', 'depth', [
            Val('acc', acc.init),
            For('fy', 'fyStart', 'fyEnd', [
              Let('rowBase', '(b * inH + inYOrigin + fy) * inW + inXOrigin'),
              For('fx', 'fxStart', 'fxEnd', [Set('acc', acc.update('input[(rowBase + fx) * depth + ch]'))]),
            ]),
            Store('output', 'outBase + ch', acc.store),
          ]),
        ]),
      ]),
    ]),
  ];
}
