// Which compiled code one op runs in a TFLM build, and how often each of its blocks executes: the
// kernel library (reference / cmsis-nn) and CMSIS-NN's code path (DSP, MVE, plain C, picked by the
// CPU as the build's ARM_MATH_DSP / ARM_MATH_MVEI do) choose the functions; the op's shapes and
// parameters (the reference spec's prepared scalars) give the loop trip counts. An op kind or path
// without a counter is an error naming it, never a guess.
import type { Graph } from '../../../ir/index.ts';
import { InternalError, ModelError } from '../../../ir/index.ts';
import type { Prepared } from '../../../kernels/index.ts';
import { CONV_PATH, DW_PATH, cmsisConvPath, cmsisDepthwisePath, prepareOp } from '../../../kernels/index.ts';
import type { Blocks } from './blocks.ts';
import { addBlock } from './blocks.ts';
import type { ConvShape } from './cmsis-dsp-conv.ts';
import { convolve1x1Blocks, convolveS8Blocks } from './cmsis-dsp-conv.ts';
import { depthwise3x3Blocks, depthwiseGenericBlocks, depthwiseOptDspBlocks } from './cmsis-dsp-depthwise.ts';
import { fullyConnectedBlocks } from './cmsis-dsp-fc.ts';
import type { PoolShape } from './cmsis-dsp-misc.ts';
import { avgPoolCBlocks, avgPoolDspBlocks, elementwiseBlocks, maxPoolBlocks, softmaxBlocks } from './cmsis-dsp-misc.ts';
import { transposeConvBlocks } from './cmsis-dsp-tconv.ts';

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
    case 'transposeConv': {
      const p = prepared();
      addBlock(b, 'glue.transposeConv', 1);
      return transposeConvBlocks(b, convShape({ ...p.scalars, dilH: 1, dilW: 1 }, p.arrays), (p.flags?.['hasBias'] ?? 0) === 1, dsp ? 'dsp' : 'c');
    }
    default: return null;
  }
}

/**
 * memcpy calls TFLM's Eval makes around the kernel (RuntimeShape and dims struct copies), per op
 * kind, counted in the lab builds: priced as one average call each ('memcpy.glueCall').
 */
const GLUE_MEMCPY: Partial<Record<string, number>> = {
  add: 7, averagePool2d: 2, depthwiseConv2d: 4, fullyConnected: 1, maxPool2d: 2, transposeConv: 4,
};

/** The blocks op `opIndex` executes on `code`. */
export function opBlocks(graph: Graph, opIndex: number, code: CodePath): OpBlocks {
  const op = graph.ops[opIndex];
  if (op === undefined) throw new InternalError(`no op ${opIndex}`);
  const b: Blocks = {};
  if (code === 'dsp' || code === 'c') {
    const path = cmsisScalarPaths(b, graph, opIndex, code === 'dsp');
    if (path !== null) {
      addBlock(b, 'memcpy.glueCall', GLUE_MEMCPY[op.kind] ?? 0);
      return { path, blocks: b };
    }
  }
  return unsupported(graph, opIndex, `${op.kind} on the ${code} build`);
}
