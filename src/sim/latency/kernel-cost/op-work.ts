// Classifies one op into the kernel TFLM would run for a kernel library and core, and counts its
// work (work.ts units). CMSIS-NN: arm_convolve_wrapper_s8, arm_depthwise_conv_wrapper_s8 (the 3x3
// kernel only without MVE), arm_fully_connected_s8, arm_avgpool_s8 / arm_max_pool_s8,
// arm_elementwise_add_s8 / _mul_s8, arm_softmax_s8; every other op runs TFLM's reference kernel.
// Reference: TFLM reference_integer_ops ConvPerChannel / DepthwiseConvPerChannel / FullyConnected.
import type { Graph, Op } from '../../../ir/index.ts';
import { InternalError, convPadding, elementCount } from '../../../ir/index.ts';
import type { CoreFeatures, KernelLibrary } from '../../targets/index.ts';
import type { KernelWork, WeightStream, WorkCounts } from './work.ts';
import { addUnits, blockedMacs, validTaps } from './work.ts';

/** What the classifier needs besides the op's shapes: counts from the kernel spec's nest. */
export interface OpFacts {
  /** Executed MACs (taps inside the input only), from countCost. */
  readonly macs: number;
  /** Bytes the op's nest stores to the arena (copies). */
  readonly storeBytes: number;
}

const dim = (s: readonly number[] | undefined, i: number): number => s?.[i] ?? 1;

function shapeOf(graph: Graph, t: number | undefined): readonly number[] {
  const x = t === undefined || t < 0 ? undefined : graph.tensors[t];
  if (x === undefined) throw new InternalError(`missing tensor ${String(t)}`);
  return x.shape;
}

function constBytes(graph: Graph, t: number | undefined): number {
  const x = t === undefined || t < 0 ? undefined : graph.tensors[t];
  return x?.data?.length ?? 0;
}

interface Window {
  readonly inH: number; readonly inW: number; readonly outH: number; readonly outW: number;
  readonly kH: number; readonly kW: number; readonly sH: number; readonly sW: number;
  readonly dH: number; readonly dW: number; readonly padH: number; readonly padW: number;
}

function windowOf(inShape: readonly number[], outShape: readonly number[], kH: number, kW: number, o: { strideH: number; strideW: number; dilationH?: number; dilationW?: number }): Window {
  const inH = dim(inShape, 1); const inW = dim(inShape, 2); const outH = dim(outShape, 1); const outW = dim(outShape, 2);
  const dH = o.dilationH ?? 1; const dW = o.dilationW ?? 1;
  return {
    inH, inW, outH, outW, kH, kW, sH: o.strideH, sW: o.strideW, dH, dW,
    padH: convPadding(o.strideH, dH, inH, kH, outH).before, padW: convPadding(o.strideW, dW, inW, kW, outW).before,
  };
}

/** Window taps inside the input, summed over every output pixel. */
function insideTaps(w: Window): number {
  return validTaps(w.outH, w.inH, w.kH, w.sH, w.dH, w.padH) * validTaps(w.outW, w.inW, w.kW, w.sW, w.dW, w.padW);
}

function cmsisConv(graph: Graph, op: Op, filterSlot: number, core: CoreFeatures): KernelWork {
  const f = shapeOf(graph, op.inputs[filterSlot]);
  const out = shapeOf(graph, op.outputs[0]);
  const inp = shapeOf(graph, op.inputs[0]);
  const o = (op as { options?: unknown }).options as { strideH: number; strideW: number; dilationH: number; dilationW: number };
  const w = windowOf(inp, out, dim(f, 1), dim(f, 2), o);
  const oc = dim(f, 0); const ic = dim(f, 3); const k = w.kH * w.kW * ic;
  const pixels = w.outH * w.outW * dim(out, 0);
  const wBytes = constBytes(graph, op.inputs[filterSlot]);
  const units: Record<string, number> = { requant: pixels * oc, opCall: 1 };
  const oneByOne = w.kH === 1 && w.kW === 1 && w.padH === 0 && w.padW === 0 && w.dH === 1 && w.dW === 1;
  if (oneByOne) {
    // arm_convolve_1x1_s8_fast (stride 1): one arm_nn_mat_mult_nt_t_s8 over all pixels; weights
    // (rhs) are the outer loop, each pair of rows read once. arm_convolve_1x1_s8: one call per row.
    const fast = w.sH === 1 && w.sW === 1;
    addUnits(units, blockedMacs(oc, pixels, k, 'ntMac'));
    units['kernelCall'] = fast ? 1 : w.outH;
    const weights: WeightStream[] = [{ bytes: wBytes, passes: fast ? 1 : w.outH }];
    return { path: fast ? 'arm_convolve_1x1_s8_fast' : 'arm_convolve_1x1_s8', units, weights };
  }
  const oneByN = w.kH === 1 && w.outH === 1 && w.inH === 1 && w.padH === 0;
  // arm_convolve_s8: im2col of two output pixels (MVE: four), then the mat-mult kernel walks every
  // filter row for them: weights are read once per column group.
  const group = core.mve ? 4 : 2;
  addUnits(units, core.mve ? blockedMacs(oc, pixels, k, 'ntMac') : blockedMacs(oc, pixels, k, 'mmMac'));
  units['im2colByte'] = pixels * k;
  units['im2colTap'] = pixels * w.kH * w.kW;
  units['kernelCall'] = Math.ceil(pixels / group);
  return { path: oneByN ? 'arm_convolve_1_x_n_s8' : 'arm_convolve_s8 (im2col + mat-mult)', units, weights: [{ bytes: wBytes, passes: Math.ceil(pixels / group) }] };
}

function cmsisDepthwise(graph: Graph, op: Op, core: CoreFeatures): KernelWork {
  const f = shapeOf(graph, op.inputs[1]);
  const out = shapeOf(graph, op.outputs[0]);
  const inp = shapeOf(graph, op.inputs[0]);
  const o = (op as { options?: unknown }).options as { strideH: number; strideW: number; dilationH: number; dilationW: number; depthMultiplier: number };
  const w = windowOf(inp, out, dim(f, 1), dim(f, 2), o);
  const ch = dim(out, 3); const pixels = w.outH * w.outW * dim(out, 0);
  const wBytes = constBytes(graph, op.inputs[1]);
  const base: Record<string, number> = { requant: pixels * ch, opCall: 1 };
  const simple = o.depthMultiplier === 1 && dim(inp, 0) === 1 && w.dH === 1 && w.dW === 1;
  const taps = insideTaps(w);
  const ch4 = ch - (ch % 4);
  if (simple && !core.mve && w.kH === 3 && w.kW === 3 && w.padH <= 1 && w.padW <= 1) {
    // arm_depthwise_conv_3x3_s8: per output pixel, 4 channels a step over the taps inside the input.
    addUnits(base, { dwMac: taps * ch4, dwTailMac: taps * (ch - ch4), kernelCall: w.outH });
    return { path: 'arm_depthwise_conv_3x3_s8', units: base, weights: [{ bytes: wBytes, passes: w.outH * w.outW }] };
  }
  if (simple) {
    // arm_depthwise_conv_s8_opt: per output pixel a q15 (MVE: s8) buffer of every tap (padding as
    // -input_offset), then 4 channels a step over all kH*kW taps.
    const all = pixels * w.kH * w.kW;
    addUnits(base, { dwOptMac: all * ch4, dwTailMac: all * (ch - ch4), im2colByte: all * ch, kernelCall: w.outH });
    return { path: 'arm_depthwise_conv_s8_opt', units: base, weights: [{ bytes: wBytes, passes: pixels }] };
  }
  addUnits(base, { dwGenericMac: taps * ch, kernelCall: w.outH });
  return { path: 'arm_depthwise_conv_s8', units: base, weights: [{ bytes: wBytes, passes: pixels }] };
}

function cmsisFc(graph: Graph, op: Op): KernelWork {
  const wShape = shapeOf(graph, op.inputs[1]);
  const out = shapeOf(graph, op.outputs[0]);
  const n = dim(wShape, 0); const k = dim(wShape, 1);
  const batches = Math.max(1, Math.round(elementCount(out) / n));
  const k4 = k - (k % 4);
  const units: WorkCounts = { fcMac: batches * n * k4, tailMac: batches * n * (k - k4), requant: batches * n, kernelCall: batches, opCall: 1 };
  return { path: 'arm_fully_connected_s8 (arm_nn_vec_mat_mult_t_s8)', units, weights: [{ bytes: constBytes(graph, op.inputs[1]), passes: batches }] };
}

function pool(graph: Graph, op: Op, library: KernelLibrary): KernelWork {
  const out = shapeOf(graph, op.outputs[0]);
  const inp = shapeOf(graph, op.inputs[0]);
  const o = (op as { options?: unknown }).options as { strideH: number; strideW: number; filterH: number; filterW: number };
  const w = windowOf(inp, out, o.filterH, o.filterW, o);
  const ch = dim(out, 3);
  const taps = insideTaps(w) * ch * dim(out, 0);
  const outs = elementCount(out);
  if (library === 'reference') return { path: `reference ${op.kind}`, units: { refPoolTap: taps, refRequant: outs, opCall: 1 }, weights: [] };
  const tap = op.kind === 'maxPool2d' ? 'maxTap' : 'poolTap';
  return { path: op.kind === 'maxPool2d' ? 'arm_max_pool_s8' : 'arm_avgpool_s8', units: { [tap]: taps, poolOut: outs, opCall: 1 }, weights: [] };
}

/** Work of op `op` under `library` on `core`; `facts` come from the kernel spec's cost walk. */
export function opWork(graph: Graph, op: Op, library: KernelLibrary, core: CoreFeatures, facts: OpFacts): KernelWork {
  const outElems = op.outputs[0] === undefined || op.outputs[0] < 0 ? 0 : elementCount(shapeOf(graph, op.outputs[0]));
  const ref = (path: string, mac: 'refConvMac' | 'refDwMac' | 'refFcMac' | 'refTconvMac', filterSlot: number): KernelWork => ({
    path, units: { [mac]: facts.macs, refRequant: outElems, opCall: 1 },
    // The reference nests read the filter once per output pixel (FC: once per batch row).
    weights: [{ bytes: constBytes(graph, op.inputs[filterSlot]), passes: Math.max(1, Math.round(facts.macs / Math.max(1, constBytes(graph, op.inputs[filterSlot])))) }],
  });
  const cmsis = library === 'cmsis-nn';
  switch (op.kind) {
    case 'conv2d':
      return cmsis ? cmsisConv(graph, op, 1, core) : ref('reference ConvPerChannel', 'refConvMac', 1);
    case 'fetchingConv2d':
      // TinySeg's FetchingConv2D runs CMSIS-NN's convolution on its row window (arm_fused_convolve_s8).
      return cmsis ? cmsisConv(graph, op, op.inputs.length - 2, core) : ref('reference ConvPerChannel (fetching)', 'refConvMac', op.inputs.length - 2);
    case 'depthwiseConv2d':
      return cmsis ? cmsisDepthwise(graph, op, core) : ref('reference DepthwiseConvPerChannel', 'refDwMac', 1);
    case 'fullyConnected':
      return cmsis ? cmsisFc(graph, op) : ref('reference FullyConnected', 'refFcMac', 1);
    case 'svdf':
    case 'unidirectionalSequenceLstm':
    case 'merge':
      return cmsis
        ? { path: `${op.kind} (dot products)`, units: { fcMac: facts.macs, requant: outElems, opCall: 1 }, weights: [] }
        : { path: `reference ${op.kind}`, units: { refFcMac: facts.macs, refRequant: outElems, opCall: 1 }, weights: [] };
    case 'transposeConv':
      // TFLM's transpose conv: scatter of every input pixel's taps into an int32 scratch, then requantize.
      return ref('reference TransposeConv', 'refTconvMac', 1);
    case 'maxPool2d':
    case 'averagePool2d':
      return pool(graph, op, library);
    case 'add':
    case 'sub':
      return cmsis && op.kind === 'add'
        ? { path: 'arm_elementwise_add_s8', units: { addElem: outElems, opCall: 1 }, weights: [] }
        : { path: `reference ${op.kind}`, units: { refElem: 2 * outElems, opCall: 1 }, weights: [] };
    case 'mul':
      return cmsis
        ? { path: 'arm_elementwise_mul_s8', units: { mulElem: outElems, opCall: 1 }, weights: [] }
        : { path: 'reference mul', units: { refElem: outElems, opCall: 1 }, weights: [] };
    case 'softmax':
    case 'logSoftmax':
    case 'l2Normalization':
      return { path: cmsis && op.kind === 'softmax' ? 'arm_softmax_s8' : `reference ${op.kind}`, units: { softmaxElem: outElems, opCall: 1 }, weights: [] };
    default:
      return { path: `reference ${op.kind}`, units: { refElem: outElems, opCall: 1 }, weights: [] };
  }
}

/** Copy-class ops (reshape, concatenation, pad, ...): memcpy of what the nest stores. */
export function copyWork(op: Op, facts: OpFacts): KernelWork {
  return { path: `reference ${op.kind} (copy)`, units: { copyByte: facts.storeBytes, opCall: 1 }, weights: [] };
}
