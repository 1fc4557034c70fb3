// Which compiled code one op runs in a TFLM build, and how often each of its blocks executes: the
// kernel library (reference / cmsis-nn) and CMSIS-NN's code path (DSP, MVE, plain C, picked by the
// CPU as the build's ARM_MATH_DSP / ARM_MATH_MVEI do) choose the functions; the op's shapes and
// parameters (the reference spec's prepared scalars) give the loop trip counts. An op kind or path
// without a counter is an error naming it, never a guess.
import type { Graph } from '../../../ir/index.ts';
import { InternalError, ModelError } from '../../../ir/index.ts';
import type { Prepared } from '../../../kernels/index.ts';
import { CONV_PATH, DW_PATH, cmsisConvPath, cmsisDepthwisePath, nearestIndices, prepareOp, quantizeMultiplier } from '../../../kernels/index.ts';
import type { Blocks } from './blocks.ts';
import { addBlock } from './blocks.ts';
import type { ConvShape } from './cmsis-dsp-conv.ts';
import { convolve1x1Blocks, convolveS8Blocks } from './cmsis-dsp-conv.ts';
import { depthwise3x3Blocks, depthwiseGenericBlocks, depthwiseOptDspBlocks } from './cmsis-dsp-depthwise.ts';
import { fullyConnectedBlocks } from './cmsis-dsp-fc.ts';
import type { PoolShape } from './cmsis-dsp-misc.ts';
import { avgPoolCBlocks, avgPoolDspBlocks, elementwiseBlocks, maxPoolBlocks, softmaxBlocks } from './cmsis-dsp-misc.ts';
import { transposeConvBlocks } from './cmsis-dsp-tconv.ts';
import { concatenationBlocks, copyBlocks, logSoftmaxBlocks, meanBlocks, padBlocks, quantizeBlocks, resizeBilinearBlocks, resizeNearestBlocks, transposeBlocks } from './reference-counts.ts';

/** The compiled code an op runs: TFLM's reference kernels, or TFLM + CMSIS-NN on one code path. */
export type CodePath = 'reference' | 'dsp' | 'mve' | 'c';

export interface OpBlocks {
  /** The kernel function the op reaches (e.g. 'arm_convolve_1x1_s8_fast'). */
  readonly path: string;
  readonly blocks: Blocks;
}

const num = (s: Readonly<Record<string, number>>, k: string): number => {
  const v = s[k];
  if (v === undefined) throw new InternalError(`instruction model: prepared scalar '${k}' missing`);
  return v;
};

/** 1 per output channel whose requantize multiplier is >= 1 (QuantizeMultiplier's shift > 0). */
function leftShiftsOf(arrays: Readonly<Record<string, Int32Array>> | undefined): number[] {
  return [...(arrays?.['shift'] ?? [])].map((v) => (v > 0 ? 1 : 0));
}

function convShape(s: Readonly<Record<string, number>>, arrays: Readonly<Record<string, Int32Array>> | undefined): ConvShape {
  return {
    lsh: leftShiftsOf(arrays),
    batches: num(s, 'batches'), inH: num(s, 'inH'), inW: num(s, 'inW'), inD: num(s, 'inD'),
    outH: num(s, 'outH'), outW: num(s, 'outW'), outD: num(s, 'outD'), fH: num(s, 'fH'), fW: num(s, 'fW'),
    strideH: num(s, 'strideH'), strideW: num(s, 'strideW'), dilH: num(s, 'dilH'), dilW: num(s, 'dilW'),
    padH: num(s, 'padH'), padW: num(s, 'padW'),
  };
}

function unsupported(graph: Graph, opIndex: number, what: string): never {
  const kind = graph.ops[opIndex]?.kind ?? 'op';
  throw new ModelError('E_MODEL_UNSUPPORTED_OP', `op ${opIndex} (${kind}): no instruction model for ${what}`, [
    { code: 'E_MODEL_UNSUPPORTED_OP', message: `no instruction model for ${what}`, opIndex, opKind: kind },
  ]);
}

function cmsisConv(b: Blocks, p: Prepared, dsp: boolean): string {
  const s = p.scalars;
  const shape = convShape(s, p.arrays);
  const { path } = cmsisConvPath(s, { dsp, mve: false });
  addBlock(b, 'glue.conv2d', 1);
  if (path === CONV_PATH.ntAllRows || path === CONV_PATH.ntPerRow) {
    convolve1x1Blocks(b, shape, path === CONV_PATH.ntAllRows, dsp);
    return path === CONV_PATH.ntAllRows ? 'arm_convolve_1x1_s8_fast' : 'arm_convolve_1x1_s8';
  }
  const oneByN = shape.inH === 1 && shape.dilW === 1 && shape.fH === 1 && (shape.strideW * shape.inD) % 4 === 0;
  if (oneByN) addBlock(b, 'glue.conv2d.oneByN', 1);
  convolveS8Blocks(b, shape, dsp);
  return oneByN ? 'arm_convolve_1_x_n_s8 -> arm_convolve_s8' : 'arm_convolve_s8';
}

function cmsisDepthwise(b: Blocks, p: Prepared, dsp: boolean): string {
  const s = p.scalars;
  const shape = convShape(s, p.arrays);
  const { path } = cmsisDepthwisePath(s, { dsp, mve: false });
  addBlock(b, 'glue.depthwiseConv2d', 1);
  if (path === DW_PATH.threeByThree) { depthwise3x3Blocks(b, shape); return 'arm_depthwise_conv_3x3_s8'; }
  if (path === DW_PATH.optDsp) { depthwiseOptDspBlocks(b, shape); return 'arm_depthwise_conv_s8_opt'; }
  depthwiseGenericBlocks(b, shape, num(s, 'depthMult'));
  return num(s, 'depthMult') % 4 === 0 ? 'arm_depthwise_conv_s8 (mult 4)' : 'arm_depthwise_conv_s8';
}

function cmsisFullyConnected(b: Blocks, graph: Graph, opIndex: number, dsp: boolean): string {
  const op = graph.ops[opIndex];
  const w = graph.tensors[op?.inputs[1] ?? -1];
  const out = graph.tensors[op?.outputs[0] ?? -1];
  if (op === undefined || w === undefined || out === undefined) throw new InternalError(`fully connected op ${opIndex}: tensors missing`);
  const [n = 1, k = 1] = w.shape;
  const outElems = out.shape.reduce((a, d) => a * d, 1);
  const batches = Math.max(1, Math.round(outElems / n));
  if (out.shape.length > 2 && k % 4 === 0) unsupported(graph, opIndex, 'fully connected as arm_convolve_1x1_s8_fast (output rank > 2)');
  addBlock(b, 'glue.fullyConnected', 1);
  fullyConnectedBlocks(b, batches, k, n, leftShiftsOf(prepareOp(graph, opIndex).prepared.arrays), dsp);
  return 'arm_fully_connected_s8';
}

function poolShape(s: Readonly<Record<string, number>>): PoolShape {
  return {
    batches: num(s, 'batches'), inH: num(s, 'inH'), inW: num(s, 'inW'), ch: num(s, 'depth'), outH: num(s, 'outH'), outW: num(s, 'outW'),
    fH: num(s, 'fH'), fW: num(s, 'fW'), strideH: num(s, 'strideH'), strideW: num(s, 'strideW'), padH: num(s, 'padH'), padW: num(s, 'padW'),
  };
}

const sameShape = (graph: Graph, a: number | undefined, b: number | undefined): boolean =>
  (graph.tensors[a ?? -1]?.shape ?? []).join('x') === (graph.tensors[b ?? -1]?.shape ?? []).join('x');

/** Elements of tensor `t`. */
const elements = (graph: Graph, t: number | undefined): number => (graph.tensors[t ?? -1]?.shape ?? []).reduce((a, d) => a * d, 1);

/** CMSIS-NN paths shared by the DSP and plain-C builds (their loop structures are the same, minus the SIMD parts). */
function cmsisScalarPaths(b: Blocks, graph: Graph, opIndex: number, dsp: boolean): string | null {
  const op = graph.ops[opIndex];
  if (op === undefined) return null;
  const prepared = (): Prepared => prepareOp(graph, opIndex).prepared;
  switch (op.kind) {
    case 'conv2d': return cmsisConv(b, prepared(), dsp);
    case 'depthwiseConv2d': return cmsisDepthwise(b, prepared(), dsp);
    case 'fullyConnected': return cmsisFullyConnected(b, graph, opIndex, dsp);
    case 'add':
    case 'mul': {
      if (!sameShape(graph, op.inputs[0], op.inputs[1])) return null;
      const s = prepared().scalars;
      addBlock(b, `glue.${op.kind}`, 1);
      const shifts = op.kind === 'add' ? [num(s, 'shift1'), num(s, 'shift2'), num(s, 'outShift')] : [num(s, 'shift')];
      const fn = op.kind === 'add' ? 'arm_elementwise_add_s8' : 'arm_elementwise_mul_s8';
      elementwiseBlocks(b, fn, elements(graph, op.outputs[0]), shifts, dsp);
      return fn;
    }
    case 'maxPool2d':
      addBlock(b, 'glue.maxPool2d', 1);
      maxPoolBlocks(b, poolShape(prepared().scalars));
      return 'arm_max_pool_s8';
    case 'averagePool2d':
      addBlock(b, 'glue.averagePool2d', 1);
      if (dsp) avgPoolDspBlocks(b, poolShape(prepared().scalars));
      else avgPoolCBlocks(b, poolShape(prepared().scalars));
      return 'arm_avgpool_s8';
    case 'softmax': {
      const s = prepared().scalars;
      addBlock(b, 'glue.softmax', 1);
      softmaxBlocks(b, num(s, 'outer'), num(s, 'depth'));
      return 'arm_softmax_s8';
    }
    case 'fetchingConv2d': {
      // TinySeg's FetchingConv2D runs CMSIS-NN's convolution over its row window (arm_fused_convolve_s8):
      // priced as the arm_convolve_wrapper_s8 path of its geometry (all input channels).
      const path = cmsisConv(b, prepared(), dsp);
      delete b['glue.conv2d'];
      addBlock(b, 'glue.conv2d', 1);
      return `TinySeg FetchingConv2D as ${path}`;
    }
    case 'merge': {
      // FDT's Merge (mcusim's own op) runs the partition's conv / fully connected dot products: priced as
      // that CMSIS-NN kernel of the partition's geometry.
      const p = prepared();
      if ((p.flags?.['conv'] ?? 0) === 1) return `FDT Merge as ${cmsisConv(b, p, dsp)}`;
      addBlock(b, 'glue.fullyConnected', 1);
      fullyConnectedBlocks(b, num(p.scalars, 'batches'), num(p.scalars, 'accum'), num(p.scalars, 'outD'), leftShiftsOf(p.arrays), dsp);
      return 'FDT Merge as arm_fully_connected_s8';
    }
    case 'transposeConv': {
      const p = prepared();
      addBlock(b, 'glue.transposeConv', 1);
      return transposeConvBlocks(b, convShape({ ...p.scalars, dilH: 1, dilW: 1 }, p.arrays), (p.flags?.['hasBias'] ?? 0) === 1, dsp ? 'dsp' : 'c');
    }
    default: return null;
  }
}

const shapeOf = (graph: Graph, t: number | undefined): readonly number[] => graph.tensors[t ?? -1]?.shape ?? [];

/** The int32 values of a constant tensor (paddings, axes, permutations, sizes). */
function constInts(graph: Graph, t: number | undefined): number[] {
  const x = graph.tensors[t ?? -1];
  if (x?.data === null || x?.data === undefined) return [];
  const v = new DataView(x.data.buffer, x.data.byteOffset, x.data.byteLength);
  return Array.from({ length: x.data.byteLength >> 2 }, (_, i) => v.getInt32(4 * i, true));
}

const scaleOf = (graph: Graph, t: number | undefined): number => graph.tensors[t ?? -1]?.quant?.scale[0] ?? 1;

/** Ops that run TFLM's own kernels (no CMSIS-NN variant) or CMSIS-NN's pad / transpose for int8. */
function sharedPaths(b: Blocks, graph: Graph, opIndex: number, mve: boolean): string | null {
  const op = graph.ops[opIndex];
  if (op === undefined) return null;
  const input = shapeOf(graph, op.inputs[0]);
  const output = shapeOf(graph, op.outputs[0]);
  const inType = graph.tensors[op.inputs[0] ?? -1]?.dtype;
  const outType = graph.tensors[op.outputs[0] ?? -1]?.dtype;
  addBlock(b, `glue.${op.kind}`, 1);
  switch (op.kind) {
    case 'pad': {
      const p = constInts(graph, op.inputs[1]);
      const rank = input.length;
      const pad4 = (i: number, side: 0 | 1): number => (i < 4 - rank ? 0 : p[2 * (i - (4 - rank)) + side] ?? 0);
      const in4 = [...Array(4 - rank).fill(1), ...input];
      padBlocks(b, in4, [0, 1, 2, 3].map((i) => pad4(i, 0)), [0, 1, 2, 3].map((i) => pad4(i, 1)));
      return 'arm_pad_s8';
    }
    case 'mean': {
      const axes = constInts(graph, op.inputs[1]);
      const q = quantizeMultiplier(scaleOf(graph, op.inputs[0]) / scaleOf(graph, op.outputs[0]));
      // QuantizedMeanOrSum folds 1 / (elements per output) into the multiplier: shift - floor(log2 n).
      const perOut = input.reduce((a, d) => a * d, 1) / Math.max(1, output.reduce((a, d) => a * d, 1));
      const fold = Math.min(Math.floor(Math.log2(perOut)), 32, 31 + q.shift);
      meanBlocks(b, input, axes, output.reduce((a, d) => a * d, 1), q.shift - fold);
      return 'reference Mean (QuantizedMeanOrSum)';
    }
    case 'quantize': {
      const n = output.reduce((a, d) => a * d, 1);
      if (inType === 'float32') { quantizeBlocks(b, 'affine', n, 0); return 'reference AffineQuantize'; }
      const same = scaleOf(graph, op.inputs[0]) === scaleOf(graph, op.outputs[0]);
      const zpDiff = (graph.tensors[op.inputs[0] ?? -1]?.quant?.zeroPoint[0] ?? 0) - (graph.tensors[op.outputs[0] ?? -1]?.quant?.zeroPoint[0] ?? 0);
      if (same && inType === 'uint8' && outType === 'int8' && zpDiff === 128) { quantizeBlocks(b, 'xor', n, 0); return 'reference Requantize (xor 0x80)'; }
      quantizeBlocks(b, 'requant', n, quantizeMultiplier(scaleOf(graph, op.inputs[0]) / scaleOf(graph, op.outputs[0])).shift);
      return 'reference Requantize';
    }
    case 'dequantize':
      quantizeBlocks(b, 'dequant', output.reduce((a, d) => a * d, 1), 0);
      return 'reference Dequantize';
    case 'resizeBilinear':
      resizeBilinearBlocks(b, output[0] ?? 1, output[1] ?? 1, output[2] ?? 1, output[3] ?? 1);
      return 'reference ResizeBilinearInteger';
    case 'resizeNearestNeighbor': {
      const o = op.options;
      const ys = nearestIndices(input[1] ?? 1, output[1] ?? 1, o.alignCorners, o.halfPixelCenters);
      const xs = nearestIndices(input[2] ?? 1, output[2] ?? 1, o.alignCorners, o.halfPixelCenters);
      resizeNearestBlocks(b, input, ys, xs, o.alignCorners ? 'align' : o.halfPixelCenters ? 'half' : 'plain');
      return 'reference ResizeNearestNeighbor';
    }
    case 'concatenation': {
      const axis = op.options.axis < 0 ? op.options.axis + output.length : op.options.axis;
      concatenationBlocks(b, op.inputs.map((t) => shapeOf(graph, t)), axis);
      addBlock(b, 'glue.concatenation.input', op.inputs.length);
      return 'reference Concatenation';
    }
    case 'transpose':
      transposeBlocks(b, input, constInts(graph, op.inputs[1]), mve);
      return 'arm_transpose_s8';
    case 'reshape':
      copyBlocks(b, 'EvalReshapeReference', output.reduce((a, d) => a * d, 1));
      return 'reference Reshape (copy)';
    case 'fetching': {
      // TinySeg's Fetching concatenates the fetched slot with its inputs along `axis` (the device read is
      // timed by the storage model): priced as the concatenation copy of the output.
      delete b['glue.fetching'];
      addBlock(b, 'glue.concatenation', 1);
      const axis = op.options.axis < 0 ? op.options.axis + output.length : op.options.axis;
      const parts = [...op.inputs.map((t) => shapeOf(graph, t)), shapeOf(graph, op.options.victim)];
      concatenationBlocks(b, parts, axis);
      addBlock(b, 'glue.concatenation.input', parts.length);
      return 'TinySeg Fetching as reference Concatenation (copy)';
    }
    case 'logSoftmax':
      logSoftmaxBlocks(b, output.slice(0, -1).reduce((a, d) => a * d, 1), output[output.length - 1] ?? 1);
      return 'reference LogSoftmax';
    default:
      delete b[`glue.${op.kind}`];
      return null;
  }
}

/**
 * memcpy calls TFLM's Eval makes around the kernel (RuntimeShape and dims struct copies), per op
 * kind, counted in the lab builds: priced as one average call each ('memcpy.glueCall').
 */
const GLUE_MEMCPY: Partial<Record<string, number>> = {
  add: 7, averagePool2d: 2, depthwiseConv2d: 4, fullyConnected: 1, maxPool2d: 2, transposeConv: 4,
  pad: 1, resizeBilinear: 6, resizeNearestNeighbor: 5, transpose: 8, logSoftmax: 2, dequantize: 2,
};

function glueMemcpyCalls(graph: Graph, opIndex: number): number {
  const op = graph.ops[opIndex];
  if (op === undefined) return 0;
  // ConcatenationEval copies each input's shape and dims pointer; Quantize copies shapes on its float path.
  if (op.kind === 'concatenation') return 1 + 2 * op.inputs.length;
  if (op.kind === 'quantize') return graph.tensors[op.inputs[0] ?? -1]?.dtype === 'float32' ? 2 : 0;
  return GLUE_MEMCPY[op.kind] ?? 0;
}

/** The blocks op `opIndex` executes on `code`. */
export function opBlocks(graph: Graph, opIndex: number, code: CodePath): OpBlocks {
  const op = graph.ops[opIndex];
  if (op === undefined) throw new InternalError(`no op ${opIndex}`);
  const b: Blocks = {};
  if (code === 'dsp' || code === 'c') {
    const path = cmsisScalarPaths(b, graph, opIndex, code === 'dsp') ?? sharedPaths(b, graph, opIndex, false);
    if (path !== null) {
      addBlock(b, 'memcpy.glueCall', glueMemcpyCalls(graph, opIndex));
      return { path, blocks: b };
    }
  }
  return unsupported(graph, opIndex, `${op.kind} on the ${code} build`);
}
