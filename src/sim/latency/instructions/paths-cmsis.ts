// CMSIS-NN's code paths as TFLM's kernels/cmsis_nn/*.cc reach them: the DSP and plain-C builds (the same
// loop structures without the SIMD parts) and the MVE build; the wrappers' dispatch (arm_convolve_wrapper_s8,
// arm_depthwise_conv_wrapper_s8, arm_transpose_conv_wrapper_s8) comes from the kernel specs' path
// functions. mcusim's own conv-like ops (TinySeg FetchingConv2D, FDT Merge) are priced as the CMSIS-NN
// kernel of their geometry, and say so in their path.
import type { Graph } from '../../../ir/index.ts';
import { InternalError } from '../../../ir/index.ts';
import type { Prepared } from '../../../kernels/index.ts';
import { CONV_PATH, DW_PATH, cmsisConvPath, cmsisDepthwisePath, prepareOp } from '../../../kernels/index.ts';
import type { Blocks } from './blocks.ts';
import { addBlock, prod } from './blocks.ts';
import { convolve1x1Blocks, convolveS8Blocks } from './cmsis-dsp-conv.ts';
import { depthwise3x3Blocks, depthwiseGenericBlocks, depthwiseOptDspBlocks } from './cmsis-dsp-depthwise.ts';
import { fullyConnectedBlocks } from './cmsis-dsp-fc.ts';
import { avgPoolCBlocks, avgPoolDspBlocks, elementwiseBlocks, maxPoolBlocks, softmaxBlocks } from './cmsis-dsp-misc.ts';
import { transposeConvBlocks } from './cmsis-dsp-tconv.ts';
import { lstmBlocks, svdfBlocks } from './cmsis-rnn.ts';
import { avgPoolMveBlocks, convolve1xNMveBlocks, convolve1x1MveBlocks, convolveS8MveBlocks, depthwiseOptMveBlocks, elementwiseMveBlocks, fullyConnectedMveBlocks, maxPoolMveBlocks } from './cmsis-mve.ts';
import { convShape, elements, leftShiftsOf, num, poolShape, sameShape, shapeOf, unsupported } from './op-shapes.ts';
import { transposeBlocks } from './reference-counts.ts';

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

/** EvalQuantizedInt8 takes arm_convolve_1x1_s8_fast for an output of rank > 2 and a depth a multiple of 4. */
const takesConv1x1 = (out: readonly number[], depth: number): boolean => out.length > 2 && depth % 4 === 0;

/**
 * EvalQuantizedInt8's arm_convolve_1x1_s8_fast branch (output rank > 2, depth a multiple of 4): the
 * batches as the pixels of a 1x1 convolution; a per-tensor filter first fills the scratch's faked
 * per-channel multiplier and shift arrays (one pass per output channel). Null when the op takes
 * arm_fully_connected_s8.
 */
function fullyConnectedConv1x1(b: Blocks, graph: Graph, opIndex: number, code: 'dsp' | 'mve'): string | null {
  const op = graph.ops[opIndex];
  const w = graph.tensors[op?.inputs[1] ?? -1];
  const out = shapeOf(graph, op?.outputs[0]);
  if (op === undefined || w === undefined) throw new InternalError(`fully connected op ${opIndex}: tensors missing`);
  const [n = 1, k = 1] = w.shape;
  if (!takesConv1x1(out, k)) return null;
  const batches = Math.max(1, Math.round(prod(out) / n));
  const lsh = leftShiftsOf(prepareOp(graph, opIndex).prepared.arrays);
  const perChannel = (w.quant?.scale.length ?? 1) > 1;
  addBlock(b, 'glue.fullyConnected', 1);
  addBlock(b, 'glue.fullyConnected.conv1x1', 1);
  if (!perChannel) addBlock(b, 'glue.fullyConnected.conv1x1.fill', n);
  const shape = { lsh, batches: 1, inH: 1, inW: batches, inD: k, outH: 1, outW: batches, outD: n, fH: 1, fW: 1, strideH: 1, strideW: 1, dilH: 1, dilW: 1, padH: 0, padW: 0 };
  if (code === 'mve') convolve1x1MveBlocks(b, shape, true); else convolve1x1Blocks(b, shape, true, true);
  return 'fully connected as arm_convolve_1x1_s8_fast';
}

function cmsisFullyConnected(b: Blocks, graph: Graph, opIndex: number, dsp: boolean): string {
  const op = graph.ops[opIndex];
  const w = graph.tensors[op?.inputs[1] ?? -1];
  const out = graph.tensors[op?.outputs[0] ?? -1];
  if (op === undefined || w === undefined || out === undefined) throw new InternalError(`fully connected op ${opIndex}: tensors missing`);
  const [n = 1, k = 1] = w.shape;
  const outElems = out.shape.reduce((a, d) => a * d, 1);
  const batches = Math.max(1, Math.round(outElems / n));
  // Measured on the DSP build only; the plain-C build's faked per-channel fill is not.
  const conv = dsp ? fullyConnectedConv1x1(b, graph, opIndex, 'dsp') : null;
  if (conv !== null) return conv;
  if (takesConv1x1(out.shape, k)) return unsupported(graph, opIndex, 'fully connected as arm_convolve_1x1_s8_fast (output rank > 2) on the plain-C build');
  addBlock(b, 'glue.fullyConnected', 1);
  fullyConnectedBlocks(b, batches, k, n, leftShiftsOf(prepareOp(graph, opIndex).prepared.arrays), dsp);
  return 'arm_fully_connected_s8';
}

/** UNIDIRECTIONAL_SEQUENCE_LSTM through arm_lstm_unidirectional_s8 (int8 activations; the spec refuses others). */
function cmsisLstm(b: Blocks, graph: Graph, opIndex: number, mve: boolean): string {
  const op = graph.ops[opIndex];
  if (op?.kind !== 'unidirectionalSequenceLstm') throw new InternalError(`op ${opIndex} is not an LSTM`);
  const s = prepareOp(graph, opIndex).prepared.scalars;
  const gates = ['f', 'i', 'c', 'o'];
  addBlock(b, 'glue.unidirectionalSequenceLstm', 1);
  lstmBlocks(b, {
    batches: num(s, 'rows') * num(s, 'outerBatches'), steps: num(s, 'steps'), inputSize: num(s, 'inputSize'), units: num(s, 'units'),
    timeMajor: op.options.timeMajor, inputShifts: gates.map((g) => num(s, `sI_${g}`)), recurrentShifts: gates.map((g) => num(s, `sR_${g}`)),
  }, mve);
  return 'arm_lstm_unidirectional_s8';
}

/** SVDF through arm_svdf_state_s16_s8 (int16 state) or arm_svdf_s8 (int8). */
function cmsisSvdf(b: Blocks, graph: Graph, opIndex: number, mve: boolean): string {
  const op = graph.ops[opIndex];
  const s = prepareOp(graph, opIndex).prepared.scalars;
  addBlock(b, 'glue.svdf', 1);
  return svdfBlocks(b, {
    batches: num(s, 'batches'), inputSize: num(s, 'inputSize'), filters: num(s, 'filters'), memory: num(s, 'memory'), rank: num(s, 'rank'),
    int16: graph.tensors[op?.inputs[4] ?? -1]?.dtype === 'int16', shift1: num(s, 'sh1'), shift2: num(s, 'sh2'),
  }, mve);
}

/** arm_max_pool_s8, arm_avgpool_s8 (each code path's loops) and arm_softmax_s8 (one loop structure). */
function poolOrSoftmax(b: Blocks, kind: 'maxPool2d' | 'averagePool2d' | 'softmax', s: Readonly<Record<string, number>>, code: 'dsp' | 'c' | 'mve'): string {
  addBlock(b, `glue.${kind}`, 1);
  if (kind === 'softmax') {
    softmaxBlocks(b, num(s, 'outer'), num(s, 'depth'));
    return 'arm_softmax_s8';
  }
  const shape = poolShape(s);
  if (kind === 'maxPool2d') {
    if (code === 'mve') maxPoolMveBlocks(b, shape); else maxPoolBlocks(b, shape);
    return 'arm_max_pool_s8';
  }
  if (code === 'mve') avgPoolMveBlocks(b, shape); else if (code === 'dsp') avgPoolDspBlocks(b, shape); else avgPoolCBlocks(b, shape);
  return 'arm_avgpool_s8';
}

/** CMSIS-NN paths shared by the DSP and plain-C builds (their loop structures are the same, minus the SIMD parts). */
export function cmsisScalarPaths(b: Blocks, graph: Graph, opIndex: number, dsp: boolean): string | null {
  const op = graph.ops[opIndex];
  if (op === undefined) return null;
  const prepared = (): Prepared => prepareOp(graph, opIndex).prepared;
  switch (op.kind) {
    case 'conv2d': return cmsisConv(b, prepared(), dsp);
    case 'depthwiseConv2d': return cmsisDepthwise(b, prepared(), dsp);
    case 'fullyConnected': return cmsisFullyConnected(b, graph, opIndex, dsp);
    // LSTM and SVDF: measured on the DSP build only (the plain-C build's row groups of three are not).
    case 'unidirectionalSequenceLstm': return dsp ? cmsisLstm(b, graph, opIndex, false) : null;
    case 'svdf': return dsp ? cmsisSvdf(b, graph, opIndex, false) : null;
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
    case 'averagePool2d':
    case 'softmax':
      return poolOrSoftmax(b, op.kind, prepared().scalars, dsp ? 'dsp' : 'c');
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

/** CMSIS-NN's MVE paths (Cortex-M55 / M85). */
export function cmsisMvePaths(b: Blocks, graph: Graph, opIndex: number): string | null {
  const op = graph.ops[opIndex];
  if (op === undefined) return null;
  const prepared = (): Prepared => prepareOp(graph, opIndex).prepared;
  const f = { dsp: true, mve: true };
  switch (op.kind) {
    case 'conv2d':
    case 'fetchingConv2d': {
      const p = prepared();
      const shape = convShape(p.scalars, p.arrays);
      addBlock(b, 'glue.conv2d', 1);
      const { path } = cmsisConvPath(p.scalars, f);
      const tag = op.kind === 'fetchingConv2d' ? 'TinySeg FetchingConv2D as ' : '';
      if (path === CONV_PATH.ntAllRows || path === CONV_PATH.ntPerRow) {
        convolve1x1MveBlocks(b, shape, path === CONV_PATH.ntAllRows);
        return `${tag}${path === CONV_PATH.ntAllRows ? 'arm_convolve_1x1_s8_fast' : 'arm_convolve_1x1_s8'}`;
      }
      if (path === CONV_PATH.oneByNMve) {
        addBlock(b, 'glue.conv2d.oneByN', 1);
        return `${tag}arm_convolve_1_x_n_s8${convolve1xNMveBlocks(b, shape) ? '' : ' -> arm_convolve_s8'}`;
      }
      convolveS8MveBlocks(b, shape);
      return `${tag}arm_convolve_s8`;
    }
    case 'depthwiseConv2d': {
      const p = prepared();
      const shape = convShape(p.scalars, p.arrays);
      addBlock(b, 'glue.depthwiseConv2d', 1);
      const { path } = cmsisDepthwisePath(p.scalars, f);
      if (path === DW_PATH.optMve) { depthwiseOptMveBlocks(b, shape); return 'arm_depthwise_conv_s8_opt'; }
      if (path === DW_PATH.toConv) {
        addBlock(b, 'glue.depthwiseConv2d.toConv', 1);
        // arm_depthwise_conv_to_conv_s8: the filter transposed to [outD, fH, fW, 1] (arm_transpose_s8), then a conv.
        transposeBlocks(b, [1, shape.fH, shape.fW, shape.outD], [3, 1, 2, 0], true);
        const conv = cmsisConvPath(p.scalars, f).path;
        if (conv === CONV_PATH.ntAllRows || conv === CONV_PATH.ntPerRow) {
          convolve1x1MveBlocks(b, shape, conv === CONV_PATH.ntAllRows);
          return `depthwise as ${conv === CONV_PATH.ntAllRows ? 'arm_convolve_1x1_s8_fast' : 'arm_convolve_1x1_s8'}`;
        }
        if (conv === CONV_PATH.oneByNMve) return unsupported(graph, opIndex, 'depthwise as arm_convolve_1_x_n_s8 on MVE');
        convolveS8MveBlocks(b, shape);
        return 'depthwise as arm_convolve_s8';
      }
      depthwiseGenericBlocks(b, shape, num(p.scalars, 'depthMult'));
      return num(p.scalars, 'depthMult') % 4 === 0 ? 'arm_depthwise_conv_s8 (mult 4)' : 'arm_depthwise_conv_s8';
    }
    case 'fullyConnected': {
      const w = shapeOf(graph, op.inputs[1]);
      const out = shapeOf(graph, op.outputs[0]);
      const [n = 1, k = 1] = w;
      const conv = fullyConnectedConv1x1(b, graph, opIndex, 'mve');
      if (conv !== null) return conv;
      addBlock(b, 'glue.fullyConnected', 1);
      fullyConnectedMveBlocks(b, Math.max(1, Math.round(out.reduce((a, d) => a * d, 1) / n)), k, n, leftShiftsOf(prepared().arrays));
      return 'arm_fully_connected_s8';
    }
    case 'add':
    case 'mul': {
      if (!sameShape(graph, op.inputs[0], op.inputs[1])) return null;
      addBlock(b, `glue.${op.kind}`, 1);
      const fn = op.kind === 'add' ? 'arm_elementwise_add_s8' : 'arm_elementwise_mul_s8';
      elementwiseMveBlocks(b, fn, elements(graph, op.outputs[0]));
      return fn;
    }
    case 'maxPool2d':
    case 'averagePool2d':
    case 'softmax':
      return poolOrSoftmax(b, op.kind, prepared().scalars, 'mve');
    case 'transposeConv': {
      const p = prepared();
      addBlock(b, 'glue.transposeConv', 1);
      return transposeConvBlocks(b, convShape({ ...p.scalars, dilH: 1, dilW: 1 }, p.arrays), (p.flags?.['hasBias'] ?? 0) === 1, 'mve');
    }
    case 'unidirectionalSequenceLstm': return cmsisLstm(b, graph, opIndex, true);
    case 'svdf': return cmsisSvdf(b, graph, opIndex, true);
    default: return null;
  }
}

