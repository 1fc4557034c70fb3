// SVDF, int8, as TFLM's cmsis_nn/svdf.cc prepares it: CmsisNnOpDataSvdf (the reference OpDataSvdf
// plus a kernel_sums pointer: the same 48 B block on Cortex-M), the same two scratch requests, and
// on MVE the kernel sums (arm_svdf_s8_get_buffer_size = num_filters x int32) as a persistent buffer
// (KERNELS_OPTIMIZED_FOR_SPEED, TFLM's default). The loop nest stays the reference kernel's:
// arm_svdf_s8's access order is not modelled yet (values equal the build's on the oracle rows).
import type { KernelSpec } from '../../spec.ts';
import { OP_DATA_SVDF, TFLITE_SVDF_PARAMS, cStruct, stock } from '../../tflm-memory.ts';
import { dim } from '../common.ts';
import { svdfSpec } from '../svdf.ts';
import type { CmsisNnFeatures } from './conv-family.ts';

/** cmsis_nn/svdf.cc CmsisNnOpDataSvdf (KERNELS_OPTIMIZED_FOR_SPEED: no scratch_weight_tensor_index). */
const CMSIS_OP_DATA_SVDF = cStruct('CmsisNnOpDataSvdf', [['reference_fields', OP_DATA_SVDF], ['kernel_sums', 'ptr']]);

export function cmsisNnSvdfSpec(f: CmsisNnFeatures): KernelSpec<'svdf'> {
  return {
    ...svdfSpec,
    tflmPersistent: {
      ...stock(TFLITE_SVDF_PARAMS, CMSIS_OP_DATA_SVDF),
      prepareBuffers: (c) => (f.mve ? [dim(c.input(1), 0) * 4] : []),
    },
  };
}
