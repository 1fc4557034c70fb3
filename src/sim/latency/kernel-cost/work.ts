// What one op's kernel does, as counts of work units, for the code path TFLM would take. Mirrors the
// dispatch of CMSIS-NN's arm_convolve_wrapper_s8 / arm_depthwise_conv_wrapper_s8 (1x1 fast, 1x1,
// 1xN, im2col + arm_nn_mat_mult_kernel_s8_s16 2x2 blocks; depthwise 3x3 / opt / generic;
// arm_fully_connected_s8 -> arm_nn_vec_mat_mult_t_s8; arm_avgpool_s8 / arm_max_pool_s8;
// arm_elementwise_add_s8; arm_softmax_s8) and of TFLM's reference_integer_ops loops.

/** Work units a kernel spends cycles on; each core family prices them (unit-costs.ts). */
export type WorkUnit =
  // CMSIS-NN mat-mult MACs: 2x2 blocks of the s8_s16 im2col kernel / of arm_nn_mat_mult_nt_t_s8,
  // their leftover rows and columns, and the scalar tail of a dot product (k % 4).
  | 'mmMac' | 'ntMac' | 'edgeMac' | 'tailMac'
  /** im2col: s8 copy of the taps plus arm_q7_to_q15_with_offset (DSP / scalar cores). */
  | 'im2colByte'
  /** im2col per filter tap: one arm_memcpy_s8 / arm_memset_s8 call of kernel_ch bytes and its bounds test. */
  | 'im2colTap'
  /** Per output: bias, per-channel multiplier/shift, arm_nn_requantize, offset, clamp, store. */
  | 'requant'
  /** Depthwise MACs: 3x3 kernel (4 channels a step), _opt (q15 taps buffer), their channel tail, generic. */
  | 'dwMac' | 'dwOptMac' | 'dwTailMac' | 'dwGenericMac'
  /** arm_nn_vec_mat_mult_t_s8 MACs (fully connected). */
  | 'fcMac'
  /** Pooling window taps (avg: sum; max: compare) and per-output division / store. */
  | 'poolTap' | 'maxTap' | 'poolOut'
  /** Elementwise outputs (add: two input rescales + output requantize; mul: one). */
  | 'addElem' | 'mulElem' | 'actElem' | 'softmaxElem'
  | 'copyByte'
  /** One call of an inner kernel (mat-mult call per column pair / per row). */
  | 'kernelCall'
  /** Per-op kernel entry: wrapper dispatch, dims structs, scratch pointer. */
  | 'opCall'
  // TFLM reference kernels: one MAC of the conv / depthwise / FC / transpose-conv loop nests
  // (offset add, bounds checks, Offset() indexing per MAC), and their per-output requantize.
  | 'refConvMac' | 'refDwMac' | 'refFcMac' | 'refTconvMac' | 'refRequant' | 'refPoolTap' | 'refElem';

export const WORK_UNITS: readonly WorkUnit[] = [
  'mmMac', 'ntMac', 'edgeMac', 'tailMac', 'im2colByte', 'im2colTap', 'requant', 'dwMac', 'dwOptMac', 'dwTailMac', 'dwGenericMac',
  'fcMac', 'poolTap', 'maxTap', 'poolOut', 'addElem', 'mulElem', 'actElem', 'softmaxElem', 'copyByte', 'kernelCall', 'opCall',
  'refConvMac', 'refDwMac', 'refFcMac', 'refTconvMac', 'refRequant', 'refPoolTap', 'refElem',
];

export type WorkCounts = Partial<Record<WorkUnit, number>>;

/** Weights read from flash: `bytes` of constant data, walked `passes` times by the kernel. */
export interface WeightStream {
  readonly bytes: number;
  readonly passes: number;
}

export interface KernelWork {
  /** The code path, e.g. 'arm_convolve_1x1_s8_fast' or 'reference conv'. */
  readonly path: string;
  readonly units: WorkCounts;
  readonly weights: readonly WeightStream[];
}

export function addUnits(into: Record<string, number>, from: WorkCounts): void {
  for (const [k, v] of Object.entries(from)) into[k] = (into[k] ?? 0) + (v ?? 0);
}

/** 2x2-blocked mat-mult of `rows` x `cols` outputs over a `k`-long dot product: block, edge, tail MACs. */
export function blockedMacs(rows: number, cols: number, k: number, block: 'mmMac' | 'ntMac'): WorkCounts {
  const r2 = rows - (rows % 2);
  const c2 = cols - (cols % 2);
  const k4 = k - (k % 4);
  const edge = (rows * cols - r2 * c2) * k;
  return { [block]: r2 * c2 * k4, tailMac: r2 * c2 * (k - k4), edgeMac: edge };
}

/** Taps of a `filter`-wide window (stride, dilation, pad before) that fall inside `inSize`, summed over `outSize` outputs. */
export function validTaps(outSize: number, inSize: number, filter: number, stride: number, dilation: number, padBefore: number): number {
  let n = 0;
  for (let o = 0; o < outSize; o++) {
    for (let f = 0; f < filter; f++) {
      const i = o * stride - padBefore + f * dilation;
      if (i >= 0 && i < inSize) n++;
    }
  }
  return n;
}
