// Cases for the real-library check (real-library.test.ts): seeded random single-op graphs of every
// op TFLM's cmsis_nn kernels route to CMSIS-NN, each as the parameters real/harness.c fills the
// cmsis_nn structs from (the numbers TFLM's Prepare computes: the spec's prepared scalars and
// per-channel arrays, which mirror CalculateOpData*), placed in one arena apart or with the output
// overlapping an input, and run on the mcusim cmsis-nn spec on the same arena bytes.
import type { Activation, Graph, Padding, Tensor } from '../../../src/ir/index.ts';
import { byteSize } from '../../../src/ir/index.ts';
import type { KernelSpec } from '../../../src/kernels/index.ts';
import { compileKernel, makeArenaViews, makeOpContext } from '../../../src/kernels/index.ts';
import { instanceFor, int } from './helpers.ts';
import type { Rng } from './helpers.ts';

export const OP = { conv2d: 1, depthwiseConv2d: 2, fullyConnected: 3, averagePool2d: 4, maxPool2d: 5, add: 6, mul: 7, softmax: 8, transposeConv: 9 } as const;
export type RealKind = keyof typeof OP;
/** Parameter slots, as harness.c's enum. */
const SLOTS = ['N', 'H', 'W', 'C', 'FH', 'FW', 'OC', 'OH', 'OW', 'SH', 'SW', 'PH', 'PW', 'DH', 'DW', 'IN_OFF', 'OUT_OFF', 'ACT_MIN', 'ACT_MAX', 'CH_MULT',
  'A_IN0', 'A_IN1', 'A_OUT', 'ARENA', 'HAS_BIAS', 'X0', 'X1', 'X2', 'X3', 'X4', 'X5', 'X6', 'X7', 'X8', 'X9'] as const;
type Slot = (typeof SLOTS)[number];
const NPARAMS = 40;
const MAGIC = 0x524e434d;

export interface RealCase {
  readonly kind: RealKind;
  readonly spec: KernelSpec;
  readonly graph: Graph;
  readonly path: string;
  /** Non-constant input tensor indices (slot order) and the output's. */
  readonly inputs: readonly number[];
  readonly output: number;
  readonly params: Readonly<Partial<Record<Slot, number>>>;
  readonly filter: Uint8Array;
  readonly bias: Uint8Array;
  readonly mult: Int32Array;
  readonly shift: Int32Array;
  /**
   * The two buffer sizes harness.c reports, as the spec declares them: TFLM's RequestScratchBufferInArena
   * sizes in order (0 where none), for fully connected its scratch and its persistent kernel sums.
   */
  readonly specBuffers: readonly [number, number];
}

export interface Placement {
  readonly name: string;
  /** Tensor index -> byte offset in the arena. */
  readonly offsets: ReadonlyMap<number, number>;
  readonly arenaBytes: number;
  readonly init: Uint8Array;
}

const t32 = (a: ArrayLike<number>): Uint8Array => new Uint8Array(Int32Array.from(a).buffer);

/** The harness parameters of `kind` from the spec's prepared data (TFLM's OpData values). */
export function realCase(kind: RealKind, spec: KernelSpec, graph: Graph, pathName: (p: ReturnType<KernelSpec['prepare']>) => string): RealCase {
  const ctx = makeOpContext(graph, 0);
  const p = spec.prepare(ctx);
  const s = p.scalars;
  const op = graph.ops[0]!;
  const inputs = op.inputs.filter((i) => i >= 0 && graph.tensors[i]!.data === null);
  const output = op.outputs[0]!;
  const constIn = (slot: number): Uint8Array => (op.inputs[slot] !== undefined && op.inputs[slot]! >= 0 ? graph.tensors[op.inputs[slot]!]!.data ?? new Uint8Array(0) : new Uint8Array(0));
  const common = { IN_OFF: s.inputOffset, OUT_OFF: s.outputOffset, ACT_MIN: s.actMin, ACT_MAX: s.actMax };
  const conv = {
    N: s.batches, H: s.inH, W: s.inW, C: s.inD, FH: s.fH, FW: s.fW, OC: s.outD, OH: s.outH, OW: s.outW,
    SH: s.strideH, SW: s.strideW, PH: s.padH, PW: s.padW, DH: s.dilH ?? 1, DW: s.dilW ?? 1, CH_MULT: s.depthMult ?? 1, HAS_BIAS: p.flags?.hasBias ?? 0,
  };
  let params: Partial<Record<Slot, number>>;
  let filter: Uint8Array = new Uint8Array(0);
  let bias: Uint8Array = new Uint8Array(0);
  switch (kind) {
    case 'conv2d': case 'depthwiseConv2d':
      params = { ...conv, ...common };
      filter = constIn(1); bias = constIn(2);
      break;
    case 'transposeConv': {
      const o = (op as { options: { padding: Padding } }).options;
      const offH = transposePaddingOffset(o.padding, s.outH!, s.fH!, s.strideH!);
      const offW = transposePaddingOffset(o.padding, s.outW!, s.fW!, s.strideW!);
      params = { ...conv, ...common, ACT_MIN: -128, ACT_MAX: 127, X0: offH, X1: offW };
      // TFLM's own activation range (CalculateActivationRangeQuantized): the case uses none.
      filter = constIn(1); bias = constIn(3);
      break;
    }
    case 'fullyConnected':
      params = { ...common, HAS_BIAS: p.flags?.hasBias ?? 0, X0: s.filterOffset, X1: (graph.tensors[op.inputs[1]!]!.quant?.scale.length ?? 1) > 1 ? 1 : 0, X2: s.batches, X3: s.accum, X4: s.outD };
      filter = constIn(1); bias = constIn(2);
      break;
    case 'averagePool2d': case 'maxPool2d':
      params = { N: s.batches, H: s.inH, W: s.inW, C: s.depth, FH: s.fH, FW: s.fW, OC: s.depth, OH: s.outH, OW: s.outW, SH: s.strideH, SW: s.strideW, PH: s.padH, PW: s.padW, ACT_MIN: s.actMin, ACT_MAX: s.actMax };
      break;
    case 'add':
      params = { IN_OFF: s.input1Offset, X7: s.input2Offset, OUT_OFF: s.outputOffset, X0: s.mult1, X1: s.shift1, X2: s.mult2, X3: s.shift2, X4: s.leftShift, X5: s.outMult, X6: s.outShift, ACT_MIN: s.actMin, ACT_MAX: s.actMax, X8: s.n };
      break;
    case 'mul':
      params = { IN_OFF: s.input1Offset, X7: s.input2Offset, OUT_OFF: s.outputOffset, X0: s.mult, X1: s.shift, ACT_MIN: s.actMin, ACT_MAX: s.actMax, X8: s.n };
      break;
    case 'softmax':
      params = { X0: s.outer, X1: s.depth, X2: s.mult, X3: s.lshift, X4: s.diffMin };
      break;
  }
  return {
    kind, spec, graph, path: pathName(p), inputs, output, params, filter, bias,
    mult: Int32Array.from(p.arrays?.['mult'] ?? []), shift: Int32Array.from(p.arrays?.['shift'] ?? []),
    specBuffers: kind === 'fullyConnected' ? [p.scratch[0]?.sizeBytes ?? 0, fcKernelSums(spec, ctx)] : [p.scratch[0]?.sizeBytes ?? 0, p.scratch[1]?.sizeBytes ?? 0],
  };
}

/** The persistent kernel-sum bytes of a fully connected spec: its Prepare buffers after the per-channel arrays. */
function fcKernelSums(spec: KernelSpec, ctx: ReturnType<typeof makeOpContext>): number {
  const persistent = spec.tflmPersistent.stock ? spec.tflmPersistent.prepareBuffers?.(ctx) ?? [] : [];
  const perChannel = (ctx.input(1)?.quant?.scale.length ?? 1) > 1;
  return persistent.slice(perChannel ? 2 : 0).reduce<number>((a, b) => a + (typeof b === 'number' ? b : Number.NaN), 0);
}

/** TFLM's ComputePaddingHeightWidth offset for TransposeConv (in/out swapped: the output is the "image"). */
function transposePaddingOffset(padding: Padding, outSize: number, f: number, stride: number): number {
  const computed = padding === 'same' ? Math.floor((outSize + stride - 1) / stride) : Math.floor((outSize + stride - f) / stride);
  const total = Math.max((computed - 1) * stride + f - outSize, 0);
  return total % 2;
}

const bytesOf = (g: Graph, t: number): number => byteSize(g.tensors[t]!.dtype, g.tensors[t]!.shape);

/**
 * Placements of case `rc`: its tensors apart (16-aligned, in slot order), then the output starting
 * `k` bytes after (k > 0) or before (k < 0) input `which` for each k, as a DMO plan overlaps them.
 */
export function placements(r: Rng, rc: RealCase, ks: readonly number[], which = 0): Placement[] {
  const g = rc.graph;
  const align = (x: number): number => Math.ceil(x / 16) * 16;
  const randomInit = (n: number): Uint8Array => Uint8Array.from({ length: n }, () => int(r, 0, 255));
  const out: Placement[] = [];
  let next = 0;
  const apart = new Map<number, number>();
  for (const t of [...rc.inputs, rc.output]) (apart.set(t, next), (next = align(next + bytesOf(g, t))));
  out.push({ name: 'apart', offsets: apart, arenaBytes: next, init: randomInit(next) });
  const target = rc.inputs[which]!;
  for (const k of ks) {
    // The other inputs first, then the target input and the output overlapping it.
    const offsets = new Map<number, number>();
    let base = 0;
    for (const t of rc.inputs) if (t !== target) (offsets.set(t, base), (base = align(base + bytesOf(g, t))));
    const inAt = base + Math.max(0, -k);
    offsets.set(target, inAt);
    offsets.set(rc.output, inAt + k);
    const end = Math.max(inAt + bytesOf(g, target), inAt + k + bytesOf(g, rc.output));
    out.push({ name: `output ${k >= 0 ? '+' : ''}${k} B from input ${which}`, offsets, arenaBytes: end, init: randomInit(end) });
  }
  return out;
}

/** The arena after the spec ran on `pl` (activation region only; the spec's scratch lies after it). */
export function runSpecOnArena(rc: RealCase, pl: Placement): Uint8Array {
  const { inst, arenaBytes } = instanceFor(rc.spec, { graph: rc.graph, inputs: new Map(), output: rc.output }, pl.offsets);
  const views = makeArenaViews(new ArrayBuffer(Math.max(arenaBytes, pl.arenaBytes)));
  views.u8.set(pl.init, 0);
  compileKernel(inst, views).run();
  return views.u8.slice(0, pl.arenaBytes);
}

/** The harness input file: every (case, placement) as a record. */
export function encodeBatch(runs: readonly (readonly [RealCase, Placement])[]): Uint8Array {
  const parts: number[] = [MAGIC, runs.length];
  const chunks: Uint8Array[] = [];
  const flushWords = (): void => { chunks.push(t32(parts)); parts.length = 0; };
  for (const [rc, pl] of runs) {
    const p = new Int32Array(NPARAMS);
    for (const [k, v] of Object.entries(rc.params)) p[SLOTS.indexOf(k as Slot)] = v ?? 0;
    p[SLOTS.indexOf('A_IN0')] = pl.offsets.get(rc.inputs[0]!) ?? 0;
    p[SLOTS.indexOf('A_IN1')] = pl.offsets.get(rc.inputs[1] ?? rc.inputs[0]!) ?? 0;
    p[SLOTS.indexOf('A_OUT')] = pl.offsets.get(rc.output) ?? 0;
    p[SLOTS.indexOf('ARENA')] = pl.arenaBytes;
    parts.push(OP[rc.kind], ...p);
    for (const b of [pl.init, rc.filter, rc.bias, t32(rc.mult), t32(rc.shift)]) {
      parts.push(b.length);
      flushWords();
      const padded = new Uint8Array(Math.ceil(b.length / 4) * 4);
      padded.set(b);
      chunks.push(padded);
    }
  }
  flushWords();
  const total = chunks.reduce((a, c) => a + c.length, 0);
  const blob = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) (blob.set(c, at), (at += c.length));
  return blob;
}

export interface RealResult { readonly status: number; readonly scratch: readonly [number, number]; readonly arena: Uint8Array }

/** The harness output file, one result per record. */
export function decodeResults(buf: Uint8Array, n: number): RealResult[] {
  const dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const out: RealResult[] = [];
  let at = 0;
  for (let i = 0; i < n; i++) {
    if (at + 16 > buf.length) throw new Error(`harness results end after ${i} of ${n} records`);
    const status = dv.getInt32(at, true);
    const scratch: [number, number] = [dv.getInt32(at + 4, true), dv.getInt32(at + 8, true)];
    const len = dv.getInt32(at + 12, true);
    out.push({ status, scratch, arena: buf.slice(at + 16, at + 16 + len) });
    at += 16 + Math.ceil(len / 4) * 4;
  }
  return out;
}

// ---- random graphs of the non-conv ops (conv family: helpers.ts convCase / transposeConvCase) ----

const ACTS: readonly Activation[] = ['none', 'relu', 'relu6', 'reluN1To1'];
const pick = <T,>(r: Rng, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
const q = (scale: readonly number[], zp: readonly number[], qd = 0): Tensor['quant'] => ({ scale: scale.map(Math.fround), zeroPoint: [...zp], quantizedDimension: qd });
const act = (name: string, shape: readonly number[], scale: number, zp: number): Tensor =>
  ({ name, dtype: 'int8', shape, quant: q([scale], [zp]), data: null, isVariable: false }) as Tensor;
const graphOf = (kind: string, tensors: Tensor[], inputs: number[], options: object): Graph =>
  ({ name: `${kind}-real`, tensors, ops: [{ kind, inputs, outputs: [tensors.length - 1], options }], inputs: inputs.filter((i) => i >= 0 && tensors[i]!.data === null), outputs: [tensors.length - 1] }) as unknown as Graph;

/** A pooling graph; `channels` across the 4-byte words of the DSP loops. */
export function poolGraph(r: Rng, kind: 'averagePool2d' | 'maxPool2d'): Graph {
  const fh = int(r, 1, 4), fw = int(r, 1, 4), sh = int(r, 1, 3), sw = int(r, 1, 3);
  const padding: Padding = pick(r, ['same', 'valid']);
  const [n, h, w, c] = [int(r, 1, 2), int(r, fh, 9), int(r, fw, 9), pick(r, [1, 3, 4, 5, 8, 15, 16, 17, 33])];
  const oh = padding === 'same' ? Math.ceil(h / sh) : Math.floor((h - fh) / sh) + 1;
  const ow = padding === 'same' ? Math.ceil(w / sw) : Math.floor((w - fw) / sw) + 1;
  const scale = 0.01 + r() * 0.1, zp = int(r, -20, 20);
  // Pooling keeps the input's quantization (TFLM requires equal scales and zero points).
  const tensors = [act('in', [n, h, w, c], scale, zp), act('out', [n, oh, ow, c], scale, zp)];
  return graphOf(kind, tensors, [0], { padding, strideH: sh, strideW: sw, filterH: fh, filterW: fw, activation: pick(r, ACTS) });
}

/** Add or mul of two same-shape inputs (TFLM sends broadcasting ones to the reference kernel). */
export function elementwiseGraph(r: Rng, kind: 'add' | 'mul'): Graph {
  const shape = [1, int(r, 1, 5), int(r, 1, 6), int(r, 1, 9)];
  const tensors = [act('a', shape, 0.01 + r() * 0.1, int(r, -30, 30)), act('b', shape, 0.01 + r() * 0.1, int(r, -30, 30)), act('out', shape, 0.02 + r() * 0.2, int(r, -30, 30))];
  return graphOf(kind, tensors, [0, 1], kind === 'add' ? { activation: pick(r, ACTS), potScaleInt16: false } : { activation: pick(r, ACTS) });
}

/** A rank-2 fully connected op (arm_fully_connected_wrapper_s8; rank > 2 with depth % 4 == 0 takes the 1x1 conv). */
export function fullyConnectedGraph(r: Rng): Graph {
  const [b, accum, outD] = [int(r, 1, 4), int(r, 1, 40), int(r, 1, 13)];
  const perChannel = r() < 0.5;
  const fScale = Array.from({ length: perChannel ? outD : 1 }, () => 0.001 + r() * 0.01);
  const hasBias = r() < 0.8;
  const tensors: Tensor[] = [
    act('in', [b, accum], 0.005 + r() * 0.1, int(r, -20, 20)),
    { name: 'w', dtype: 'int8', shape: [outD, accum], quant: q(fScale, fScale.map(() => 0)), data: Uint8Array.from({ length: outD * accum }, () => int(r, 0, 255)), isVariable: false } as Tensor,
    ...(hasBias ? [{ name: 'b', dtype: 'int32', shape: [outD], quant: q([0], [0]), data: t32(Array.from({ length: outD }, () => int(r, -5000, 5000))), isVariable: false } as Tensor] : []),
    act('out', [b, outD], 0.02 + r() * 0.28, int(r, -20, 20)),
  ];
  const options = { activation: pick(r, ACTS), weightsFormat: 'default', keepNumDims: false, asymmetricQuantizeInputs: false };
  return graphOf('fullyConnected', tensors, [0, 1, hasBias ? 2 : -1], options);
}

/** Softmax int8 -> int8 (output scale 1/256, zero point -128 as TFLM requires). */
export function softmaxGraph(r: Rng): Graph {
  const shape = [int(r, 1, 4), int(r, 1, 40)];
  const tensors = [act('in', shape, 0.01 + r() * 0.2, int(r, -30, 30)), act('out', shape, 1 / 256, -128)];
  return graphOf('softmax', tensors, [0], { beta: pick(r, [1, 1, 0.5, 2]) });
}
