// The op-kind -> kernel spec table. Adding an op = one spec file in specs/ plus one line here.
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

export type KernelRegistry = { readonly [K in BuiltinKind]?: KernelSpec<K> };

export const KERNELS: KernelRegistry = {
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
};

export function kernelSpecOf<K extends BuiltinKind>(kind: K): KernelSpec<K> | undefined {
  return KERNELS[kind] as KernelSpec<K> | undefined;
}
