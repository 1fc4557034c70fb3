// PLACEHOLDER, replaced by the cmsis-conv branch: the CMSIS-NN conv family (conv2d, depthwiseConv2d,
// transposeConv) as TFLM's cmsis_nn kernels run them. Until that branch is merged these return the
// reference specs unchanged, so a cmsis-nn registry still compiles and runs (with reference order,
// scratch and persistent data for these three ops: not yet the CMSIS-NN build's).
import type { KernelSpec } from '../../spec.ts';
import { conv2dSpec } from '../conv2d.ts';
import { depthwiseConv2dSpec } from '../depthwise-conv2d.ts';
import { transposeConvSpec } from '../transpose-conv.ts';

export interface CmsisNnFeatures { readonly dsp: boolean; readonly mve: boolean }

export function cmsisNnConv2dSpec(f: CmsisNnFeatures): KernelSpec<'conv2d'> {
  void f;
  return conv2dSpec;
}

export function cmsisNnDepthwiseConv2dSpec(f: CmsisNnFeatures): KernelSpec<'depthwiseConv2d'> {
  void f;
  return depthwiseConv2dSpec;
}

export function cmsisNnTransposeConvSpec(f: CmsisNnFeatures): KernelSpec<'transposeConv'> {
  void f;
  return transposeConvSpec;
}
