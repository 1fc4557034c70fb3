// The op-kind table of a TFLM build with OPTIMIZED_KERNEL_DIR=cmsis_nn for one CMSIS-NN code path:
// the reference table with the ops TFLM's kernels/cmsis_nn/*.cc implement replaced by their
// CMSIS-NN specs (ops without a cmsis_nn kernel keep the reference spec, as TFLM's build does).
// softmax keeps the reference spec (arm_nn_softmax_common_s8 reads and writes in the reference
// order with the same arithmetic and OpData size); so does pad on DSP / plain C (arm_pad_s8's
// byte-order memset / memcpy blocks are the reference order: cmsis-nn/pad.ts adds only its rank-5
// constraint there). pad, transpose, maximum / minimum run CMSIS-NN's order for int8 and the
// reference nest for other types, as the .cc files route them; batch_matmul has no op kind in
// mcusim (refused with either library).
import type { KernelTable } from '../../registry.ts';
import type { CmsisNnFeatures } from './conv-family.ts';
import { cmsisNnConv2dSpec, cmsisNnDepthwiseConv2dSpec, cmsisNnTransposeConvSpec } from './conv-family.ts';
import { cmsisNnAddSpec, cmsisNnMulSpec } from './elementwise.ts';
import { cmsisNnFullyConnectedSpec } from './fully-connected.ts';
import { cmsisNnAveragePool2dSpec, cmsisNnMaxPool2dSpec } from './pooling.ts';
import { cmsisNnSvdfSpec } from './svdf.ts';
import { cmsisNnUnidirectionalSequenceLstmSpec } from './lstm.ts';
import { cmsisNnMaximumSpec, cmsisNnMinimumSpec } from './maximum-minimum.ts';
import { cmsisNnPadSpec } from './pad.ts';
import { cmsisNnTransposeSpec } from './transpose.ts';

export function cmsisNnTable(reference: KernelTable, f: CmsisNnFeatures): KernelTable {
  return {
    ...reference,
    conv2d: cmsisNnConv2dSpec(f),
    depthwiseConv2d: cmsisNnDepthwiseConv2dSpec(f),
    transposeConv: cmsisNnTransposeConvSpec(f),
    fullyConnected: cmsisNnFullyConnectedSpec(f),
    averagePool2d: cmsisNnAveragePool2dSpec(f),
    maxPool2d: cmsisNnMaxPool2dSpec(f),
    add: cmsisNnAddSpec(f),
    mul: cmsisNnMulSpec(f),
    svdf: cmsisNnSvdfSpec(f),
    unidirectionalSequenceLstm: cmsisNnUnidirectionalSequenceLstmSpec(f),
    pad: cmsisNnPadSpec(f),
    transpose: cmsisNnTransposeSpec(f),
    maximum: cmsisNnMaximumSpec(f),
    minimum: cmsisNnMinimumSpec(f),
  };
}
