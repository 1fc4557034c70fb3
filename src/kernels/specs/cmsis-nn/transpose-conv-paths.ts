// TransposeConv as TFLM 90b983c's kernels/cmsis_nn/transpose_conv.cc runs it through CMSIS-NN
// 4ab83cc3 arm_transpose_conv_wrapper_s8: not modelled yet, so every op fails a constraint with a
// clear message (exit code 2) instead of silently running the reference kernel's order.
import type { Constraint, KernelSpec } from '../../spec.ts';
import { constraint } from '../common.ts';
import { transposeConvSpec } from '../transpose-conv.ts';

export function cmsisNnTransposeConvSpecOf(_dsp: boolean, mve: Constraint<'transposeConv'>): KernelSpec<'transposeConv'> {
  return {
    ...transposeConvSpec,
    constraints: [
      ...transposeConvSpec.constraints, mve,
      constraint('transposeConv.cmsis-nn', 'CMSIS-NN transpose conv (arm_transpose_conv_wrapper_s8) is not modelled yet: use --kernels reference', () => false),
    ],
  };
}
