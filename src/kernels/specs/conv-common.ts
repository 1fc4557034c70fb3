// Pieces shared by the int8 conv-family specs (conv2d, depthwiseConv2d, fullyConnected,
// fetchingConv2d, merge, transposeConv): the per-channel output stage of TFLM reference_integer_ops
// (bias, MultiplyByQuantizedMultiplier + output offset, activation clamp), ConvPerChannel's outer
// loops and filter taps and the offset-hoisted dot product as nest fragments, plus their common
// constraints, scalars and Prepared parts. Fragments are spliced in place, so each spec's loop and
// load order is unchanged.
import type { Activation, BuiltinKind, Padding, Tensor } from '../../ir/index.ts';
import { convOutputSize, convPadding } from '../../ir/index.ts';
import type { Nest, Stmt } from '../nest.ts';
import { For, If, Let, Set, Store } from '../nest.ts';
import { activationRange } from '../quant.ts';
import type { BufferRef, Constraint, OpContext, Prepared } from '../spec.ts';
import { constraint, count, dim, isInt8Quantized, rank, scaleOf, zeroPointOf } from './common.ts';

// ------------------------------------------------------------------ nest fragments

/** acc += bias[oc] when the op has a bias. */
export const addBias: Stmt = If('hasBias', [Set('acc', 'acc + bias[oc]')]);

/** Requantize acc (mbqm + output offset), clamp to the activation range, store at `outIndex`. */
export function requantizeStore(outIndex: string): Nest {
  return [
    Set('acc', 'mbqm(acc, mult[oc], shift[oc]) + outputOffset'),
    Store('output', outIndex, 'clamp(acc, actMin, actMax)'),
  ];
}

/** The full output stage: bias, requantize, clamp, store. */
export function outputStage(outIndex: string): Nest {
  return [addBias, ...requantizeStore(outIndex)];
}

/**
 * Batch / output-row / output-column / output-channel loops around `perOc`, with `rowLets` bound
 * per output row, then `colLets` and `base` (the flat index of (b, outY, outX, 0)) per column.
 */
export function outputLoops(perOc: Nest, base: string, rowLets: Nest = [], colLets: Nest = []): Nest {
  return [
    For('b', '0', 'batches', [
      For('outY', '0', 'outH', [
        ...rowLets,
        For('outX', '0', 'outW', [...colLets, Let(base, '((b * outH + outY) * outW + outX) * outD'), For('oc', '0', 'outD', perOc)]),
      ]),
    ]),
  ];
}

/** ConvPerChannel's output loops, with the input window origin of each output row and column. */
export function convOutputLoops(perOc: Nest): Nest {
  return outputLoops(perOc, 'outBase', [Let('inYOrigin', 'outY * strideH - padH')], [Let('inXOrigin', 'outX * strideW - padW')]);
}

/** ConvPerChannel's filter-tap loops: `inBounds` runs for each tap inside the input. */
export function convTaps(inBounds: Nest): Nest {
  return [
    For('fy', '0', 'fH', [
      Let('inY', 'inYOrigin + dilH * fy'),
      For('fx', '0', 'fW', [
        Let('inX', 'inXOrigin + dilW * fx'),
        If('inX >= 0 && inX < inW && inY >= 0 && inY < inH', inBounds),
      ]),
    ]),
  ];
}

/**
 * acc += sum over `v` in [0, n) of (input[inBase + v] + inputOffset) * `filterTerm`; with the
 * `hoist` flag the offset leaves the loop as inputOffset * fsum[`sumIndex`] (same loads, same order).
 */
export function hoistedDot(v: string, n: string, filterTerm: string, sumIndex: string): Stmt {
  return If('hoist', [
    For(v, '0', n, [Set('acc', `acc + input[inBase + ${v}] * ${filterTerm}`, 'mac')]),
    Set('acc', `acc + inputOffset * fsum[${sumIndex}]`),
  ], [
    For(v, '0', n, [Set('acc', `acc + (input[inBase + ${v}] + inputOffset) * ${filterTerm}`, 'mac')]),
  ]);
}

// ------------------------------------------------------------------ prepare helpers

interface Spatial {
  readonly padding: Padding;
  readonly strideH: number;
  readonly strideW: number;
  readonly dilationH: number;
  readonly dilationW: number;
}

/** Stride, dilation and leading padding scalars of a conv-like op. */
export function convGeometry(o: Spatial, inH: number, inW: number, fH: number, fW: number, outH: number, outW: number): Record<string, number> {
  return {
    strideH: o.strideH, strideW: o.strideW, dilH: o.dilationH, dilW: o.dilationW,
    padH: convPadding(o.strideH, o.dilationH, inH, fH, outH).before,
    padW: convPadding(o.strideW, o.dilationW, inW, fW, outW).before,
  };
}

export interface ConvDims {
  readonly batches: number;
  readonly inH: number;
  readonly inW: number;
  readonly inD: number;
  readonly outH: number;
  readonly outW: number;
  readonly outD: number;
  readonly fH: number;
  readonly fW: number;
}

/**
 * ConvPerChannel's scalars of NHWC input [N, H, W, C], filter [.., KH, KW, ..] and output
 * [N, outH, outW, outD]: sizes, then `extra`, stride / dilation / padding and output quantization.
 */
export function convScalars(
  o: Spatial & { readonly activation: Activation }, input: Tensor, filter: Tensor, output: Tensor, extra: Readonly<Record<string, number>> = {},
): ConvDims & Record<string, number> {
  const [batches, inH, inW, inD] = input.shape as [number, number, number, number];
  const [, fH, fW] = filter.shape as [number, number, number, number];
  const [, outH, outW, outD] = output.shape as [number, number, number, number];
  return {
    batches, inH, inW, inD, outH, outW, outD, fH, fW, ...extra,
    ...convGeometry(o, inH, inW, fH, fW, outH, outW),
    ...outputQuantScalars(input, output, o.activation),
  };
}

export interface OutputQuantScalars {
  readonly inputOffset: number;
  readonly outputOffset: number;
  readonly actMin: number;
  readonly actMax: number;
}

/** Input/output offsets and the fused activation range of an int8 output. */
export function outputQuantScalars(input: Tensor, output: Tensor, activation: Activation): OutputQuantScalars {
  const act = activationRange(activation, scaleOf(output), zeroPointOf(output));
  return { inputOffset: -zeroPointOf(input), outputOffset: zeroPointOf(output), actMin: act.min, actMax: act.max };
}

/** input (slot 0), filter (slot 1), optional bias (slot 2), `extra`, output (slot 0). */
export function filterOpBuffers(hasBias: boolean, extra: Readonly<Record<string, BufferRef>> = {}): Record<string, BufferRef> {
  return {
    input: { kind: 'input', slot: 0 },
    filter: { kind: 'input', slot: 1 },
    ...(hasBias ? { bias: { kind: 'input', slot: 2 } as const } : {}),
    ...extra,
    output: { kind: 'output', slot: 0 },
  };
}

/**
 * The Prepared of a filter op (input 0, filter 1, optional bias 2): `hasBias`, the scalars and the
 * per-channel multipliers. Passing `fsum` (null when the filter is not constant) adds the `hoist`
 * flag and, when non-null, binds the tap sums for hoistedDot.
 */
export function filterOpPrepared(
  bias: Tensor | null, scalars: Readonly<Record<string, number>>, m: { readonly mult: Int32Array; readonly shift: Int32Array }, fsum?: Int32Array | null,
): Prepared {
  return {
    flags: { hasBias: bias ? 1 : 0, ...(fsum === undefined ? {} : { hoist: fsum ? 1 : 0 }) },
    scalars,
    arrays: { mult: m.mult, shift: m.shift, ...(fsum ? { fsum } : {}) },
    buffers: filterOpBuffers(bias !== null),
    scratch: [],
  };
}

// ------------------------------------------------------------------ constraints

/** Output [N, outH, outW, ..] of input [N, H, W, ..] and filter [.., KH, KW, ..] under `o`. */
export function convSpatialShapeHolds(o: Spatial, input: Tensor | null, filter: Tensor | null, output: Tensor | null): boolean {
  return dim(output, 0) === dim(input, 0) &&
    dim(output, 1) === convOutputSize(o.padding, dim(input, 1), dim(filter, 1), o.strideH, o.dilationH) &&
    dim(output, 2) === convOutputSize(o.padding, dim(input, 2), dim(filter, 2), o.strideW, o.dilationW);
}

type Ctx<K extends BuiltinKind> = OpContext<K>;

/** `<kind>.types`: input 0, filter 1 and output 0 are int8 quantized. */
export function int8TypesConstraint<K extends BuiltinKind>(kind: K): Constraint<K> {
  return constraint(`${kind}.types`, 'input, filter and output must be int8 quantized tensors', (c: Ctx<K>) =>
    isInt8Quantized(c.input(0)) && isInt8Quantized(c.input(1)) && isInt8Quantized(c.output(0)));
}

/** `<kind>.rank`: input 0, filter 1 and output 0 have rank 4. */
export function rank4Constraint<K extends BuiltinKind>(kind: K): Constraint<K> {
  return constraint(`${kind}.rank`, 'input, filter and output must have rank 4', (c: Ctx<K>) =>
    rank(c.input(0)) === 4 && rank(c.input(1)) === 4 && rank(c.output(0)) === 4);
}

/** `<kind>.filter-scales`: one scale per output channel (filter dim `channelDim`) or one per tensor. */
export function filterScalesConstraint<K extends BuiltinKind>(kind: K, filterOf: (c: Ctx<K>) => Tensor | null, channelDim = 0): Constraint<K> {
  return constraint(`${kind}.filter-scales`, 'filter needs one scale per output channel or one per tensor', (c: Ctx<K>) => {
    const n = filterOf(c)?.quant?.scale.length ?? 0;
    return n === 1 || n === dim(filterOf(c), channelDim);
  });
}

/** `<kind>.bias`: an optional int32 bias with one element per output channel. */
export function biasConstraint<K extends BuiltinKind>(kind: K, biasOf: (c: Ctx<K>) => Tensor | null, channels: (c: Ctx<K>) => number): Constraint<K> {
  return constraint(`${kind}.bias`, 'bias, if present, must be int32 with one element per output channel', (c: Ctx<K>) => {
    const b = biasOf(c);
    return b === null || (b.dtype === 'int32' && count(b) === channels(c));
  });
}

/** `<kind>.stride`: strides and dilations >= 1. */
export function strideConstraint<K extends BuiltinKind>(kind: K, opts: (c: Ctx<K>) => Spatial): Constraint<K> {
  return constraint(`${kind}.stride`, 'strides and dilations must be >= 1', (c: Ctx<K>) => {
    const o = opts(c);
    return o.strideH >= 1 && o.strideW >= 1 && o.dilationH >= 1 && o.dilationW >= 1;
  });
}
