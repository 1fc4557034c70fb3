// The op-kind table of a TFLM build with OPTIMIZED_KERNEL_DIR=cmsis_nn for one CMSIS-NN code path:
// the reference table with the ops TFLM's kernels/cmsis_nn/*.cc implement replaced by their
// CMSIS-NN specs (ops without a cmsis_nn kernel keep the reference spec, as TFLM's build does).
// cmsis_nn softmax keeps the reference spec: arm_nn_softmax_common_s8 (DSP and plain C) reads and
// writes in the reference kernel's order (max, sum and output passes per row) with the same
// arithmetic and the same OpData size. pad, transpose, maximum/minimum and batch_matmul run the
// reference spec too, svdf the reference nest with its cmsis memory: their CMSIS-NN access order
// is not modelled yet.
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
