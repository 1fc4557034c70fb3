// FullyConnected, int8, as TFLM's cmsis_nn/fully_connected.cc runs it (90b983c, CMSIS-NN 4ab83cc3):
// arm_fully_connected_s8 / _per_channel_s8, one arm_nn_vec_mat_mult_t_s8 (/ _per_ch_s8) per batch
// row, which computes output channels in groups (MVE 4, DSP 2, plain C 3; the rest one by one):
// the input row is read once per group (each element once, in order) and the group's outputs are
// stored together after it. Memory: its OpData (reference data + buffer indices, kernel_sums,
// dims); on MVE the kernel sums (arm_fully_connected_s8_get_buffer_size = output_depth x 4) are a
// persistent buffer for constant filters (KERNELS_OPTIMIZED_FOR_SPEED, TFLM's default), a scratch
// buffer else. Arithmetic: accumulation starts from the bias (MVE: from the kernel sums, which hold
// bias + input offset x filter sums), the same int32 sum wrapped; arm_nn_requantize equals TFLM's
// MultiplyByQuantizedMultiplier except at INT32_MIN x INT32_MIN (never reached from int8 data), so
// outputs equal the reference kernel's. An output of rank > 2 with a depth multiple of 4 takes
// arm_convolve_1x1_s8_fast instead (a per-tensor filter then requests output_depth x 8 B of scratch
// for faked per-channel arrays); that path's order (arm_nn_mat_mult_nt_t_s8) is not modelled yet,
// so such an op is refused (constraint fullyConnected.cmsis-nn-conv1x1).
import type { Tensor } from '../../../ir/index.ts';
import type { Nest } from '../../nest.ts';
import { For, If, Let, Set, Store, Val } from '../../nest.ts';
import type { KernelSpec, OpContext, Prepared } from '../../spec.ts';
import { TFLITE_FULLY_CONNECTED_PARAMS, perChannelArrays, stock } from '../../tflm-memory.ts';
import { constraint, dim } from '../common.ts';
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

/** Output channels per group of arm_nn_vec_mat_mult_t_s8 on each path. */
const groupOf = (f: CmsisNnFeatures): number => (f.mve ? 4 : f.dsp ? 2 : 3);

/** One group of `g` output channels from `oc0`: the input row once, then the group's stores. */
function group(g: number, oc0: string): Nest {
  const ks = Array.from({ length: g }, (_, k) => k);
  return [
    ...ks.map((k) => Val(`acc${k}`, '0')),
    ...ks.map((k) => If('hasBias', [Set(`acc${k}`, `bias[${oc0} + ${k}]`)])),
    For('d', '0', 'accum', [
      Val('x', 'input[inBase + d] + inputOffset'),
      ...ks.map((k) => Set(`acc${k}`, `acc${k} + x * (filter[(${oc0} + ${k}) * accum + d] + filterOffset)`, 'mac')),
    ]),
    ...ks.map((k) => Store('output', `outBase + ${oc0} + ${k}`, `clamp(mbqm(acc${k}, mult[${oc0} + ${k}], shift[${oc0} + ${k}]) + outputOffset, actMin, actMax)`)),
  ];
}

function fcNest(f: CmsisNnFeatures): Nest {
  const g = groupOf(f);
  return [
    For('b', '0', 'batches', [
      Let('inBase', 'b * accum'),
      Let('outBase', 'b * outD'),
      For('gi', '0', `outD / ${g}`, [Let('oc0', `gi * ${g}`), ...group(g, 'oc0')]),
      For('oc', `outD - outD % ${g}`, 'outD', group(1, 'oc')),
    ]),
  ];
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
    constraints: [
      ...fullyConnectedSpec.constraints,
      constraint('fullyConnected.cmsis-nn-conv1x1', 'CMSIS-NN runs a fully connected op with an output of rank > 2 and a depth multiple of 4 as arm_convolve_1x1_s8_fast, whose access order mcusim does not model yet', (c) => !fcTakesConv1x1(c)),
    ],
    prepare(c): Prepared {
      const p = fullyConnectedSpec.prepare(c);
      const scratch = fcScratchBytes(c, f).map((sizeBytes, k) => ({ name: k === 0 && fcTakesConv1x1(c) ? 'conv1x1_quant' : 'kernel_sums', dtype: 'int32' as const, sizeBytes }));
      // The kernel sums are not read by the nest: it adds the input offset per element (same sum).
      return { ...p, flags: { ...p.flags, hoist: 0 }, scratch };
    },
    body: fcNest(f),
  };
}
