// The op-kind -> kernel spec table of the reference kernels (TFLM's kernels/*.cc). Adding an op =
// one spec file in specs/ plus one line here. Other libraries (kernel-library.ts) start from this
// table and replace the ops they have their own kernel for, as TFLM's OPTIMIZED_KERNEL_DIR does.
import type { BuiltinKind } from '../ir/index.ts';
import type { KernelSpec } from './spec.ts';
import { addSpec } from './specs/add.ts';
import { dequantizeSpec } from './specs/dequantize.ts';
import { leakyReluSpec } from './specs/leaky-relu.ts';
import { meanSpec } from './specs/mean.ts';
import { mergeSpec } from './specs/merge.ts';
import { mulSpec } from './specs/mul.ts';
import { quantizeSpec } from './specs/quantize.ts';
import { conv2dSpec } from './specs/conv2d.ts';
import { depthwiseConv2dSpec } from './specs/depthwise-conv2d.ts';
import { fullyConnectedSpec } from './specs/fully-connected.ts';
import { relu6Spec, reluSpec } from './specs/relu.ts';
import { averagePool2dSpec } from './specs/average-pool2d.ts';
import { concatenationSpec } from './specs/concatenation.ts';
import { maxPool2dSpec } from './specs/max-pool2d.ts';
import { padSpec } from './specs/pad.ts';
import { reshapeSpec } from './specs/reshape.ts';
import { splitVSpec } from './specs/split-v.ts';
import { splitSpec } from './specs/split.ts';
import { stridedSliceSpec } from './specs/strided-slice.ts';
import { transposeSpec } from './specs/transpose.ts';
import { logisticSpec } from './specs/logistic.ts';
import { softmaxSpec } from './specs/softmax.ts';
import { transposeConvSpec } from './specs/transpose-conv.ts';
import { spillSpec } from './specs/spill.ts';
import { fetchingSpec } from './specs/fetching.ts';
import { fetchingConv2dSpec } from './specs/fetching-conv2d.ts';
import { hardSwishSpec } from './specs/hard-swish.ts';
import { logSoftmaxSpec } from './specs/log-softmax.ts';
import { tanhSpec } from './specs/tanh.ts';
import { eluSpec } from './specs/elu.ts';
import { preluSpec } from './specs/prelu.ts';
import { l2NormalizationSpec } from './specs/l2-normalization.ts';
import { resizeNearestNeighborSpec } from './specs/resize-nearest-neighbor.ts';
import { resizeBilinearSpec } from './specs/resize-bilinear.ts';
import { svdfSpec } from './specs/svdf.ts';
import { unidirectionalSequenceLstmSpec } from './specs/unidirectional-sequence-lstm.ts';
import { subSpec } from './specs/sub.ts';
import { maximumSpec, minimumSpec } from './specs/maximum-minimum.ts';
import { squaredDifferenceSpec } from './specs/squared-difference.ts';
import { gatherSpec } from './specs/gather.ts';
import { shapeSpec } from './specs/shape.ts';
import { packSpec, unpackSpec } from './specs/pack.ts';
import { fillSpec } from './specs/fill.ts';
import { expandDimsSpec, squeezeSpec } from './specs/expand-dims.ts';
import { depthToSpaceSpec, spaceToDepthSpec } from './specs/space-to-depth.ts';
import { batchToSpaceNdSpec, spaceToBatchNdSpec } from './specs/space-to-batch.ts';

export type KernelTable = { readonly [K in BuiltinKind]?: KernelSpec<K> };

export const KERNELS: KernelTable = {
  add: addSpec,
  mul: mulSpec,
  leakyRelu: leakyReluSpec,
  mean: meanSpec,
  merge: mergeSpec,
  quantize: quantizeSpec,
  dequantize: dequantizeSpec,
  conv2d: conv2dSpec,
  depthwiseConv2d: depthwiseConv2dSpec,
  fullyConnected: fullyConnectedSpec,
  relu: reluSpec,
  relu6: relu6Spec,
  maxPool2d: maxPool2dSpec,
  averagePool2d: averagePool2dSpec,
  pad: padSpec,
  concatenation: concatenationSpec,
  reshape: reshapeSpec,
  split: splitSpec,
  splitV: splitVSpec,
  stridedSlice: stridedSliceSpec,
  transpose: transposeSpec,
  softmax: softmaxSpec,
  logistic: logisticSpec,
  transposeConv: transposeConvSpec,
  spill: spillSpec,
  fetching: fetchingSpec,
  fetchingConv2d: fetchingConv2dSpec,
  hardSwish: hardSwishSpec,
  logSoftmax: logSoftmaxSpec,
  tanh: tanhSpec,
  elu: eluSpec,
  prelu: preluSpec,
  l2Normalization: l2NormalizationSpec,
  resizeNearestNeighbor: resizeNearestNeighborSpec,
  resizeBilinear: resizeBilinearSpec,
  svdf: svdfSpec,
  unidirectionalSequenceLstm: unidirectionalSequenceLstmSpec,
  sub: subSpec,
  maximum: maximumSpec,
  minimum: minimumSpec,
  squaredDifference: squaredDifferenceSpec,
  gather: gatherSpec,
  shape: shapeSpec,
  pack: packSpec,
  unpack: unpackSpec,
  fill: fillSpec,
  expandDims: expandDimsSpec,
  squeeze: squeezeSpec,
  spaceToDepth: spaceToDepthSpec,
  depthToSpace: depthToSpaceSpec,
  spaceToBatchNd: spaceToBatchNdSpec,
  batchToSpaceNd: batchToSpaceNdSpec,
};

/** Which kernel library a registry holds (TFLM's kernels/*.cc, or its kernels/cmsis_nn/*.cc). */
export type KernelLibraryName = 'reference' | 'cmsis-nn';

/**
 * The specs one build links: the library, the CPU whose compile-time macros picked its code paths
 * (null for reference kernels, which have one path) and the op-kind table.
 */
export interface KernelRegistry {
  readonly library: KernelLibraryName;
  readonly cpu: string | null;
  readonly specs: KernelTable;
}

/** The reference kernels: what every caller that names no library gets. */
export const REFERENCE_KERNELS: KernelRegistry = { library: 'reference', cpu: null, specs: KERNELS };

export function kernelSpecOf<K extends BuiltinKind>(kind: K, registry: KernelRegistry = REFERENCE_KERNELS): KernelSpec<K> | undefined {
  return registry.specs[kind] as KernelSpec<K> | undefined;
}
