// FullyConnected, int8, as TFLM's cmsis_nn/fully_connected.cc runs it (90b983c, CMSIS-NN 4ab83cc3).
// Memory: its OpData (reference data + buffer indices, kernel_sums, dims); with an output of rank > 2
// and a depth multiple of 4 (the arm_convolve_1x1_s8_fast path) a per-tensor filter requests
// output_depth x 8 B of scratch, filled at Eval with the per-channel multipliers and shifts it fakes
// (arm_convolve_1x1_s8_fast_get_buffer_size is 0 with gcc); otherwise, on MVE, the kernel sums
// (arm_fully_connected_s8_get_buffer_size = output_depth x 4) are a persistent buffer for constant
// filters (KERNELS_OPTIMIZED_FOR_SPEED, TFLM's default), a scratch buffer else.
// Arithmetic: arm_nn_requantize equals TFLM's MultiplyByQuantizedMultiplier except at INT32_MIN x
// INT32_MIN (never reached from int8 data), so outputs equal the reference kernel's.
import type { Tensor } from '../../../ir/index.ts';
import type { KernelSpec, OpContext, Prepared } from '../../spec.ts';
import { TFLITE_FULLY_CONNECTED_PARAMS, perChannelArrays, stock } from '../../tflm-memory.ts';
import { dim } from '../common.ts';
import { fullyConnectedSpec } from '../fully-connected.ts';
import { CMSIS_OP_DATA_FULLY_CONNECTED } from './cmsis-memory.ts';
import type { CmsisNnFeatures } from './conv-family.ts';

const perChannel = (filter: Tensor | null): boolean => (filter?.quant?.scale.length ?? 1) > 1;

/** The arm_convolve_1x1_s8_fast path of EvalQuantizedInt8: output rank > 2, depth % 4 == 0. */
export function fcTakesConv1x1(c: OpContext<'fullyConnected'>): boolean {
  return c.output(0).shape.length > 2 && dim(c.input(1), 1) % 4 === 0;
}

/** Bytes of each scratch buffer Prepare requests, in order. */
function fcScratchBytes(c: OpContext<'fullyConnected'>, f: CmsisNnFeatures): number[] {
  const outD = dim(c.input(1), 0);
  if (fcTakesConv1x1(c)) return perChannel(c.input(1)) ? [] : [outD * 8];
  const kernelSums = f.mve ? outD * 4 : 0;
  const constant = c.input(1)?.data !== null && (c.input(2) === null || c.input(2)?.data !== null);
  return kernelSums > 0 && !constant ? [kernelSums] : [];
}

function fcPersistentKernelSums(c: OpContext<'fullyConnected'>, f: CmsisNnFeatures): number[] {
  if (fcTakesConv1x1(c) || !f.mve) return [];
  const constant = c.input(1)?.data !== null && (c.input(2) === null || c.input(2)?.data !== null);
  return constant ? [dim(c.input(1), 0) * 4] : [];
}

export function cmsisNnFullyConnectedSpec(f: CmsisNnFeatures): KernelSpec<'fullyConnected'> {
  return {
    ...fullyConnectedSpec,
    requestsScratch: true,
    tflmPersistent: {
      ...stock(TFLITE_FULLY_CONNECTED_PARAMS, CMSIS_OP_DATA_FULLY_CONNECTED),
      // CalculateOpDataFullyConnected's per-channel arrays, then the MVE kernel sums.
      prepareBuffers: (c) => [...(perChannel(c.input(1)) ? perChannelArrays(dim(c.input(1), 0)) : []), ...fcPersistentKernelSums(c, f)],
    },
    prepare(c): Prepared {
      const p = fullyConnectedSpec.prepare(c);
      const scratch = fcScratchBytes(c, f).map((sizeBytes, k) => ({ name: k === 0 && fcTakesConv1x1(c) ? 'conv1x1_quant' : 'kernel_sums', dtype: 'int32' as const, sizeBytes }));
      return { ...p, scratch };
    },
  };
}
