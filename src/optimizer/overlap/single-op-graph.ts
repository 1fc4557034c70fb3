// One-op int8 graphs for safe-overlap studies (`mcusim overlap`, DMO paper §III): builds a graph
// of a single op of any builtin kind from an input shape and window parameters, with plausible
// quantization (per-channel weight scales, output scales that keep multipliers below one) and
// seeded weights. The data never changes O_s (addresses do not depend on values).
import seedrandom from 'seedrandom';
import type { BuiltinKind, Graph, Op, Padding, Quantization, Tensor } from '../../ir/index.ts';
import { UsageError, convOutputSize } from '../../ir/index.ts';

export interface SingleOpSpec {
  readonly kind: BuiltinKind;
  /** Input activation shape (NHWC for window ops). */
  readonly input: readonly number[];
  readonly filter?: readonly [number, number];
  readonly outChannels?: number;
  readonly stride?: readonly [number, number];
  readonly dilation?: readonly [number, number];
  readonly padding?: Padding;
  readonly depthMultiplier?: number;
  /** concatenation / split / splitV axis (default: last). */
  readonly axis?: number;
  /** split: number of outputs; splitV: the sizes along the axis. */
  readonly splits?: number | readonly number[];
  /** concatenation: axis size of the second input; add/mul: its shape (broadcast). */
  readonly second?: number | readonly number[];
  /** pad: [before0, after0, before1, ...]. */
  readonly pads?: readonly number[];
  readonly perm?: readonly number[];
  /** stridedSlice begin / end / strides (one per dim, masks zero). */
  readonly slice?: { readonly begin: readonly number[]; readonly end: readonly number[]; readonly strides: readonly number[] };
  /** resizeNearestNeighbor / resizeBilinear: output [height, width] (default 2x) and flags. */
  readonly resize?: { readonly size: readonly [number, number]; readonly alignCorners?: boolean; readonly halfPixelCenters?: boolean };
  /** gather: the constant int32 indices along the axis (default: the axis positions reversed). */
  readonly indices?: readonly number[];
  /** spaceToDepth / depthToSpace block size; space/batch ops block [h, w] (default 2 / [2, 2]). */
  readonly block?: number | readonly number[];
  readonly seed?: string;
}

interface Ctx {
  readonly tensors: Tensor[];
  readonly rng: () => number;
}

const q = (scale: number, zeroPoint: number): Quantization => ({ scale: [Math.fround(scale)], zeroPoint: [zeroPoint], quantizedDimension: 0 });
const IN_Q = q(0.05, -3);

function add(c: Ctx, t: Tensor): number {
  c.tensors.push(t);
  return c.tensors.length - 1;
}
function act(c: Ctx, name: string, shape: readonly number[], quant: Quantization | null = IN_Q, dtype: Tensor['dtype'] = 'int8'): number {
  return add(c, { name, dtype, shape: [...shape], quant, data: null, isVariable: false });
}
function ints(c: Ctx, name: string, values: readonly number[], shape: readonly number[] = [values.length]): number {
  const data = new Uint8Array(values.length * 4);
  const dv = new DataView(data.buffer);
  values.forEach((v, i) => dv.setInt32(4 * i, v, true));
  return add(c, { name, dtype: 'int32', shape: [...shape], quant: null, data, isVariable: false });
}
function weights(c: Ctx, shape: readonly number[], channels: number, dim: number): number {
  const n = shape.reduce((a, b) => a * b, 1);
  const data = new Uint8Array(n);
  for (let i = 0; i < n; i++) data[i] = (Math.floor(c.rng() * 255) - 127) & 0xff;
  const scale = Array.from({ length: channels }, () => Math.fround(0.005 + 0.01 * c.rng()));
  return add(c, { name: 'weights', dtype: 'int8', shape: [...shape], quant: { scale, zeroPoint: scale.map(() => 0), quantizedDimension: dim }, data, isVariable: false });
}
function bias(c: Ctx, n: number): number {
  return ints(c, 'bias', Array.from({ length: n }, () => Math.floor(c.rng() * 2000) - 1000));
}
/** Output quant whose effective multiplier in*w/out stays well below one for `fan` taps. */
const outQ = (fan: number): Quantization => q(0.05 * 0.015 * Math.max(1, Math.sqrt(fan)) * 2, 5);

function need(v: number | undefined, what: string): number {
  if (v === undefined || !Number.isInteger(v) || v < 1) throw new UsageError(`${what} must be a positive integer`);
  return v;
}
function nhwc(s: SingleOpSpec): [number, number, number, number] {
  if (s.input.length !== 4) throw new UsageError(`--op ${s.kind} needs a 4-D input NxHxWxC`);
  return s.input as unknown as [number, number, number, number];
}
function norm(axis: number | undefined, rank: number): number {
  const a = axis ?? rank - 1;
  return a < 0 ? a + rank : a;
}

function window(s: SingleOpSpec, c: Ctx, x: number): { op: Op; out: readonly number[] } {
  const [n, h, w, ci] = nhwc(s);
  const [kh, kw] = s.filter ?? [3, 3];
  const [sh, sw] = s.stride ?? [1, 1];
  const [dh, dw] = s.dilation ?? [1, 1];
  const padding = s.padding ?? 'same';
  const oh = convOutputSize(padding, h, (kh - 1) * dh + 1, sh);
  const ow = convOutputSize(padding, w, (kw - 1) * dw + 1, sw);
  const conv = { padding, strideH: sh, strideW: sw, dilationH: dh, dilationW: dw, activation: 'none' as const };
  switch (s.kind) {
    case 'conv2d': {
      const co = need(s.outChannels ?? ci, '--out-channels');
      const f = weights(c, [co, kh, kw, ci], co, 0);
      const b = bias(c, co);
      const out = act(c, 'output', [n, oh, ow, co], outQ(kh * kw * ci));
      return { op: { kind: 'conv2d', inputs: [x, f, b], outputs: [out], options: conv }, out: [n, oh, ow, co] };
    }
    case 'depthwiseConv2d': {
      const m = need(s.depthMultiplier ?? 1, '--depth-multiplier');
      const f = weights(c, [1, kh, kw, ci * m], ci * m, 3);
      const b = bias(c, ci * m);
      const out = act(c, 'output', [n, oh, ow, ci * m], outQ(kh * kw));
      return { op: { kind: 'depthwiseConv2d', inputs: [x, f, b], outputs: [out], options: { ...conv, depthMultiplier: m } }, out: [n, oh, ow, ci * m] };
    }
    default: {
      const ph = convOutputSize(padding, h, kh, sh);
      const pw = convOutputSize(padding, w, kw, sw);
      const options = { padding, strideH: sh, strideW: sw, filterH: kh, filterW: kw, activation: 'none' as const };
      const out = act(c, 'output', [n, ph, pw, ci]);
      const kind = s.kind === 'maxPool2d' ? 'maxPool2d' : 'averagePool2d';
      return { op: { kind, inputs: [x], outputs: [out], options }, out: [n, ph, pw, ci] };
    }
  }
}

function variable(c: Ctx, name: string, shape: readonly number[], quant: Quantization, dtype: Tensor['dtype']): number {
  return add(c, { name, dtype, shape: [...shape], quant, data: null, isVariable: true });
}
function int16s(c: Ctx, name: string, shape: readonly number[], scale: number): number {
  const n = shape.reduce((a, b) => a * b, 1);
  const data = new Uint8Array(2 * n);
  const dv = new DataView(data.buffer);
  for (let i = 0; i < n; i++) dv.setInt16(2 * i, Math.floor(c.rng() * 2001) - 1000, true);
  return add(c, { name, dtype: 'int16', shape: [...shape], quant: q(scale, 0), data, isVariable: false });
}

/** SVDF: input BxI, --out-channels units, --filter RANKxMEMORY; int16 weights_time and state. */
function svdf(s: SingleOpSpec, c: Ctx): { op: Op; inputs: number[] } {
  if (s.input.length !== 2) throw new UsageError('--op svdf needs a 2-D input BxI');
  const [b = 1, k = 1] = s.input;
  const units = need(s.outChannels ?? 4, '--out-channels');
  const [rank, memory] = s.filter ?? [1, 4];
  need(rank, 'rank (--filter RANKxMEMORY)');
  need(memory, 'memory (--filter RANKxMEMORY)');
  const filters = units * rank;
  const stateScale = 0.01;
  const timeScale = 0.0002;
  const i = act(c, 'input', s.input);
  const wf = weights(c, [filters, k], 1, 0);
  const wt = int16s(c, 'weights_time', [filters, memory], timeScale);
  // TFLM's integer SVDF requires bias scale = state scale x weights_time scale.
  const bi = bias(c, units);
  c.tensors[bi] = { ...(c.tensors[bi] as Tensor), quant: q(Math.fround(stateScale) * Math.fround(timeScale), 0) };
  const st = variable(c, 'activation_state', [b, memory * filters], q(stateScale, 0), 'int16');
  const o = act(c, 'output', [b, units], q(0.02, 0));
  return { op: { kind: 'svdf', inputs: [i, wf, wt, bi, st], outputs: [o], options: { rank, activation: 'none', asymmetricQuantizeInputs: false } }, inputs: [i] };
}

/** UNIDIRECTIONAL_SEQUENCE_LSTM: batch-major input BxTxI, --out-channels units; int16 cell state. */
function lstm(s: SingleOpSpec, c: Ctx): { op: Op; inputs: number[] } {
  if (s.input.length !== 3) throw new UsageError('--op unidirectionalSequenceLstm needs a 3-D input BxTxI');
  const [b = 1, t = 1, k = 1] = s.input;
  const units = need(s.outChannels ?? 4, '--out-channels');
  const i = act(c, 'input', s.input);
  const inW = [0, 1, 2, 3].map(() => weights(c, [units, k], 1, 0));
  const recW = [0, 1, 2, 3].map(() => weights(c, [units, units], 1, 0));
  const biases = [0, 1, 2, 3].map(() => bias(c, units));
  const hQ = q(1 / 128, 0);
  const hidden = variable(c, 'output_state', [b, units], hQ, 'int8');
  const cell = variable(c, 'cell_state', [b, units], q(2 ** -11, 0), 'int16');
  const o = act(c, 'output', [b, t, units], hQ);
  const inputs = [i, ...inW, ...recW, -1, -1, -1, ...biases, -1, -1, hidden, cell, -1, -1, -1, -1];
  const options = { activation: 'tanh' as const, cellClip: 0, projClip: 0, timeMajor: false, asymmetricQuantizeInputs: false, diagonalRecurrentTensors: false };
  return { op: { kind: 'unidirectionalSequenceLstm', inputs, outputs: [o], options }, inputs: [i] };
}

function build(s: SingleOpSpec, c: Ctx): { op: Op; inputs: number[] } {
  const rank = s.input.length;
  const x = (): number => act(c, 'input', s.input);
  const same = (kind: 'relu' | 'relu6' | 'logistic' | 'quantize' | 'dequantize' | 'hardSwish' | 'tanh' | 'elu' | 'logSoftmax', outQuant: Quantization | null, dtype: Tensor['dtype'] = 'int8'): { op: Op; inputs: number[] } => {
    const i = x();
    const o = act(c, 'output', s.input, outQuant, dtype);
    return { op: { kind, inputs: [i], outputs: [o], options: {} }, inputs: [i] };
  };
  switch (s.kind) {
    case 'conv2d':
    case 'depthwiseConv2d':
    case 'maxPool2d':
    case 'averagePool2d': {
      const i = x();
      return { op: window(s, c, i).op, inputs: [i] };
    }
    case 'transposeConv': {
      const [n, h, w, ci] = nhwc(s);
      const [kh, kw] = s.filter ?? [3, 3];
      const [sh, sw] = s.stride ?? [1, 1];
      const padding = s.padding ?? 'same';
      const co = need(s.outChannels ?? ci, '--out-channels');
      const oh = padding === 'same' ? h * sh : (h - 1) * sh + kh;
      const ow = padding === 'same' ? w * sw : (w - 1) * sw + kw;
      const shape = ints(c, 'output_shape', [n, oh, ow, co]);
      const f = weights(c, [co, kh, kw, ci], co, 0);
      const i = x();
      const b = bias(c, co);
      const o = act(c, 'output', [n, oh, ow, co], outQ(kh * kw * ci));
      return { op: { kind: 'transposeConv', inputs: [shape, f, i, b], outputs: [o], options: { padding, strideH: sh, strideW: sw, activation: 'none' } }, inputs: [i] };
    }
    case 'fullyConnected': {
      const k = s.input[rank - 1] ?? 1;
      const batches = s.input.reduce((a, d) => a * d, 1) / k;
      const units = need(s.outChannels ?? k, '--out-channels');
      const i = x();
      const f = weights(c, [units, k], units, 0);
      const b = bias(c, units);
      const o = act(c, 'output', [batches, units], outQ(k));
      const options = { activation: 'none' as const, weightsFormat: 'default' as const, keepNumDims: false, asymmetricQuantizeInputs: false };
      return { op: { kind: 'fullyConnected', inputs: [i, f, b], outputs: [o], options }, inputs: [i] };
    }
    case 'add':
    case 'mul': {
      const i = x();
      const j = act(c, 'input2', Array.isArray(s.second) ? s.second : s.input, q(0.04, 2));
      const o = act(c, 'output', s.input, q(s.kind === 'add' ? 0.1 : 0.02, -1));
      const op: Op = s.kind === 'add'
        ? { kind: 'add', inputs: [i, j], outputs: [o], options: { activation: 'none', potScaleInt16: false } }
        : { kind: 'mul', inputs: [i, j], outputs: [o], options: { activation: 'none' } };
      return { op, inputs: [i, j] };
    }
    case 'concatenation': {
      const axis = norm(s.axis, rank);
      const i = x();
      const other = s.input.map((d, k) => (k === axis ? (typeof s.second === 'number' ? s.second : d) : d));
      const j = act(c, 'input2', other);
      const o = act(c, 'output', s.input.map((d, k) => (k === axis ? d + (other[k] ?? 0) : d)));
      return { op: { kind: 'concatenation', inputs: [i, j], outputs: [o], options: { axis, activation: 'none' } }, inputs: [i, j] };
    }
    case 'softmax': {
      const i = x();
      const o = act(c, 'output', s.input, q(1 / 256, -128));
      return { op: { kind: 'softmax', inputs: [i], outputs: [o], options: { beta: 1 } }, inputs: [i] };
    }
    case 'logistic':
      return same('logistic', q(1 / 256, -128));
    case 'relu':
    case 'relu6':
      return same(s.kind, q(0.05, -3));
    case 'quantize':
      return same('quantize', q(0.07, 4));
    case 'dequantize':
      return same('dequantize', null, 'float32');
    case 'leakyRelu': {
      const i = x();
      const o = act(c, 'output', s.input, q(0.04, -10));
      return { op: { kind: 'leakyRelu', inputs: [i], outputs: [o], options: { alpha: Math.fround(0.2) } }, inputs: [i] };
    }
    case 'mean': {
      const [n, , , ch] = nhwc(s);
      const i = x();
      const axes = ints(c, 'axes', [1, 2]);
      const o = act(c, 'output', [n, 1, 1, ch], q(0.04, 1));
      return { op: { kind: 'mean', inputs: [i, axes], outputs: [o], options: { keepDims: true } }, inputs: [i] };
    }
    case 'pad': {
      const pads = s.pads ?? s.input.flatMap((_, k) => (k === 0 || k === rank - 1 ? [0, 0] : [1, 1]));
      const i = x();
      const p = ints(c, 'paddings', pads, [rank, 2]);
      const o = act(c, 'output', s.input.map((d, k) => d + (pads[2 * k] ?? 0) + (pads[2 * k + 1] ?? 0)));
      return { op: { kind: 'pad', inputs: [i, p], outputs: [o], options: {} }, inputs: [i] };
    }
    case 'reshape': {
      const total = s.input.reduce((a, d) => a * d, 1);
      const shape = [s.input[0] ?? 1, total / (s.input[0] ?? 1)];
      const i = x();
      const o = act(c, 'output', shape);
      return { op: { kind: 'reshape', inputs: [i], outputs: [o], options: { newShape: shape } }, inputs: [i] };
    }
    case 'transpose': {
      const perm = s.perm ?? s.input.map((_, k) => rank - 1 - k);
      const i = x();
      const p = ints(c, 'perm', perm);
      const o = act(c, 'output', perm.map((d) => s.input[d] ?? 1));
      return { op: { kind: 'transpose', inputs: [i, p], outputs: [o], options: {} }, inputs: [i] };
    }
    case 'split':
    case 'splitV': {
      const axis = norm(s.axis, rank);
      const dim = s.input[axis] ?? 1;
      const count = typeof s.splits === 'number' ? s.splits : 1;
      const sizes: number[] = Array.isArray(s.splits) ? [...(s.splits as readonly number[])] : new Array<number>(count).fill(dim / count);
      if (sizes.reduce((a, b) => a + b, 0) !== dim || sizes.some((v) => !Number.isInteger(v) || v < 1)) throw new UsageError(`split sizes ${sizes.join(',')} do not divide axis ${axis} of size ${dim}`);
      const ax = ints(c, 'axis', [axis], []);
      const i = x();
      const outs = sizes.map((v, k) => act(c, `output${k}`, s.input.map((d, j) => (j === axis ? v : d))));
      if (s.kind === 'split') return { op: { kind: 'split', inputs: [ax, i], outputs: outs, options: { numSplits: sizes.length } }, inputs: [i] };
      const sz = ints(c, 'size_splits', sizes);
      return { op: { kind: 'splitV', inputs: [i, sz, ax], outputs: outs, options: { numSplits: sizes.length } }, inputs: [i] };
    }
    case 'stridedSlice': {
      const sl = s.slice ?? { begin: s.input.map(() => 0), end: [...s.input], strides: s.input.map((_, k) => (k === 1 ? 2 : 1)) };
      const i = x();
      const ins = [i, ints(c, 'begin', sl.begin), ints(c, 'end', sl.end), ints(c, 'strides', sl.strides)];
      const o = act(c, 'output', s.input.map((_, k) => Math.max(0, Math.ceil(((sl.end[k] ?? 0) - (sl.begin[k] ?? 0)) / (sl.strides[k] ?? 1)))));
      const options = { beginMask: 0, endMask: 0, ellipsisMask: 0, newAxisMask: 0, shrinkAxisMask: 0, offset: false };
      return { op: { kind: 'stridedSlice', inputs: ins, outputs: [o], options }, inputs: [i] };
    }
    case 'hardSwish':
    case 'elu':
      return same(s.kind, q(0.05, -3));
    case 'tanh':
      return same('tanh', q(1 / 128, 0));
    case 'logSoftmax':
      return same('logSoftmax', q(16 / 256, 127));
    case 'l2Normalization': {
      const i = x();
      const o = act(c, 'output', s.input, q(1 / 128, 0));
      return { op: { kind: 'l2Normalization', inputs: [i], outputs: [o], options: { activation: 'none' } }, inputs: [i] };
    }
    case 'prelu': {
      const shape = Array.isArray(s.second) ? s.second : s.input.slice(-1);
      const i = x();
      const n = shape.reduce((a, d) => a * d, 1);
      const data = new Uint8Array(n);
      for (let k = 0; k < n; k++) data[k] = Math.floor(c.rng() * 64);
      const alpha = add(c, { name: 'alpha', dtype: 'int8', shape: [...shape], quant: q(0.004, 0), data, isVariable: false });
      const o = act(c, 'output', s.input, q(0.04, -10));
      return { op: { kind: 'prelu', inputs: [i, alpha], outputs: [o], options: {} }, inputs: [i] };
    }
    case 'resizeNearestNeighbor':
    case 'resizeBilinear': {
      const [n, h, w, ch] = nhwc(s);
      const r = s.resize ?? { size: [2 * h, 2 * w] as const };
      const i = x();
      const size = ints(c, 'size', [...r.size]);
      const o = act(c, 'output', [n, r.size[0], r.size[1], ch]);
      const options = { alignCorners: r.alignCorners ?? false, halfPixelCenters: r.halfPixelCenters ?? false };
      const op: Op = s.kind === 'resizeBilinear'
        ? { kind: 'resizeBilinear', inputs: [i, size], outputs: [o], options }
        : { kind: 'resizeNearestNeighbor', inputs: [i, size], outputs: [o], options };
      return { op, inputs: [i] };
    }
    case 'sub':
    case 'squaredDifference':
    case 'maximum':
    case 'minimum': {
      const i = x();
      const same = s.kind === 'maximum' || s.kind === 'minimum';
      const j = act(c, 'input2', Array.isArray(s.second) ? s.second : s.input, same ? IN_Q : q(0.04, 2));
      const o = act(c, 'output', s.input, same ? IN_Q : q(s.kind === 'sub' ? 0.1 : 0.02, -1));
      const op: Op = s.kind === 'sub'
        ? { kind: 'sub', inputs: [i, j], outputs: [o], options: { activation: 'none', potScaleInt16: false } }
        : { kind: s.kind, inputs: [i, j], outputs: [o], options: {} };
      return { op, inputs: [i, j] };
    }
    case 'gather': {
      const axis = norm(s.axis ?? 0, rank);
      const dim = s.input[axis] ?? 1;
      const indices = s.indices ?? Array.from({ length: dim }, (_, k) => dim - 1 - k);
      if (indices.some((v) => !Number.isInteger(v) || v < 0 || v >= dim)) throw new UsageError(`gather indices must lie in [0, ${dim})`);
      const i = x();
      const idx = ints(c, 'indices', indices);
      const o = act(c, 'output', [...s.input.slice(0, axis), indices.length, ...s.input.slice(axis + 1)]);
      return { op: { kind: 'gather', inputs: [i, idx], outputs: [o], options: { axis, batchDims: 0 } }, inputs: [i] };
    }
    case 'shape': {
      const i = x();
      const o = act(c, 'output', [rank], null, 'int32');
      return { op: { kind: 'shape', inputs: [i], outputs: [o], options: { outType: 'int32' } }, inputs: [i] };
    }
    case 'pack': {
      const count = typeof s.splits === 'number' ? s.splits : 2;
      const axis = norm(s.axis ?? 0, rank + 1);
      const ins = Array.from({ length: count }, (_, k) => act(c, `input${k}`, s.input));
      const o = act(c, 'output', [...s.input.slice(0, axis), count, ...s.input.slice(axis)]);
      return { op: { kind: 'pack', inputs: ins, outputs: [o], options: { valuesCount: count, axis } }, inputs: ins };
    }
    case 'unpack': {
      const axis = norm(s.axis ?? 0, rank);
      const count = s.input[axis] ?? 1;
      const i = x();
      const outs = Array.from({ length: count }, (_, k) => act(c, `output${k}`, s.input.filter((_, d) => d !== axis)));
      return { op: { kind: 'unpack', inputs: [i], outputs: outs, options: { num: count, axis } }, inputs: [i] };
    }
    case 'fill': {
      const dims = ints(c, 'dims', s.input);
      const v = act(c, 'value', []);
      const o = act(c, 'output', s.input);
      return { op: { kind: 'fill', inputs: [dims, v], outputs: [o], options: {} }, inputs: [v] };
    }
    case 'expandDims': {
      const axis = norm(s.axis ?? 0, rank + 1);
      const i = x();
      const a = ints(c, 'axis', [axis], []);
      const o = act(c, 'output', [...s.input.slice(0, axis), 1, ...s.input.slice(axis)]);
      return { op: { kind: 'expandDims', inputs: [i, a], outputs: [o], options: {} }, inputs: [i] };
    }
    case 'squeeze': {
      const i = x();
      const o = act(c, 'output', s.input.filter((d) => d !== 1));
      return { op: { kind: 'squeeze', inputs: [i], outputs: [o], options: { squeezeDims: [] } }, inputs: [i] };
    }
    case 'spaceToDepth':
    case 'depthToSpace': {
      const [n, h, w, ch] = nhwc(s);
      const b = need(typeof s.block === 'number' ? s.block : 2, '--block');
      const toSpace = s.kind === 'depthToSpace';
      if (toSpace ? ch % (b * b) !== 0 : h % b !== 0 || w % b !== 0) throw new UsageError(`block ${b} does not divide the input ${s.input.join('x')}`);
      const i = x();
      const o = act(c, 'output', toSpace ? [n, h * b, w * b, ch / (b * b)] : [n, h / b, w / b, ch * b * b]);
      return { op: { kind: s.kind, inputs: [i], outputs: [o], options: { blockSize: b } }, inputs: [i] };
    }
    case 'spaceToBatchNd':
    case 'batchToSpaceNd': {
      const [n, h, w, ch] = nhwc(s);
      const [bh = 2, bw = 2] = Array.isArray(s.block) ? (s.block as readonly number[]) : [2, 2];
      const [pt = 0, pb = 0, pl = 0, pr = 0] = s.pads ?? [];
      const toSpace = s.kind === 'batchToSpaceNd';
      const out = toSpace ? [n / (bh * bw), h * bh - pt - pb, w * bw - pl - pr, ch] : [n * bh * bw, (h + pt + pb) / bh, (w + pl + pr) / bw, ch];
      if (out.some((d) => !Number.isInteger(d) || d < 1)) throw new UsageError(`block ${bh}x${bw} and pads do not fit the input ${s.input.join('x')}`);
      const i = x();
      const ins = [i, ints(c, 'block_shape', [bh, bw]), ints(c, toSpace ? 'crops' : 'paddings', [pt, pb, pl, pr], [2, 2])];
      const o = act(c, 'output', out);
      return { op: { kind: s.kind, inputs: ins, outputs: [o], options: {} }, inputs: [i] };
    }
    case 'spill':
    case 'fetching':
    case 'fetchingConv2d':
      throw new UsageError(`--op ${s.kind} needs a storage device and is not a single-op overlap case`);
    case 'merge':
      throw new UsageError('--op merge (FDT partial-accumulator merge) is not a single-op overlap case');
    case 'svdf':
      return svdf(s, c);
    case 'unidirectionalSequenceLstm':
      return lstm(s, c);
    default: {
      const never: never = s.kind;
      throw new UsageError(`unsupported op kind ${String(never)}`);
    }
  }
}

/** A one-op graph; graph inputs are the op's activation inputs, outputs all its outputs. */
export function buildSingleOpGraph(spec: SingleOpSpec): Graph {
  if (spec.input.length === 0 || spec.input.some((d) => !Number.isInteger(d) || d < 1)) {
    throw new UsageError(`input shape must be positive integers, got ${spec.input.join('x')}`);
  }
  const c: Ctx = { tensors: [], rng: seedrandom(spec.seed ?? 'overlap') };
  const { op, inputs } = build(spec, c);
  for (const o of op.outputs) {
    const shape = c.tensors[o]?.shape ?? [];
    if (shape.some((d) => d < 1)) throw new UsageError(`${spec.kind} on input ${spec.input.join('x')} has an empty output ${shape.join('x')}: O_s needs at least one output element`);
  }
  return { name: spec.kind, tensors: c.tensors, ops: [op], inputs, outputs: [...op.outputs] };
}
