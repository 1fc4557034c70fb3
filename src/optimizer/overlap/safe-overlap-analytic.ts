// Analytic safe overlap O_s (DMO paper §III-D, eqs 1-15): a closed-form LOWER BOUND on how many
// bytes an op's input START may overlap its output END (output at [o, o+OB), input at
// o+OB-O_s) without a later read seeing a byte the op already wrote. Each TFLM reference loop
// nest is described as an affine nest (one output write per step, in output order); a straight
// line under its reads (eq 9) and maxW(i) = i (eq 10) give eq 11. Derivations: docs/safe-overlap.md.
import { DTYPE_BYTES, ModelError, convPadding, elementCount, UsageError } from '../../ir/index.ts';
import type { Graph, Op, Tensor } from '../../ir/index.ts';
import { bilinearTaps, nearestIndices, resizeSize } from '../../kernels/index.ts';

/**
 * One write per step, steps in increasing output-element order. Step index of loop point v
 * = stepOffset + sum(stepWeights[k] v[k]); a lower bound (in input elements) of the reads is
 * readOffset + sum(readWeights[k] v[k]). 'gather': bounds the reads made at that step before
 * its write (suffix minimum taken analytically). 'stream': bounds every read after the write.
 */
export interface AffineNest {
  readonly mode: 'gather' | 'stream';
  readonly extents: readonly number[];
  readonly stepWeights: readonly number[];
  readonly readWeights: readonly number[];
  readonly stepOffset: number;
  readonly readOffset: number;
}

/** How an op's reads of one input relate to its writes of one output. */
export type OverlapShape =
  | { readonly kind: 'nest'; readonly nest: AffineNest }
  /** Every read of the input precedes the first write (e.g. int8 TransposeConv via scratch). */
  | { readonly kind: 'readsFirst' }
  /** The output is written (zeroed) before the input is read: no overlap is safe. */
  | { readonly kind: 'writesFirst' };

export interface SafeOverlapOptions {
  /** Position in op.inputs / op.outputs of the pair; default: the op's data input, output 0. */
  readonly inputPosition?: number;
  readonly outputPosition?: number;
  /** 'paper' (default) keeps eqs 7-15 for conv/depthwise/pooling when they are provably a
   *  lower bound; 'tight' always takes the best tangent line over the loop rates. */
  readonly form?: 'paper' | 'tight';
}

interface Pair {
  readonly input: Tensor;
  readonly output: Tensor;
  readonly inputPosition: number;
  readonly outputPosition: number;
}

function fail(op: Op, what: string): never {
  throw new ModelError('E_MODEL_SHAPE', `safe overlap of ${op.kind}: ${what}`);
}

/** Position in op.inputs of the activation the op streams through. */
export function primaryInputPosition(op: Op): number {
  if (op.kind === 'transposeConv') return 2;
  if (op.kind === 'split') return 1;
  return 0;
}

function tensorAt(graph: Graph, op: Op, index: number | undefined, what: string): Tensor {
  const t = index === undefined || index < 0 ? undefined : graph.tensors[index];
  if (t === undefined) fail(op, `${what} is missing`);
  return t;
}

/** Constant int32/int64 tensor contents, or null when the tensor is not a constant. */
function constInts(graph: Graph, index: number | undefined): number[] | null {
  const t = index === undefined || index < 0 ? undefined : graph.tensors[index];
  if (!t?.data || (t.dtype !== 'int32' && t.dtype !== 'int64')) return null;
  const width = DTYPE_BYTES[t.dtype];
  const n = Math.floor(t.data.byteLength / width);
  const view = new DataView(t.data.buffer, t.data.byteOffset, t.data.byteLength);
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push(width === 4 ? view.getInt32(i * 4, true) : Number(view.getBigInt64(i * 8, true)));
  return out;
}

function stridesOf(shape: readonly number[]): number[] {
  const s = shape.map(() => 1);
  for (let d = shape.length - 2; d >= 0; d--) s[d] = (s[d + 1] ?? 1) * (shape[d + 1] ?? 1);
  return s;
}

function nhwc(op: Op, t: Tensor, what: string): [number, number, number, number] {
  if (t.shape.length !== 4) fail(op, `${what} '${t.name}' is not 4-D`);
  const [b, h, w, c] = t.shape as [number, number, number, number];
  return [b, h, w, c];
}

function elementwise(n: number): AffineNest {
  return { mode: 'gather', extents: [n], stepWeights: [1], readWeights: [1], stepOffset: 0, readOffset: 0 };
}

/** Reads anywhere, last write after the last read: the universal gather bound (one element). */
function unknownGather(n: number): AffineNest {
  return { mode: 'gather', extents: [n], stepWeights: [1], readWeights: [0], stepOffset: 0, readOffset: 0 };
}

/** Output-ordered loops over `outShape` reading input element readOffset + sum(v_d readStride_d). */
function overOutput(outShape: readonly number[], readStrides: readonly number[], readOffset: number): AffineNest {
  return { mode: 'gather', extents: outShape, stepWeights: stridesOf(outShape), readWeights: readStrides, stepOffset: 0, readOffset };
}

interface Window {
  readonly strideH: number;
  readonly strideW: number;
  readonly dilationH: number;
  readonly dilationW: number;
  readonly filterH: number;
  readonly filterW: number;
}

/** conv2d / depthwiseConv2d / pooling loop nests (TFLM reference integer_ops). */
function windowNest(op: Op, p: Pair, w: Window, kind: 'conv' | 'depthwise' | 'pool'): AffineNest {
  const [b, ih, iw, ic] = nhwc(op, p.input, 'input');
  const [ob, oh, ow, oc] = nhwc(op, p.output, 'output');
  if (ob !== b) fail(op, 'batch of input and output differ');
  const ph = convPadding(w.strideH, w.dilationH, ih, w.filterH, oh).before;
  const pw = convPadding(w.strideW, w.dilationW, iw, w.filterW, ow).before;
  const readOffset = -(ph * iw + pw) * ic;
  const outer = [b, oh, ow];
  const outerSteps = [oh * ow * oc, ow * oc, oc];
  const outerReads = [ih * iw * ic, w.strideH * iw * ic, w.strideW * ic];
  if (kind === 'conv') {
    // batch, out_y, out_x, out_channel; every input channel is read at every step.
    return { mode: 'gather', extents: [...outer, oc], stepWeights: [...outerSteps, 1], readWeights: [...outerReads, 0], stepOffset: 0, readOffset };
  }
  if (kind === 'pool') {
    return { mode: 'gather', extents: [...outer, oc], stepWeights: [...outerSteps, 1], readWeights: [...outerReads, 1], stepOffset: 0, readOffset };
  }
  // depthwise: batch, out_y, out_x, in_channel, m (output channel = in_channel * m + m).
  const m = ic > 0 ? oc / ic : 0;
  if (!Number.isInteger(m) || m < 1) fail(op, 'output channels are not a multiple of input channels');
  return {
    mode: 'gather',
    extents: [...outer, ic, m],
    stepWeights: [...outerSteps, m, 1],
    readWeights: [...outerReads, 1, 0],
    stepOffset: 0,
    readOffset,
  };
}

function axisOf(axis: number, rank: number, op: Op): number {
  const a = axis < 0 ? axis + rank : axis;
  if (!Number.isInteger(a) || a < 0 || a >= rank) fail(op, `axis ${axis} out of range for rank ${rank}`);
  return a;
}

function product(xs: readonly number[]): number {
  return xs.reduce((a, b) => a * b, 1);
}

function broadcastNest(p: Pair): AffineNest {
  const out = p.output.shape;
  const inShape = [...Array<number>(Math.max(0, out.length - p.input.shape.length)).fill(1), ...p.input.shape];
  const inStrides = stridesOf(inShape);
  const reads = out.map((d, k) => ((inShape[k] ?? 1) === 1 && d !== 1 ? 0 : (inStrides[k] ?? 0)));
  return overOutput(out, reads, 0);
}

function splitNest(op: Op, graph: Graph, p: Pair, axisTensor: number | undefined): AffineNest {
  const n = elementCount(p.output.shape);
  const axisData = constInts(graph, axisTensor);
  if (axisData?.[0] === undefined) return unknownGather(n);
  const rank = p.input.shape.length;
  const axis = axisOf(axisData[0], rank, op);
  const inner = product(p.input.shape.slice(axis + 1));
  const outer = product(p.input.shape.slice(0, axis));
  const total = (p.input.shape[axis] ?? 0) * inner;
  let offset = 0;
  for (let k = 0; k < p.outputPosition; k++) {
    offset += (tensorAt(graph, op, op.outputs[k], `output ${k}`).shape[axis] ?? 0) * inner;
  }
  const copy = (p.output.shape[axis] ?? 0) * inner;
  // The input is read strictly in order, so after writing output element (o, t) every later
  // read is at o*total + offset + t + 1 or beyond.
  return { mode: 'stream', extents: [outer, copy], stepWeights: [copy, 1], readWeights: [total, 1], stepOffset: 0, readOffset: offset + 1 };
}

function stridedSliceNest(op: Op & { kind: 'stridedSlice' }, graph: Graph, p: Pair): AffineNest {
  const n = elementCount(p.output.shape);
  const o = op.options;
  const begin = constInts(graph, op.inputs[1]);
  const end = constInts(graph, op.inputs[2]);
  const strides = constInts(graph, op.inputs[3]);
  const dims = p.input.shape;
  if (!begin || !end || !strides || o.ellipsisMask !== 0 || o.newAxisMask !== 0 || o.offset) return unknownGather(n);
  if (begin.length !== dims.length || end.length !== dims.length || strides.length !== dims.length) return unknownGather(n);
  if (strides.some((s) => s <= 0)) return unknownGather(n);
  const inStrides = stridesOf(dims);
  const extents: number[] = [];
  const reads: number[] = [];
  let readOffset = 0;
  for (let d = 0; d < dims.length; d++) {
    const dim = dims[d] ?? 0;
    const clamp = (x: number): number => Math.min(Math.max(x < 0 ? x + dim : x, 0), dim);
    const start = (o.beginMask >> d) & 1 ? 0 : clamp(begin[d] ?? 0);
    const shrink = ((o.shrinkAxisMask >> d) & 1) === 1;
    const stop = shrink ? start + 1 : (o.endMask >> d) & 1 ? dim : clamp(end[d] ?? 0);
    const stride = strides[d] ?? 1;
    extents.push(Math.max(0, Math.ceil((stop - start) / stride)));
    reads.push(stride * (inStrides[d] ?? 0));
    readOffset += start * (inStrides[d] ?? 0);
  }
  if (product(extents) !== n) return unknownGather(n);
  return overOutput(extents, reads, readOffset);
}

/**
 * RESIZE_*: output-ordered copies / 4-tap sums reading input pixel (b, rows[y], cols[x]) at the
 * lowest; rows[y] >= ay*y + min_y(rows[y] - ay*y) with ay the chord slope, likewise for columns,
 * so the affine bound is exact at its minimum (a tiny margin absorbs rounding of the slopes).
 */
function resizeNest(op: Op, graph: Graph, p: Pair, rowsOf: (inSize: number, outSize: number) => Int32Array): AffineNest {
  const n = elementCount(p.output.shape);
  const size = resizeSize(graph.tensors[op.inputs[1] ?? -1] ?? null);
  if (p.inputPosition !== 0 || size === null) return unknownGather(n);
  const [b, h, w, c] = nhwc(op, p.input, 'input');
  const [, oh, ow] = nhwc(op, p.output, 'output');
  const line = (idx: Int32Array): { slope: number; offset: number } => {
    const last = idx.length - 1;
    const slope = last > 0 ? ((idx[last] ?? 0) - (idx[0] ?? 0)) / last : 0;
    let offset = Infinity;
    idx.forEach((v, k) => (offset = Math.min(offset, v - slope * k)));
    return { slope, offset };
  };
  const ry = line(rowsOf(h, oh));
  const rx = line(rowsOf(w, ow));
  return {
    mode: 'gather',
    extents: [b, oh, ow, c],
    stepWeights: stridesOf(p.output.shape),
    readWeights: [h * w * c, ry.slope * w * c, rx.slope * c, 1],
    stepOffset: 0,
    readOffset: ry.offset * w * c + rx.offset * c - 1e-6,
  };
}

/** The loop-nest description of `op` for one (input, output) pair. */
export function overlapShapeOf(op: Op, graph: Graph, p: Pair): OverlapShape {
  const n = elementCount(p.output.shape);
  const nest = (x: AffineNest): OverlapShape => ({ kind: 'nest', nest: x });
  switch (op.kind) {
    case 'conv2d': {
      const f = tensorAt(graph, op, op.inputs[1], 'filter');
      const [, fh, fw] = nhwc(op, f, 'filter');
      return nest(windowNest(op, p, { ...op.options, filterH: fh, filterW: fw }, 'conv'));
    }
    case 'depthwiseConv2d': {
      const f = tensorAt(graph, op, op.inputs[1], 'filter');
      const [, fh, fw] = nhwc(op, f, 'filter');
      return nest(windowNest(op, p, { ...op.options, filterH: fh, filterW: fw }, 'depthwise'));
    }
    case 'maxPool2d':
    case 'averagePool2d':
      return nest(windowNest(op, p, { ...op.options, dilationH: 1, dilationW: 1 }, 'pool'));
    case 'transposeConv':
      // Scratch-free gather form (mcusim): output-ordered, reading input rows near outY / stride,
      // not affine in the output index; the trivial gather bound stays a safe lower bound.
      if (op.options.scratchFree === true) return nest(unknownGather(n));
      // int8/int16: accumulate into an int32 scratch, then write the output; float: the
      // reference zeroes the output first and accumulates into it.
      return p.input.dtype === 'float32' ? { kind: 'writesFirst' } : { kind: 'readsFirst' };
    case 'fullyConnected': {
      const f = tensorAt(graph, op, op.inputs[1], 'weights');
      const depth = f.shape[f.shape.length - 1] ?? 0;
      const units = f.shape[0] ?? 0;
      const batches = depth > 0 && units > 0 ? n / units : 0;
      if (!Number.isInteger(batches)) fail(op, 'output size is not a multiple of the weight rows');
      return nest({ mode: 'gather', extents: [batches, units], stepWeights: [units, 1], readWeights: [depth, 0], stepOffset: 0, readOffset: 0 });
    }
    case 'concatenation': {
      const rank = p.output.shape.length;
      const axis = axisOf(op.options.axis, rank, op);
      const inner = product(p.output.shape.slice(axis + 1));
      const outer = product(p.output.shape.slice(0, axis));
      const total = (p.output.shape[axis] ?? 0) * inner;
      let offset = 0;
      for (let k = 0; k < p.inputPosition; k++) offset += (tensorAt(graph, op, op.inputs[k], `input ${k}`).shape[axis] ?? 0) * inner;
      const copy = (p.input.shape[axis] ?? 0) * inner;
      return nest({ mode: 'gather', extents: [outer, copy], stepWeights: [total, 1], readWeights: [copy, 1], stepOffset: offset, readOffset: 0 });
    }
    case 'add':
    case 'mul':
      return nest(broadcastNest(p));
    case 'pad': {
      const pads = constInts(graph, op.inputs[1]);
      const rank = p.input.shape.length;
      if (!pads || pads.length !== 2 * rank) return nest(unknownGather(n));
      const inStrides = stridesOf(p.input.shape);
      const readOffset = -inStrides.reduce((s, st, d) => s + st * (pads[2 * d] ?? 0), 0);
      return nest(overOutput(p.output.shape, inStrides, readOffset));
    }
    // TFLM's int8 MEAN zeroes its output (and int32 sums) before reading any input element.
    case 'mean':
      return { kind: 'writesFirst' };
    case 'split':
      return nest(splitNest(op, graph, p, op.inputs[0]));
    case 'splitV':
      return nest(splitNest(op, graph, p, op.inputs[2]));
    case 'stridedSlice':
      return nest(stridedSliceNest(op, graph, p));
    case 'transpose': {
      const perm = constInts(graph, op.inputs[1]);
      const inStrides = stridesOf(p.input.shape);
      if (!perm || perm.length !== p.output.shape.length) return nest(unknownGather(n));
      return nest(overOutput(p.output.shape, perm.map((d) => inStrides[d] ?? 0), 0));
    }
    case 'prelu':
      return nest(broadcastNest(p));
    case 'resizeNearestNeighbor': {
      const o = op.options;
      return nest(resizeNest(op, graph, p, (i, k) => nearestIndices(i, k, o.alignCorners, o.halfPixelCenters)));
    }
    case 'resizeBilinear': {
      const o = op.options;
      return nest(resizeNest(op, graph, p, (i, k) => bilinearTaps(i, k, o.alignCorners, o.halfPixelCenters).lower));
    }
    case 'softmax':
    case 'logSoftmax':
    case 'l2Normalization':
    // Per row: max pass and sum pass read the row before its first write, then element c is
    // read right before it is written, so step (row, c) reads nothing below row*depth + c.
    case 'reshape':
    case 'quantize':
    case 'dequantize':
    case 'logistic':
    case 'relu':
    case 'relu6':
    case 'leakyRelu':
    case 'hardSwish':
    case 'tanh':
    case 'elu':
      return nest(elementwise(n));
    case 'spill':
    case 'fetching':
    case 'fetchingConv2d':
    // merge reads its int32 accumulator input and writes the same positions: no closed form is
    // derived yet, so the bound is the always-safe "no overlap".
    case 'merge':
    case 'custom':
      return { kind: 'writesFirst' };
    default: {
      const never: never = op;
      return never;
    }
  }
}

/** Intercept of the tightest line of slope a under the reads: the separable minimum over the box. */
function interceptAt(nest: AffineNest, a: number): number {
  let b = nest.readOffset - a * nest.stepOffset;
  nest.extents.forEach((n, k) => {
    b += Math.min(0, ((nest.readWeights[k] ?? 0) - a * (nest.stepWeights[k] ?? 0)) * (n - 1));
  });
  return b;
}

/** O_s in bytes for slope `a`: eq 11 generalised to input/output element sizes ti, to. */
export function nestSafeOverlapBytes(nest: AffineNest, a: number, outElements: number, ti: number, to: number): number {
  const ob = outElements * to;
  if (outElements <= 1) return ob;
  if (nest.mode === 'gather' && a < 0) return 0;
  const b = interceptAt(nest, a);
  // Lambda(w) <= every read after the write of output element w.
  const beta = nest.mode === 'gather' ? b + a : b;
  const h = (w: number): number => ti * Math.max(0, a * w + beta) - to * (w + 1);
  const last = outElements - 2;
  let minD = Math.min(h(0), h(last));
  if (a !== 0) {
    const kink = -beta / a;
    if (kink > 0 && kink < last) minD = Math.min(minD, h(kink));
  }
  return Math.max(0, Math.min(ob, Math.floor(ob + Math.min(0, minD) + 1e-9)));
}

/** Candidate slopes: each loop's own read rate, the overall rate, and 0. */
function slopes(nest: AffineNest): number[] {
  const out = new Set<number>([0]);
  nest.extents.forEach((_, k) => {
    const w = nest.stepWeights[k] ?? 0;
    const r = nest.readWeights[k] ?? 0;
    if (w > 0 && r > 0) out.add(r / w);
  });
  return [...out];
}

/** Best tangent-line bound over the candidate slopes (each one alone is a valid lower bound). */
export function tightSafeOverlapBytes(nest: AffineNest, outElements: number, ti: number, to: number): number {
  return Math.max(...slopes(nest).map((a) => nestSafeOverlapBytes(nest, a, outElements, ti, to)));
}

/** Paper eqs 7/8, 12/13, 14/15 (a, b in elements) for the three families it derives. */
function paperLine(op: Op, graph: Graph, p: Pair): { a: number; b: number } | null {
  if (op.kind !== 'conv2d' && op.kind !== 'depthwiseConv2d' && op.kind !== 'maxPool2d' && op.kind !== 'averagePool2d') return null;
  const [, ih, iw, id] = nhwc(op, p.input, 'input');
  const [, oh, ow, od] = nhwc(op, p.output, 'output');
  const sh = op.options.strideH;
  const sw = op.options.strideW;
  const isPool = op.kind === 'maxPool2d' || op.kind === 'averagePool2d';
  const f = isPool ? null : nhwc(op, tensorAt(graph, op, op.inputs[1], 'filter'), 'filter');
  const fh = isPool ? op.options.filterH : (f?.[1] ?? 1);
  const fw = isPool ? op.options.filterW : (f?.[2] ?? 1);
  const dh = isPool ? 1 : op.options.dilationH;
  const dw = isPool ? 1 : op.options.dilationW;
  const ph = convPadding(sh, dh, ih, fh, oh).before; // eq 5
  const pw = convPadding(sw, dw, iw, fw, ow).before; // eq 6
  const core = ow * sw - ph * iw - sh * iw - sw - pw;
  if (op.kind === 'depthwiseConv2d') return { a: (sh * iw) / (ow * (od / id)), b: (core + 1) * id };
  if (op.kind === 'conv2d') return { a: (sh * iw * id) / (ow * od), b: core * id + 1 };
  return { a: (sh * iw) / ow, b: core * id + 1 };
}

function paperSafeOverlapBytes(line: { a: number; b: number }, outElements: number, t: number): number {
  const { a, b } = line;
  const ob = outElements * t;
  const d = Math.min(0, b / a, a * outElements + b - outElements); // eq 11
  return Math.max(0, Math.min(ob, Math.floor(ob + d * t + 1e-9)));
}

/**
 * Analytic lower bound of O_s in bytes for `op` (one input/output pair). `elementBytes`
 * overrides both element sizes (e.g. 4 to evaluate a float32 instance); default: the dtypes.
 */
export function analyticSafeOverlap(op: Op, graph: Graph, elementBytes?: number, options: SafeOverlapOptions = {}): number {
  if (elementBytes !== undefined && (!Number.isInteger(elementBytes) || elementBytes < 1)) {
    throw new UsageError(`element size must be a positive integer, got ${elementBytes}`);
  }
  const inputPosition = options.inputPosition ?? primaryInputPosition(op);
  const outputPosition = options.outputPosition ?? 0;
  const input = tensorAt(graph, op, op.inputs[inputPosition], `input ${inputPosition}`);
  const output = tensorAt(graph, op, op.outputs[outputPosition], `output ${outputPosition}`);
  const pair: Pair = { input, output, inputPosition, outputPosition };
  const ti = elementBytes ?? DTYPE_BYTES[input.dtype];
  const to = elementBytes ?? DTYPE_BYTES[output.dtype];
  const n = elementCount(output.shape);
  const shape = overlapShapeOf(op, graph, pair);
  if (shape.kind === 'readsFirst') return n * to;
  if (shape.kind === 'writesFirst') return 0;
  const tight = tightSafeOverlapBytes(shape.nest, n, ti, to);
  if (options.form === 'tight' || ti !== to) return tight;
  const line = paperLine(op, graph, pair);
  // The paper's line is used only where it provably lies under every read.
  if (line && line.a >= 0 && line.b <= interceptAt(shape.nest, line.a) + 1e-9) return paperSafeOverlapBytes(line, n, to);
  return tight;
}
