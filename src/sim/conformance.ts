// Conformance harness: one TFLM oracle vector (shared/oracle/README.md, JSONL) becomes a one-op
// graph, its activations laid out back to back (16-aligned) in an arena, run through the kernel
// executors and compared byte for byte. Unsupported ops fail with a reason, never pass silently.
import type { Activation, BuiltinKind, DType, Graph, OpOptionsMap, Padding, Tensor } from '../ir/index.ts';
import { byteSize, McusimError, UsageError } from '../ir/index.ts';
import type { TraceSink } from '../kernels/index.ts';
import { prepareOp, validateOp } from '../kernels/index.ts';
import { Runtime } from './runtime.ts';

export interface VectorTensor {
  readonly name: string;
  readonly dtype: string;
  readonly shape: readonly number[];
  readonly const: boolean;
  readonly quant: { readonly scale: readonly number[]; readonly zero_point: readonly number[]; readonly quantized_dimension: number } | null;
  readonly data: readonly number[];
}

export interface VectorCase {
  readonly op: string;
  readonly id: number;
  readonly options: Readonly<Record<string, unknown>>;
  readonly inputs: readonly VectorTensor[];
  readonly outputs: readonly VectorTensor[];
}

export interface ConformanceResult {
  readonly op: string;
  readonly id: number;
  readonly pass: boolean;
  readonly reason?: string;
  readonly firstMismatch?: { readonly output: number; readonly byteIndex: number; readonly expected: number; readonly actual: number };
}

export interface ConformanceSetup {
  readonly graph: Graph;
  readonly tensorOffsets: readonly (number | null)[];
  /** Offsets of the op's scratch buffers (16-aligned, after the activations). */
  readonly scratchOffsets: readonly number[];
  readonly arenaBytes: number;
  readonly inputs: readonly Uint8Array[];
  readonly expected: readonly Uint8Array[];
}

type Opts = Readonly<Record<string, unknown>>;
const act = (o: Opts): Activation => {
  const a = String(o['fused_activation'] ?? 'NONE');
  const m: Record<string, Activation> = { NONE: 'none', RELU: 'relu', RELU6: 'relu6', RELU_N1_TO_1: 'reluN1To1', TANH: 'tanh', SIGN_BIT: 'signBit' };
  return m[a] ?? 'none';
};
const pad = (o: Opts): Padding => (o['padding'] === 'VALID' ? 'valid' : 'same');
const int = (o: Opts, k: string, d = 0): number => (typeof o[k] === 'number' ? (o[k] as number) : d);
const conv = (o: Opts): OpOptionsMap['conv2d'] => ({
  padding: pad(o), strideH: int(o, 'stride_h', 1), strideW: int(o, 'stride_w', 1),
  dilationH: int(o, 'dilation_h', 1), dilationW: int(o, 'dilation_w', 1), activation: act(o),
});
const pool = (o: Opts): OpOptionsMap['maxPool2d'] => ({
  padding: pad(o), strideH: int(o, 'stride_h', 1), strideW: int(o, 'stride_w', 1),
  filterH: int(o, 'filter_h', 1), filterW: int(o, 'filter_w', 1), activation: act(o),
});

/** TFLite builtin name -> op kind and options, for the ops the oracle vectors cover. */
const VECTOR_OPS: { readonly [name: string]: { readonly kind: BuiltinKind; readonly options: (o: Opts) => unknown } } = {
  CONV_2D: { kind: 'conv2d', options: conv },
  DEPTHWISE_CONV_2D: { kind: 'depthwiseConv2d', options: (o) => ({ ...conv(o), depthMultiplier: int(o, 'depth_multiplier', 1) }) },
  TRANSPOSE_CONV: { kind: 'transposeConv', options: (o) => ({ padding: pad(o), strideH: int(o, 'stride_h', 1), strideW: int(o, 'stride_w', 1), activation: act(o) }) },
  MAX_POOL_2D: { kind: 'maxPool2d', options: pool },
  AVERAGE_POOL_2D: { kind: 'averagePool2d', options: pool },
  CONCATENATION: { kind: 'concatenation', options: (o) => ({ axis: int(o, 'axis'), activation: act(o) }) },
  FULLY_CONNECTED: {
    kind: 'fullyConnected',
    options: (o) => ({ activation: act(o), weightsFormat: 'default', keepNumDims: o['keep_num_dims'] === true, asymmetricQuantizeInputs: false }),
  },
  SOFTMAX: { kind: 'softmax', options: (o) => ({ beta: typeof o['beta'] === 'number' ? Math.fround(o['beta'] as number) : 1 }) },
  ADD: { kind: 'add', options: (o) => ({ activation: act(o), potScaleInt16: o['pot_scale_int16'] === true }) },
  MUL: { kind: 'mul', options: (o) => ({ activation: act(o) }) },
  PAD: { kind: 'pad', options: () => ({}) },
  RESHAPE: { kind: 'reshape', options: (o) => ({ newShape: Array.isArray(o['new_shape']) ? (o['new_shape'] as number[]) : null }) },
  MEAN: { kind: 'mean', options: (o) => ({ keepDims: o['keep_dims'] === true }) },
  QUANTIZE: { kind: 'quantize', options: () => ({}) },
  DEQUANTIZE: { kind: 'dequantize', options: () => ({}) },
  SPLIT: { kind: 'split', options: (o) => ({ numSplits: int(o, 'num_splits', 1) }) },
  STRIDED_SLICE: {
    kind: 'stridedSlice',
    options: (o) => ({
      beginMask: int(o, 'begin_mask'), endMask: int(o, 'end_mask'), ellipsisMask: int(o, 'ellipsis_mask'),
      newAxisMask: int(o, 'new_axis_mask'), shrinkAxisMask: int(o, 'shrink_axis_mask'), offset: o['offset'] === true,
    }),
  },
  LOGISTIC: { kind: 'logistic', options: () => ({}) },
  RELU: { kind: 'relu', options: () => ({}) },
  RELU6: { kind: 'relu6', options: () => ({}) },
  LEAKY_RELU: { kind: 'leakyRelu', options: (o) => ({ alpha: Math.fround(typeof o['alpha'] === 'number' ? (o['alpha'] as number) : 0) }) },
};

const DTYPES: Readonly<Record<string, DType>> = { int8: 'int8', uint8: 'uint8', int16: 'int16', int32: 'int32', float32: 'float32' };

function encode(dtype: DType, data: readonly number[]): Uint8Array {
  const out = new Uint8Array(byteSize(dtype, [data.length]));
  const dv = new DataView(out.buffer);
  data.forEach((v, i) => {
    if (dtype === 'int8') dv.setInt8(i, v);
    else if (dtype === 'uint8') dv.setUint8(i, v);
    else if (dtype === 'int16') dv.setInt16(2 * i, v, true);
    else if (dtype === 'int32') dv.setInt32(4 * i, v, true);
    else dv.setFloat32(4 * i, Math.fround(v), true);
  });
  return out;
}

function toTensor(v: VectorTensor): Tensor {
  const dtype = DTYPES[v.dtype];
  if (dtype === undefined) throw new UsageError(`unsupported dtype ${v.dtype}`);
  return {
    name: v.name,
    dtype,
    shape: v.shape,
    quant: v.quant && {
      scale: v.quant.scale.map((s) => Math.fround(s)),
      zeroPoint: v.quant.zero_point,
      quantizedDimension: v.quant.quantized_dimension,
    },
    data: v.const ? encode(dtype, v.data) : null,
    isVariable: false,
  };
}

/** Back-to-back 16-aligned layout of a one-op graph's activations, then its scratch buffers. */
export function layoutSingleOp(graph: Graph): Pick<ConformanceSetup, 'tensorOffsets' | 'scratchOffsets' | 'arenaBytes'> {
  let next = 0;
  const take = (sizeBytes: number): number => {
    const off = next;
    next += Math.ceil(sizeBytes / 16) * 16;
    return off;
  };
  const tensorOffsets = graph.tensors.map((t) => (t.data !== null ? null : take(byteSize(t.dtype, t.shape))));
  // An op that fails its constraints gets no scratch here: the Runtime reports its coded error.
  const scratch = validateOp(graph, 0).length === 0 ? prepareOp(graph, 0).prepared.scratch : [];
  const scratchOffsets = scratch.map((d) => take(d.sizeBytes));
  return { tensorOffsets, scratchOffsets, arenaBytes: Math.max(next, 16) };
}

/** One-op graph for an oracle case, laid out by layoutSingleOp. */
export function setupVectorCase(c: VectorCase): ConformanceSetup {
  const entry = VECTOR_OPS[c.op];
  if (entry === undefined) throw new UsageError(`no op kind for TFLite builtin ${c.op}`);
  const all = [...c.inputs, ...c.outputs];
  const tensors = all.map(toTensor);
  const nIn = c.inputs.length;
  const graph = {
    name: `${c.op}#${c.id}`,
    tensors,
    ops: [{ kind: entry.kind, inputs: c.inputs.map((_, i) => i), outputs: c.outputs.map((_, i) => nIn + i), options: entry.options(c.options) }],
    inputs: c.inputs.flatMap((t, i) => (t.const ? [] : [i])),
    outputs: c.outputs.map((_, i) => nIn + i),
  } as Graph;
  const layout = layoutSingleOp(graph);
  return {
    graph,
    ...layout,
    inputs: c.inputs.filter((t) => !t.const).map((t) => encode(toTensor(t).dtype, t.data)),
    expected: c.outputs.map((t) => encode(toTensor(t).dtype, t.data)),
  };
}

export function compareOutputs(c: VectorCase, expected: readonly Uint8Array[], actual: readonly Uint8Array[]): ConformanceResult {
  for (let o = 0; o < expected.length; o++) {
    const e = expected[o] as Uint8Array;
    const a = actual[o] ?? new Uint8Array(0);
    const n = Math.max(e.length, a.length);
    for (let i = 0; i < n; i++) {
      if (e[i] !== a[i]) return { op: c.op, id: c.id, pass: false, firstMismatch: { output: o, byteIndex: i, expected: e[i] ?? -1, actual: a[i] ?? -1 } };
    }
  }
  return { op: c.op, id: c.id, pass: true };
}

/** Run one oracle case (optionally through the traced executor) and compare its output bytes. */
export function runVectorCase(c: VectorCase, opts: { readonly trace?: TraceSink } = {}): ConformanceResult {
  try {
    const s = setupVectorCase(c);
    const rt = new Runtime({ graph: s.graph, tensorOffsets: s.tensorOffsets, arenaBytes: s.arenaBytes, scratchOffsets: [s.scratchOffsets] });
    const actual = rt.run(s.inputs, opts.trace ? { trace: opts.trace } : {});
    return compareOutputs(c, s.expected, actual);
  } catch (e) {
    const reason = e instanceof McusimError ? `${e.code}: ${e.message}` : `error: ${(e as Error).message}`;
    return { op: c.op, id: c.id, pass: false, reason };
  }
}

/** Parse a JSONL file's text into cases (blank lines skipped). */
export function parseVectorLines(text: string): VectorCase[] {
  return text.split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as VectorCase);
}
