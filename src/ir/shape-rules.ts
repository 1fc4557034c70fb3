// Per-kind op rules: input/output arity, optional inputs, dtypes, option ranges and the output
// shape each kind must have, as the TFLite/TFLM Prepare functions compute it (conv.cc,
// depthwise_conv.cc, transpose_conv.cc, pooling.cc, concatenation.cc, fully_connected.cc, ...).
// validateModel runs them on every op; custom ops have no shape rule.
import { DTYPE_BYTES, elementCount } from './dtype.ts';
import type { DType } from './dtype.ts';
import type { ErrorCode, Issue } from './errors.ts';
import type { BuiltinKind, BuiltinOp, OpOptionsMap, Tensor } from './graph.ts';
import { convOutputSize } from './padding.ts';

/** What a rule sees: the op's tensors (null = omitted optional input) and a reporter. */
export interface OpRuleContext<K extends BuiltinKind> {
  readonly options: OpOptionsMap[K];
  readonly inputs: readonly (Tensor | null)[];
  readonly outputs: readonly Tensor[];
  /** Reports a problem; `tensorSlot` names an input (>= 0) or output (-1 - k) of the op. */
  readonly report: (code: ErrorCode, message: string, tensorSlot?: number) => void;
}

export interface OpRule<K extends BuiltinKind> {
  readonly minInputs: number;
  readonly maxInputs: number;
  /** Input positions that may be -1 (omitted), e.g. the bias. */
  readonly optionalInputs: readonly number[];
  readonly outputs: (options: OpOptionsMap[K]) => number;
  readonly check: (c: OpRuleContext<K>) => void;
}

export const MAX_INDEX_TENSOR_ELEMENTS = 64;
const INDEX_DTYPES: readonly DType[] = ['int32', 'int64'];
const BIAS_DTYPES: readonly DType[] = ['int32', 'int64', 'float32', 'float16'];

export function formatShape(shape: readonly number[]): string {
  return `[${shape.join(',')}]`;
}
function sameShape(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((d, i) => d === b[i]);
}

/** numpy-style right-aligned broadcast of two shapes, or null when they do not broadcast. */
export function broadcastShapes(a: readonly number[], b: readonly number[]): number[] | null {
  const rank = Math.max(a.length, b.length);
  const out: number[] = [];
  for (let i = 0; i < rank; i++) {
    const da = a[a.length - rank + i] ?? 1;
    const db = b[b.length - rank + i] ?? 1;
    if (da !== db && da !== 1 && db !== 1) return null;
    out.push(da === 1 ? db : da);
  }
  return out;
}

/** The integer values of a small constant int32/int64 tensor (axis, shape, paddings...), else null. */
export function constInts(t: Tensor | null): number[] | null {
  if (t === null || t.data === null || !INDEX_DTYPES.includes(t.dtype)) return null;
  const n = elementCount(t.shape);
  const width = DTYPE_BYTES[t.dtype];
  if (!(n >= 0 && n <= MAX_INDEX_TENSOR_ELEMENTS) || t.data.length !== n * width) return null;
  const view = new DataView(t.data.buffer, t.data.byteOffset, t.data.length);
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push(width === 4 ? view.getInt32(i * 4, true) : Number(view.getBigInt64(i * 8, true)));
  return out;
}

function positive(c: OpRuleContext<BuiltinKind>, values: Readonly<Record<string, number>>): boolean {
  let ok = true;
  for (const [name, v] of Object.entries(values)) {
    if (!Number.isInteger(v) || v < 1) {
      c.report('E_MODEL_INVALID', `option ${name} must be a positive integer, got ${v}`);
      ok = false;
    }
  }
  return ok;
}
function rank(c: OpRuleContext<BuiltinKind>, t: Tensor, slot: number, want: number, what: string): boolean {
  if (t.shape.length === want) return true;
  c.report('E_MODEL_SHAPE', `${what} must have rank ${want}, has shape ${formatShape(t.shape)}`, slot);
  return false;
}
function dtypeIn(c: OpRuleContext<BuiltinKind>, t: Tensor, slot: number, allowed: readonly DType[], what: string): void {
  if (!allowed.includes(t.dtype)) c.report('E_MODEL_DTYPE', `${what} has dtype ${t.dtype}, expected ${allowed.join(' or ')}`, slot);
}
function sameDtype(c: OpRuleContext<BuiltinKind>, t: Tensor, slot: number, ref: Tensor, what: string): void {
  if (t.dtype !== ref.dtype) c.report('E_MODEL_DTYPE', `${what} has dtype ${t.dtype}, expected ${ref.dtype} like input 0`, slot);
}
function outputShape(c: OpRuleContext<BuiltinKind>, k: number, expected: readonly number[]): void {
  const out = c.outputs[k];
  if (out !== undefined && !sameShape(out.shape, expected)) {
    c.report('E_MODEL_SHAPE', `output ${k} has shape ${formatShape(out.shape)}, expected ${formatShape(expected)}`, -1 - k);
  }
}
function biasCount(c: OpRuleContext<BuiltinKind>, slot: number, channels: number): void {
  const bias = c.inputs[slot];
  if (bias === null || bias === undefined) return;
  dtypeIn(c, bias, slot, BIAS_DTYPES, 'bias');
  if (elementCount(bias.shape) !== channels) c.report('E_MODEL_SHAPE', `bias has shape ${formatShape(bias.shape)}, expected ${channels} elements`, slot);
}
function normalizeAxis(c: OpRuleContext<BuiltinKind>, axis: number, r: number, slot?: number): number | null {
  if (!Number.isInteger(axis) || axis < -r || axis >= r) {
    c.report('E_MODEL_INVALID', `axis ${axis} out of range for rank ${r}`, slot);
    return null;
  }
  return axis < 0 ? axis + r : axis;
}
/** Shape with at most one -1 resolved against `count` elements, or null (reported). */
function resolveShape(c: OpRuleContext<BuiltinKind>, shape: readonly number[], count: number, slot: number): number[] | null {
  const unknown = shape.filter((d) => d === -1).length;
  const known = shape.reduce((p, d) => (d === -1 ? p : p * d), 1);
  const ok = unknown <= 1 && shape.every((d) => d >= -1) && (unknown === 0 || (known > 0 && count % known === 0));
  if (!ok) {
    c.report('E_MODEL_SHAPE', `cannot reshape ${count} elements to ${formatShape(shape)}`, slot);
    return null;
  }
  return shape.map((d) => (d === -1 ? count / known : d));
}

const one = (): number => 1;
/** A rule taking [min, max] inputs; `optionalInputs` may be -1; one output unless `outputs` says. */
function rule<K extends BuiltinKind>(
  [minInputs, maxInputs]: readonly [number, number],
  check: (c: OpRuleContext<K>) => void,
  optionalInputs: readonly number[] = [],
  outputs: (options: OpOptionsMap[K]) => number = one,
): OpRule<K> {
  return { minInputs, maxInputs, optionalInputs, outputs, check };
}
const elementwise = <K extends BuiltinKind>(): OpRule<K> =>
  rule([1, 1], (c) => {
    sameDtype(c, c.outputs[0]!, -1, c.inputs[0]!, 'output');
    outputShape(c, 0, c.inputs[0]!.shape);
  });

function checkConv(c: OpRuleContext<'conv2d' | 'depthwiseConv2d'>, depthwise: boolean): void {
  const o = c.options;
  const x = c.inputs[0]!;
  const w = c.inputs[1]!;
  const y = c.outputs[0]!;
  const optionsOk = positive(c, { strideH: o.strideH, strideW: o.strideW, dilationH: o.dilationH, dilationW: o.dilationW });
  sameDtype(c, y, -1, x, 'output');
  if (!(rank(c, x, 0, 4, 'input') && rank(c, w, 1, 4, 'filter') && optionsOk)) return;
  const [n = 0, h = 0, wd = 0, cin = 0] = x.shape;
  const [w0 = 0, kh = 0, kw = 0, w3 = 0] = w.shape;
  let cout = w0;
  if (depthwise) {
    cout = w3;
    const dm = 'depthMultiplier' in o ? o.depthMultiplier : 1;
    if (w0 !== 1) c.report('E_MODEL_SHAPE', `depthwise filter must be [1,KH,KW,C], has ${formatShape(w.shape)}`, 1);
    if (cout !== cin * dm) c.report('E_MODEL_SHAPE', `filter has ${cout} channels, expected input channels ${cin} x depth multiplier ${dm}`, 1);
  } else if (w3 <= 0 || cin % w3 !== 0) {
    c.report('E_MODEL_SHAPE', `filter input depth ${w3} does not divide input channels ${cin}`, 1);
  }
  biasCount(c, 2, cout);
  outputShape(c, 0, [n, convOutputSize(o.padding, h, kh, o.strideH, o.dilationH), convOutputSize(o.padding, wd, kw, o.strideW, o.dilationW), cout]);
}

/** FDT merge: the base op's shape rule on this input-channel partition; int32 accumulators in/out. */
function checkMerge(c: OpRuleContext<'merge'>): void {
  const o = c.options;
  const [x, w, acc] = [c.inputs[0]!, c.inputs[1]!, c.inputs[3] ?? null];
  const y = c.outputs[0]!;
  dtypeIn(c, y, -1, ['int8', 'int32'], 'output');
  if (acc !== null) {
    dtypeIn(c, acc, 3, ['int32'], 'accumulator input');
    if (!sameShape(acc.shape, y.shape)) c.report('E_MODEL_SHAPE', `accumulator ${formatShape(acc.shape)} must have the output shape ${formatShape(y.shape)}`, 3);
  }
  const optionsOk = positive(c, { strideH: o.strideH, strideW: o.strideW, dilationH: o.dilationH, dilationW: o.dilationW });
  if (o.base === 'fullyConnected') {
    if (!rank(c, w, 1, 2, 'filter')) return;
    const [units = 0, depth = 0] = w.shape;
    biasCount(c, 2, units);
    const count = elementCount(x.shape);
    if (depth <= 0 || count % depth !== 0) c.report('E_MODEL_SHAPE', `input ${formatShape(x.shape)} is not a whole number of rows of ${depth}`, 0);
    else outputShape(c, 0, [count / depth, units]);
    return;
  }
  if (!(rank(c, x, 0, 4, 'input') && rank(c, w, 1, 4, 'filter') && optionsOk)) return;
  const [n = 0, h = 0, wd = 0, cin = 0] = x.shape;
  const [cout = 0, kh = 0, kw = 0, fd = 0] = w.shape;
  if (fd !== cin) c.report('E_MODEL_SHAPE', `filter depth ${fd} must equal the partition's ${cin} input channels`, 1);
  biasCount(c, 2, cout);
  outputShape(c, 0, [n, convOutputSize(o.padding, h, kh, o.strideH, o.dilationH), convOutputSize(o.padding, wd, kw, o.strideW, o.dilationW), cout]);
}

function checkPool(c: OpRuleContext<'maxPool2d' | 'averagePool2d'>): void {
  const o = c.options;
  const x = c.inputs[0]!;
  sameDtype(c, c.outputs[0]!, -1, x, 'output');
  const optionsOk = positive(c, { strideH: o.strideH, strideW: o.strideW, filterH: o.filterH, filterW: o.filterW });
  if (!(rank(c, x, 0, 4, 'input') && optionsOk)) return;
  const [n = 0, h = 0, w = 0, ch = 0] = x.shape;
  outputShape(c, 0, [n, convOutputSize(o.padding, h, o.filterH, o.strideH), convOutputSize(o.padding, w, o.filterW, o.strideW), ch]);
}

function checkSplitOutputs(c: OpRuleContext<'split' | 'splitV'>, x: Tensor, axis: number, sizes: readonly number[]): void {
  sizes.forEach((size, k) => {
    const y = c.outputs[k];
    if (y !== undefined) sameDtype(c, y, -1 - k, x, `output ${k}`);
    outputShape(c, k, x.shape.map((d, i) => (i === axis ? size : d)));
  });
}

/** StartForAxis / StopForAxis of tensorflow/lite/kernels/internal/strided_slice_logic.h. */
function stridedSliceShape(o: OpOptionsMap['stridedSlice'], shape: readonly number[], begin: readonly number[], end: readonly number[], strides: readonly number[]): number[] {
  const out: number[] = [];
  const clamp = (v: number, lo: number, hi: number): number => Math.min(Math.max(v, lo), hi);
  shape.forEach((size, i) => {
    const stride = strides[i] ?? 1;
    const bit = 1 << i;
    const shrink = (o.shrinkAxisMask & bit) !== 0;
    let start = o.beginMask & bit ? (stride > 0 ? -(2 ** 31) : 2 ** 31 - 1) : (begin[i] ?? 0);
    if (start < 0) start += size;
    start = size === 0 ? 0 : stride > 0 ? clamp(start, 0, size) : clamp(start, -1, size - 1);
    let stop = o.endMask & bit ? (stride > 0 ? 2 ** 31 - 1 : -(2 ** 31)) : (end[i] ?? 0);
    if (stop < 0) stop += size;
    stop = size === 0 ? 0 : shrink ? start + 1 : stride > 0 ? clamp(stop, 0, size) : clamp(stop, -1, size - 1);
    if (!shrink) out.push(Math.max(0, Math.ceil((stop - start) / stride)));
  });
  return out;
}

export const OP_RULES: { readonly [K in BuiltinKind]: OpRule<K> } = {
  // TinySeg custom ops (option consistency is checked in custom-ops.ts and the kernel specs).
  spill: rule([1, 1], () => undefined, [], () => 0),
  fetching: rule([0, 10], (c) => {
    const y = c.outputs[0]!;
    c.inputs.forEach((x, i) => x !== null && sameDtype(c, x, i, y, `input ${i}`));
    if (normalizeAxis(c, c.options.axis, y.shape.length) === null) return;
    if (c.options.nth < 0 || c.options.nth > c.inputs.length) c.report('E_MODEL_SHAPE', `victim position ${c.options.nth} outside [0, ${c.inputs.length}]`, -1);
  }),
  fetchingConv2d: rule([2, 12], (c) => {
    if (c.options.nth < 0 || c.options.nth > c.inputs.length - 2) c.report('E_MODEL_SHAPE', `victim position ${c.options.nth} outside [0, ${c.inputs.length - 2}]`, -1);
  }, []),
  conv2d: rule([2, 3], (c) => checkConv(c, false), [2]),
  // FDT Fan-In partition + Merge: inputs [x, filter, bias|-1, accIn|-1] (merge-options.ts).
  merge: rule([2, 4], checkMerge, [2, 3]),
  depthwiseConv2d: rule([2, 3], (c) => checkConv(c, true), [2]),
  transposeConv: rule([3, 4], (c) => {
    const o = c.options;
    const [outShape, w, x] = [c.inputs[0]!, c.inputs[1]!, c.inputs[2]!];
    const y = c.outputs[0]!;
    sameDtype(c, y, -1, x, 'output');
    dtypeIn(c, outShape, 0, INDEX_DTYPES, 'output_shape');
    const optionsOk = positive(c, { strideH: o.strideH, strideW: o.strideW });
    if (!(rank(c, x, 2, 4, 'input') && rank(c, w, 1, 4, 'filter') && rank(c, y, -1, 4, 'output') && optionsOk)) return;
    const [cout = 0, kh = 0, kw = 0, cin = 0] = w.shape;
    const [n = 0, h = 0, wd = 0, xc = 0] = x.shape;
    const [yn = 0, oh = 0, ow = 0, yc = 0] = y.shape;
    if (xc !== cin) c.report('E_MODEL_SHAPE', `input has ${xc} channels, filter expects ${cin}`, 2);
    if (yn !== n || yc !== cout) c.report('E_MODEL_SHAPE', `output ${formatShape(y.shape)} must have batch ${n} and ${cout} channels`, -1);
    // TFLM takes the output size from the output tensor; it must be one whose forward conv gives the input.
    if (convOutputSize(o.padding, oh, kh, o.strideH) !== h || convOutputSize(o.padding, ow, kw, o.strideW) !== wd) {
      c.report('E_MODEL_SHAPE', `output ${oh}x${ow} is inconsistent with input ${h}x${wd}, filter ${kh}x${kw}, stride ${o.strideH}x${o.strideW}, padding ${o.padding}`, -1);
    }
    const declared = constInts(outShape);
    if (declared !== null && !sameShape(declared, y.shape)) c.report('E_MODEL_SHAPE', `output_shape ${formatShape(declared)} differs from the output tensor ${formatShape(y.shape)}`, 0);
    biasCount(c, 3, cout);
  }, [3]),
  maxPool2d: rule([1, 1], checkPool),
  averagePool2d: rule([1, 1], checkPool),
  concatenation: rule([1, Number.MAX_SAFE_INTEGER], (c) => {
    const x0 = c.inputs[0]!;
    const r = x0.shape.length;
    sameDtype(c, c.outputs[0]!, -1, x0, 'output');
    const axis = normalizeAxis(c, c.options.axis, r);
    const expected = [...x0.shape];
    let consistent = axis !== null;
    c.inputs.forEach((x, i) => {
      if (x === null || i === 0) return;
      sameDtype(c, x, i, x0, `input ${i}`);
      if (x.shape.length !== r || x.shape.some((d, k) => k !== axis && d !== x0.shape[k])) {
        c.report('E_MODEL_SHAPE', `input ${i} shape ${formatShape(x.shape)} does not concatenate with ${formatShape(x0.shape)} on axis ${c.options.axis}`, i);
        consistent = false;
      } else if (axis !== null) {
        expected[axis] = (expected[axis] ?? 0) + (x.shape[axis] ?? 0);
      }
    });
    if (consistent) outputShape(c, 0, expected);
  }),
  fullyConnected: rule([2, 3], (c) => {
    const [x, w] = [c.inputs[0]!, c.inputs[1]!];
    sameDtype(c, c.outputs[0]!, -1, x, 'output');
    if (!rank(c, w, 1, 2, 'filter')) return;
    const [units = 0, depth = 0] = w.shape;
    biasCount(c, 2, units);
    const count = elementCount(x.shape);
    if (depth <= 0 || count % depth !== 0) {
      c.report('E_MODEL_SHAPE', `input ${formatShape(x.shape)} is not a whole number of rows of ${depth}`, 0);
    } else if (c.options.keepNumDims) {
      if (x.shape[x.shape.length - 1] !== depth) c.report('E_MODEL_SHAPE', `keepNumDims needs the input's last dim to be ${depth}`, 0);
      else outputShape(c, 0, [...x.shape.slice(0, -1), units]);
    } else {
      outputShape(c, 0, [count / depth, units]);
    }
  }, [2]),
  softmax: rule([1, 1], (c) => {
    const x = c.inputs[0]!;
    const y = c.outputs[0]!;
    if (x.dtype === 'int8') dtypeIn(c, y, -1, ['int8', 'int16'], 'output');
    else sameDtype(c, y, -1, x, 'output');
    if (x.shape.length < 1) c.report('E_MODEL_SHAPE', 'softmax input must have rank >= 1', 0);
    outputShape(c, 0, x.shape);
  }),
  add: rule([2, 2], checkBroadcast),
  mul: rule([2, 2], checkBroadcast),
  pad: rule([2, 2], (c) => {
    const [x, p] = [c.inputs[0]!, c.inputs[1]!];
    sameDtype(c, c.outputs[0]!, -1, x, 'output');
    dtypeIn(c, p, 1, INDEX_DTYPES, 'paddings');
    const r = x.shape.length;
    if (!sameShape(p.shape, [r, 2])) {
      c.report('E_MODEL_SHAPE', `paddings must have shape [${r},2], has ${formatShape(p.shape)}`, 1);
      return;
    }
    const v = constInts(p);
    if (v === null) return;
    if (v.some((d) => d < 0)) c.report('E_MODEL_INVALID', `paddings must be non-negative, got ${formatShape(v)}`, 1);
    else outputShape(c, 0, x.shape.map((d, i) => d + (v[2 * i] ?? 0) + (v[2 * i + 1] ?? 0)));
  }),
  reshape: rule([1, 2], (c) => {
    const x = c.inputs[0]!;
    const y = c.outputs[0]!;
    sameDtype(c, y, -1, x, 'output');
    const count = elementCount(x.shape);
    if (elementCount(y.shape) !== count) {
      c.report('E_MODEL_SHAPE', `output ${formatShape(y.shape)} does not hold the ${count} elements of ${formatShape(x.shape)}`, -1);
      return;
    }
    const shapeInput = c.inputs[1] ?? null;
    const requested = shapeInput !== null ? constInts(shapeInput) : c.options.newShape;
    if (requested === null || (shapeInput === null && requested.length === 0)) return;
    const resolved = resolveShape(c, requested, count, shapeInput !== null ? 1 : -1);
    if (resolved !== null) outputShape(c, 0, resolved);
  }, [1]),
  mean: rule([2, 2], (c) => {
    const [x, a] = [c.inputs[0]!, c.inputs[1]!];
    sameDtype(c, c.outputs[0]!, -1, x, 'output');
    dtypeIn(c, a, 1, INDEX_DTYPES, 'axis');
    const axes = constInts(a);
    if (axes === null) return;
    const r = x.shape.length;
    const reduced = new Set<number>();
    for (const axis of axes) {
      const n = normalizeAxis(c, axis, r, 1);
      if (n === null) return;
      reduced.add(n);
    }
    outputShape(c, 0, x.shape.flatMap((d, i) => (!reduced.has(i) ? [d] : c.options.keepDims ? [1] : [])));
  }),
  quantize: rule([1, 1], (c) => {
    const y = c.outputs[0]!;
    dtypeIn(c, c.inputs[0]!, 0, ['float32', 'int8', 'uint8', 'int16'], 'input');
    dtypeIn(c, y, -1, ['int8', 'uint8', 'int16'], 'output');
    if (y.quant === null) c.report('E_MODEL_INVALID', 'quantize output has no quantization parameters', -1);
    outputShape(c, 0, c.inputs[0]!.shape);
  }),
  dequantize: rule([1, 1], (c) => {
    const x = c.inputs[0]!;
    dtypeIn(c, x, 0, ['int8', 'uint8', 'int16', 'float16'], 'input');
    dtypeIn(c, c.outputs[0]!, -1, ['float32'], 'output');
    if (x.quant === null && x.dtype !== 'float16') c.report('E_MODEL_INVALID', 'dequantize input has no quantization parameters', 0);
    outputShape(c, 0, x.shape);
  }),
  split: rule([2, 2], (c) => {
    const [a, x] = [c.inputs[0]!, c.inputs[1]!];
    dtypeIn(c, a, 0, ['int32'], 'axis');
    const v = constInts(a);
    if (!positive(c, { numSplits: c.options.numSplits }) || v === null || v.length !== 1) return;
    const axis = normalizeAxis(c, v[0] ?? 0, x.shape.length, 0);
    if (axis === null) return;
    const dim = x.shape[axis] ?? 0;
    if (dim % c.options.numSplits !== 0) c.report('E_MODEL_SHAPE', `dim ${dim} of axis ${axis} does not split into ${c.options.numSplits} parts`, 1);
    else checkSplitOutputs(c, x, axis, new Array<number>(c.options.numSplits).fill(dim / c.options.numSplits));
  }, [], (o) => o.numSplits),
  splitV: rule([3, 3], (c) => {
    const [x, s, a] = [c.inputs[0]!, c.inputs[1]!, c.inputs[2]!];
    dtypeIn(c, s, 1, INDEX_DTYPES, 'size_splits');
    dtypeIn(c, a, 2, ['int32'], 'axis');
    const sizes = constInts(s);
    const av = constInts(a);
    if (!positive(c, { numSplits: c.options.numSplits }) || sizes === null || av === null || av.length !== 1) return;
    const axis = normalizeAxis(c, av[0] ?? 0, x.shape.length, 2);
    if (axis === null) return;
    if (sizes.length !== c.options.numSplits) {
      c.report('E_MODEL_SHAPE', `size_splits has ${sizes.length} entries for ${c.options.numSplits} splits`, 1);
      return;
    }
    // One size may be -1: whatever the others leave of the axis (split_v.cc).
    const dim = x.shape[axis] ?? 0;
    const unknown = sizes.filter((d) => d === -1).length;
    const rest = dim - sizes.reduce((p, d) => (d === -1 ? p : p + d), 0);
    const resolved = sizes.map((d) => (d === -1 ? rest : d));
    if (unknown > 1 || resolved.some((d) => d < 0) || (unknown === 0 && rest !== 0)) {
      c.report('E_MODEL_SHAPE', `size_splits ${formatShape(sizes)} do not split ${dim}`, 1);
    } else {
      checkSplitOutputs(c, x, axis, resolved);
    }
  }, [], (o) => o.numSplits),
  stridedSlice: rule([4, 4], (c) => {
    const x = c.inputs[0]!;
    sameDtype(c, c.outputs[0]!, -1, x, 'output');
    const r = x.shape.length;
    const v = [1, 2, 3].map((slot) => {
      const t = c.inputs[slot]!;
      dtypeIn(c, t, slot, INDEX_DTYPES, ['begin', 'end', 'strides'][slot - 1] ?? 'index');
      if (!sameShape(t.shape, [r])) c.report('E_MODEL_SHAPE', `begin/end/strides must have shape [${r}], has ${formatShape(t.shape)}`, slot);
      return constInts(t);
    });
    const [begin, end, strides] = v;
    if (!begin || !end || !strides || v.some((a) => a?.length !== r)) return;
    if (strides.some((s) => s === 0)) {
      c.report('E_MODEL_INVALID', 'strides must be non-zero', 3);
      return;
    }
    // TFLM forces ellipsis and new-axis masks to 0; with them the output is not checked here.
    if (c.options.ellipsisMask !== 0 || c.options.newAxisMask !== 0) return;
    outputShape(c, 0, stridedSliceShape(c.options, x.shape, begin, end, strides));
  }),
  logistic: elementwise(),
  relu: elementwise(),
  relu6: elementwise(),
  leakyRelu: elementwise(),
  transpose: rule([2, 2], (c) => {
    const [x, p] = [c.inputs[0]!, c.inputs[1]!];
    sameDtype(c, c.outputs[0]!, -1, x, 'output');
    dtypeIn(c, p, 1, INDEX_DTYPES, 'perm');
    const perm = constInts(p);
    if (perm === null) return;
    const r = x.shape.length;
    if (perm.length !== r || new Set(perm).size !== r || perm.some((d) => d < 0 || d >= r)) {
      c.report('E_MODEL_INVALID', `perm ${formatShape(perm)} is not a permutation of ${r} axes`, 1);
      return;
    }
    outputShape(c, 0, perm.map((d) => x.shape[d] ?? 0));
  }),
  hardSwish: elementwise(),
  logSoftmax: elementwise(),
  tanh: elementwise(),
  elu: elementwise(),
  l2Normalization: elementwise(),
  // PRELU: alpha broadcasts against the input (prelu.cc: output = broadcast shape).
  prelu: rule([2, 2], (c) => {
    const [x, alpha] = [c.inputs[0]!, c.inputs[1]!];
    sameDtype(c, c.outputs[0]!, -1, x, 'output');
    const shape = broadcastShapes(x.shape, alpha.shape);
    if (shape === null) c.report('E_MODEL_SHAPE', `input ${formatShape(x.shape)} and alpha ${formatShape(alpha.shape)} do not broadcast`, 1);
    else outputShape(c, 0, shape);
  }),
  resizeNearestNeighbor: rule([2, 2], checkResize),
  resizeBilinear: rule([2, 2], checkResize),
};

/** RESIZE_*: a 4-D input and a 1-D int32 size [h, w] (resize_*.cc Prepare); output [n, h, w, c]. */
function checkResize(c: OpRuleContext<'resizeNearestNeighbor' | 'resizeBilinear'>): void {
  const [x, size] = [c.inputs[0]!, c.inputs[1]!];
  sameDtype(c, c.outputs[0]!, -1, x, 'output');
  dtypeIn(c, size, 1, ['int32'], 'size');
  if (!rank(c, x, 0, 4, 'input')) return;
  if (!sameShape(size.shape, [2])) {
    c.report('E_MODEL_SHAPE', `size must have shape [2], has ${formatShape(size.shape)}`, 1);
    return;
  }
  const v = constInts(size);
  if (v === null) return;
  if (v.some((d) => d < 1)) c.report('E_MODEL_INVALID', `size ${formatShape(v)} must be positive`, 1);
  else outputShape(c, 0, [x.shape[0] ?? 0, v[0] ?? 0, v[1] ?? 0, x.shape[3] ?? 0]);
}

function checkBroadcast(c: OpRuleContext<'add' | 'mul'>): void {
  const [a, b] = [c.inputs[0]!, c.inputs[1]!];
  sameDtype(c, b, 1, a, 'input 1');
  sameDtype(c, c.outputs[0]!, -1, a, 'output');
  const shape = broadcastShapes(a.shape, b.shape);
  if (shape === null) c.report('E_MODEL_SHAPE', `inputs ${formatShape(a.shape)} and ${formatShape(b.shape)} do not broadcast`, 1);
  else outputShape(c, 0, shape);
}

/**
 * Arity and per-kind rules of one builtin op. Tensor indices must already be known to be in range;
 * issues name the op and, where one is at fault, the tensor.
 */
export function checkOpRules(op: BuiltinOp, opIndex: number, tensors: readonly Tensor[]): Issue[] {
  const issues: Issue[] = [];
  const rule = OP_RULES[op.kind] as OpRule<BuiltinKind>;
  const where = { opIndex, opKind: op.kind };
  const push = (code: ErrorCode, message: string, tensorIndex?: number): void => {
    const t = tensorIndex !== undefined && tensorIndex >= 0 ? tensors[tensorIndex] : undefined;
    issues.push(t !== undefined ? { code, message, ...where, tensorIndex, tensorName: t.name } : { code, message, ...where });
  };
  const nIn = op.inputs.length;
  const wantOut = rule.outputs(op.options);
  if (nIn < rule.minInputs || nIn > rule.maxInputs) {
    const range = rule.maxInputs === Number.MAX_SAFE_INTEGER ? `at least ${rule.minInputs}` : rule.minInputs === rule.maxInputs ? `${rule.minInputs}` : `${rule.minInputs}-${rule.maxInputs}`;
    push('E_MODEL_INVALID', `has ${nIn} inputs, expected ${range}`);
  }
  if (op.outputs.length !== wantOut) push('E_MODEL_INVALID', `has ${op.outputs.length} outputs, expected ${wantOut}`);
  op.inputs.forEach((t, i) => {
    if (t === -1 && !rule.optionalInputs.includes(i)) push('E_MODEL_INVALID', `input ${i} is required but omitted (-1)`);
  });
  if (issues.length > 0) return issues;
  const inputs = op.inputs.map((t) => (t === -1 ? null : (tensors[t] ?? null)));
  const outputs = op.outputs.flatMap((t) => tensors[t] ?? []);
  const report = (code: ErrorCode, message: string, slot?: number): void =>
    push(code, message, slot === undefined ? undefined : slot >= 0 ? op.inputs[slot] : op.outputs[-1 - slot]);
  rule.check({ options: op.options, inputs, outputs, report });
  return issues;
}
