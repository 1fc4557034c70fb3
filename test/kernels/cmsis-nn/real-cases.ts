// The cmsis_nn parameters of a one-op case, as the recorded real-library harness handed them to ARM's
// CMSIS-NN (testdata/real-builds/cmsis-nn/README.md): the numbers TFLM's Prepare computes (the spec's
// prepared scalars and per-channel arrays, which mirror CalculateOpData*), the buffer sizes the spec
// declares, and the spec run on one arena placement (tensors apart, or the output overlapping an input).
import type { Graph, Padding } from '../../../src/ir/index.ts';
import type { KernelSpec } from '../../../src/kernels/index.ts';
import { compileKernel, makeArenaViews, makeOpContext } from '../../../src/kernels/index.ts';
import { instanceFor } from './helpers.ts';

export type RealKind = 'conv2d' | 'depthwiseConv2d' | 'fullyConnected' | 'averagePool2d' | 'maxPool2d' | 'add' | 'mul' | 'softmax' | 'transposeConv';
/** Parameter slots of the recorded harness (README: `harness.params`). */
const SLOTS = ['N', 'H', 'W', 'C', 'FH', 'FW', 'OC', 'OH', 'OW', 'SH', 'SW', 'PH', 'PW', 'DH', 'DW', 'IN_OFF', 'OUT_OFF', 'ACT_MIN', 'ACT_MAX', 'CH_MULT',
  'A_IN0', 'A_IN1', 'A_OUT', 'ARENA', 'HAS_BIAS', 'X0', 'X1', 'X2', 'X3', 'X4', 'X5', 'X6', 'X7', 'X8', 'X9'] as const;
type Slot = (typeof SLOTS)[number];

export interface RealCase {
  readonly kind: RealKind;
  readonly spec: KernelSpec;
  readonly graph: Graph;
  readonly path: string;
  /** Non-constant input tensor indices (slot order) and the output's. */
  readonly inputs: readonly number[];
  readonly output: number;
  readonly params: Readonly<Partial<Record<Slot, number>>>;
  readonly mult: Int32Array;
  readonly shift: Int32Array;
  /**
   * The two buffer sizes the harness reported, as the spec declares them: TFLM's RequestScratchBufferInArena
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

/** The harness parameters of `kind` from the spec's prepared data (TFLM's OpData values). */
export function realCase(kind: RealKind, spec: KernelSpec, graph: Graph, pathName: (p: ReturnType<KernelSpec['prepare']>) => string): RealCase {
  const ctx = makeOpContext(graph, 0);
  const p = spec.prepare(ctx);
  const s = p.scalars;
  const op = graph.ops[0]!;
  const inputs = op.inputs.filter((i) => i >= 0 && graph.tensors[i]!.data === null);
  const output = op.outputs[0]!;
  const common = { IN_OFF: s.inputOffset, OUT_OFF: s.outputOffset, ACT_MIN: s.actMin, ACT_MAX: s.actMax };
  const conv = {
    N: s.batches, H: s.inH, W: s.inW, C: s.inD, FH: s.fH, FW: s.fW, OC: s.outD, OH: s.outH, OW: s.outW,
    SH: s.strideH, SW: s.strideW, PH: s.padH, PW: s.padW, DH: s.dilH ?? 1, DW: s.dilW ?? 1, CH_MULT: s.depthMult ?? 1, HAS_BIAS: p.flags?.hasBias ?? 0,
  };
  let params: Partial<Record<Slot, number>>;
  switch (kind) {
    case 'conv2d': case 'depthwiseConv2d':
      params = { ...conv, ...common };
      break;
    case 'transposeConv': {
      const o = (op as { options: { padding: Padding } }).options;
      const offH = transposePaddingOffset(o.padding, s.outH!, s.fH!, s.strideH!);
      const offW = transposePaddingOffset(o.padding, s.outW!, s.fW!, s.strideW!);
      // TFLM's own activation range (CalculateActivationRangeQuantized): the cases use none.
      params = { ...conv, ...common, ACT_MIN: -128, ACT_MAX: 127, X0: offH, X1: offW };
      break;
    }
    case 'fullyConnected':
      params = { ...common, HAS_BIAS: p.flags?.hasBias ?? 0, X0: s.filterOffset, X1: (graph.tensors[op.inputs[1]!]!.quant?.scale.length ?? 1) > 1 ? 1 : 0, X2: s.batches, X3: s.accum, X4: s.outD };
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
    kind, spec, graph, path: pathName(p), inputs, output, params,
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

/** The arena after the spec ran on `pl` (activation region only; the spec's scratch lies after it). */
export function runSpecOnArena(rc: RealCase, pl: Placement): Uint8Array {
  const { inst, arenaBytes } = instanceFor(rc.spec, { graph: rc.graph, inputs: new Map(), output: rc.output }, pl.offsets);
  const views = makeArenaViews(new ArrayBuffer(Math.max(arenaBytes, pl.arenaBytes)));
  views.u8.set(pl.init, 0);
  compileKernel(inst, views).run();
  return views.u8.slice(0, pl.arenaBytes);
}
