// Core cycles per work unit (work.ts) for each Cortex-M family, counted from the kernels' inner loops
// with the instruction timings of each core's Technical Reference Manual: Cortex-M4 TRM (100166_0001)
// §3.3.1 Table 3-1, Cortex-M33 TRM (100230) Appendix B "Instruction timings", Cortex-M7 TRM (DDI 0489)
// §1.2.1 dual-issue pipeline, Cortex-M0+ TRM (DDI 0484) §3.3, Cortex-M55 TRM (101051) §B "MVE beats".
// TFLM reference kernels: the TinyEngine README's STM32H743 table (~46 cycles/MAC, TFLM reference).
import type { CoreFamily } from '../../targets/index.ts';
import type { WorkUnit } from './work.ts';

export type UnitCosts = Readonly<Record<WorkUnit, number>>;

// Cortex-M4 (TRM Table 3-1: LDR 2 cycles, N pipelined loads N+1; SMLAD/SMLABB, SXTB16, MLA 1;
// taken branch 1+P, P=1..3). Loop bodies from CMSIS-NN's DSP paths:
//  mmMac  arm_nn_mat_mult_kernel_s8_s16, per 4 k of a 2x2 block: 2 filter LDR + 4 q15 column LDR
//         interleaved with ALU ops (2 each, 12), 4 SXTB16 (read_and_pad_reordered), 8 SMLAD, SUBS+BNE (3)
//         = 27 cycles / 16 MACs, plus 1 reload of a spilled value (4 accumulators + 6 operands + 4
//         pointers + counter > 13 registers): 29 / 16.
//  ntMac  arm_nn_mat_mult_nt_t_s8 (unrolled 16 k): 4 LDR interleaved with ALU ops (2 each, 8),
//         8 SXTB16, 8 SMLAD = 24, plus 3 reloads of spilled values (6) = 30 / 16.
//  edgeMac leftover row/column: 1 row x 2 columns, 1 filter LDR + 2 SXTB16 + 4 LDR + 4 SMLAD + 3 = 15 / 8,
//         the last odd column scalar: ~2.2 on average.
//  tailMac k % 4 scalar: 2 LDRSB (3) + MLA + loop 3 over 2..4 accumulators: ~3.
//  im2colByte memcpy (LDM/STM, 0.25/B) + arm_q7_to_q15_with_offset per 4 bytes: LDR, 2 SXTAB16,
//         2 PKHBT, 2 STR, loop 3 (~11 / 4) = 3.0 / B.
//  im2colTap per filter tap: the bounds test and one arm_memcpy_s8 / arm_memset_s8 call (call, return,
//         size dispatch in the C library's memcpy): ~25.
//  requant bias LDR + per-channel multiplier/shift LDR (4), arm_nn_requantize (SMULL-based doubling
//         high multiply + rounding shift, ~11), offset add, 2 clamps (4), STRB (1) = ~21.
//  dwMac  arm_depthwise_conv_3x3_s8 per tap, 4 channels (plain C, no SIMD): input LDR + filter LDR (4),
//         per channel SXTB (ROR) + offset ADD + SXTB + MLA (16), column bounds test (2) = 22 / 4 MACs.
//  dwOptMac _opt: 2 q15 LDR + filter LDR (4), 2 SXTB16, 4 SMLABB/SMLATT, loop 1 (branch folded) = 11 / 4.
//  fcMac  arm_nn_vec_mat_mult_t_s8, 2 rows per step, per 4 k: lhs LDR + 2 rhs LDR interleaved (6),
//         2 SXTAB16 (offset), 4 SXTB16, 4 SMLAD, loop 3 = 19 / 8.
const M4: UnitCosts = {
  mmMac: 29 / 16, ntMac: 30 / 16, edgeMac: 2.2, tailMac: 3, im2colByte: 3, im2colTap: 25, requant: 21,
  dwMac: 22 / 4, dwOptMac: 11 / 4, dwTailMac: 6, dwGenericMac: 9, fcMac: 19 / 8,
  // arm_avgpool_s8: per tap per channel LDRSB + ADD (3, with SIMD on 4 channels ~1.5); per output
  // a division (SDIV 2..12) with rounding, clamp, STRB (~20). arm_max_pool_s8: 4 channels per
  // LDR/SSUB8/SEL (~0.75 / tap / channel).
  poolTap: 1.5, maxTap: 0.75, poolOut: 20,
  // arm_elementwise_add_s8: both inputs shifted and requantized, summed, requantized (3 x ~10) + clamp/store.
  addElem: 34, mulElem: 22, actElem: 8,
  // arm_softmax_s8: max pass, exp-sum pass (fixed-point exp ~30), output pass (~30).
  softmaxElem: 65,
  copyByte: 0.5, kernelCall: 40, opCall: 300,
  // TFLM reference, per MAC: 2 LDRSB, offset add, MLA, Offset() index arithmetic for input and
  // filter and the is_point_inside_image check inside the channel loop; 46 cycles on an M7 (TinyEngine
  // table), the M4 without dual issue: 46 x 1.3.
  refConvMac: 60, refDwMac: 60, refFcMac: 24, refTconvMac: 60, refRequant: 40, refPoolTap: 10, refElem: 20,
};

// Cortex-M33: the same ARM_MATH_DSP loops and 1-cycle SMLAD/SXTB16, but more work per clock on the
// same code: Arm's published CoreMark/MHz is 4.02 for the Cortex-M33 and 3.42 for the Cortex-M4
// (developer.arm.com processor pages), so every M4 figure x 3.42 / 4.02.
const M33_PER_M4 = 3.42 / 4.02;
const M33: UnitCosts = Object.fromEntries(Object.entries(M4).map(([k, v]) => [k, v * M33_PER_M4])) as unknown as UnitCosts;

// Cortex-M7: dual issue of a load/store with a data-processing or MAC instruction (TRM §1.2.1), one
// MAC pipe, LDR 1 cycle, predicted loop branches free. The loops above re-timed:
//  mmMac 8 SMLAD + 4 SXTB16 issue-bound, the 6 LDR pair with them, loop folded: 12 / 16.
//  ntMac 8 SMLAD + 8 SXTB16, 4 LDR paired: 16 / 16 -> 13 / 16 with SXTB16 paired with loads.
//  fcMac 4 SMLAD + 6 expansions, 3 LDR paired: 10 / 8 -> 1.25.
//  dwMac per tap: 2 LDR paired, 4 x (SXTB, ADD, SXTB, MLA) with two ALU pipes: ~12 / 4.
const M7: UnitCosts = {
  mmMac: 12 / 16, ntMac: 13 / 16, edgeMac: 1.4, tailMac: 2, im2colByte: 1.6, im2colTap: 16, requant: 13,
  dwMac: 12 / 4, dwOptMac: 7 / 4, dwTailMac: 4, dwGenericMac: 6, fcMac: 10 / 8,
  poolTap: 1, maxTap: 0.5, poolOut: 14, addElem: 22, mulElem: 15, actElem: 5, softmaxElem: 45,
  copyByte: 0.3, kernelCall: 30, opCall: 200,
  // TinyEngine README, STM32H743 table: TFLM reference int8 kernels ~46 cycles/MAC.
  refConvMac: 46, refDwMac: 46, refFcMac: 18, refTconvMac: 46, refRequant: 28, refPoolTap: 7, refElem: 14,
};

// Cortex-M0+ (TRM §3.3: LDR 2, MULS 1 with the single-cycle multiplier RP2040 has, taken branch 2;
// no DSP, no SMULL: the 64-bit requantize multiply is __aeabi_lmul, ~40 cycles). CMSIS-NN's plain C
// paths: 2x2 scalar blocks, per k 2 LDRSB + 2 LDRSH (8) + 4 MULS + 4 ADDS (8) + loop 3 = 19 / 4 MACs.
const M0P: UnitCosts = {
  mmMac: 19 / 4, ntMac: 21 / 4, edgeMac: 7, tailMac: 8, im2colByte: 6, im2colTap: 35, requant: 60,
  dwMac: 8, dwOptMac: 8, dwTailMac: 9, dwGenericMac: 11, fcMac: 5.5,
  poolTap: 4, maxTap: 4, poolOut: 40, addElem: 110, mulElem: 70, actElem: 12, softmaxElem: 250,
  copyByte: 1, kernelCall: 60, opCall: 500,
  refConvMac: 80, refDwMac: 80, refFcMac: 30, refTconvMac: 80, refRequant: 90, refPoolTap: 14, refElem: 40,
};

// Cortex-M55 / M85 with Helium (MVE): 128-bit vectors executed in beats, two beats per cycle for
// integer MAC (M55 TRM "dual-beat"). arm_nn_mat_mult_nt_t_s8 MVE: per 16 k of a 4-row x 1-column
// block, 1 lhs VLDRB + 4 rhs VLDRB + 4 VMLADAVA.S8 (2 cycles each) = 18 cycles / 64 MACs; the
// requantize is vectorized 4 outputs at a time (arm_requantize_32x4_s32: ~4 cycles / output).
const M55: UnitCosts = {
  mmMac: 18 / 64, ntMac: 18 / 64, edgeMac: 0.6, tailMac: 2, im2colByte: 0.3, im2colTap: 16, requant: 4,
  dwMac: 0.5, dwOptMac: 0.5, dwTailMac: 2, dwGenericMac: 6, fcMac: 0.35,
  poolTap: 0.2, maxTap: 0.15, poolOut: 4, addElem: 3, mulElem: 3, actElem: 5, softmaxElem: 45,
  copyByte: 0.2, kernelCall: 30, opCall: 200,
  refConvMac: 46, refDwMac: 46, refFcMac: 18, refTconvMac: 46, refRequant: 28, refPoolTap: 7, refElem: 14,
};

// Cortex-M85: same MVE beat rate, a deeper pipeline with better overlap of loads and MACs
// (Cortex-M85 TRM §2: "up to 2 beats of MVE per cycle with overlapped load/MAC"): 14 / 64.
const M85: UnitCosts = { ...M55, mmMac: 14 / 64, ntMac: 14 / 64, fcMac: 0.3, dwMac: 0.4, dwOptMac: 0.4 };

export const UNIT_COSTS: Readonly<Record<CoreFamily, UnitCosts>> = {
  'cortex-m0plus': M0P,
  'cortex-m4': M4,
  'cortex-m7': M7,
  'cortex-m33': M33,
  'cortex-m55': M55,
  'cortex-m85': M85,
};
