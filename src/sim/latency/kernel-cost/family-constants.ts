// The one constant per (core family, kernel library) that scales the kernel cycles counted from the
// unit costs (unit-costs.ts) and the flash model. Families with MLPerf Tiny rows on two or more boards
// are fitted by scripts/fit-latency.ts from ../shared/oracle/latency/mlperf-tiny-open.csv (it prints this
// table); Cortex-M7 + CMSIS-NN comes from its one named measurement (TinySeg Table 5); the families with
// none take the M4/M33 value; the reference library keeps 1 (its unit costs are a published measurement).
import type { CoreFamily, KernelLibrary } from '../../targets/index.ts';

/** Families that run the same CMSIS-NN code path with the same TRM instruction timings share one
 * constant (fitted on all their boards): Cortex-M4 and Cortex-M33 (ARM_MATH_DSP, single issue; SMLAD,
 * SXTB16 1 cycle, LDR 1-2 in both TRMs); Cortex-M55 and M85 (ARM_MATH_MVEI). */
export const CONSTANT_GROUP: Readonly<Record<CoreFamily, string>> = {
  'cortex-m0plus': 'cortex-m0plus',
  'cortex-m4': 'cortex-m4/m33',
  'cortex-m33': 'cortex-m4/m33',
  'cortex-m7': 'cortex-m7',
  'cortex-m55': 'cortex-m55/m85',
  'cortex-m85': 'cortex-m55/m85',
};

export interface FamilyConstant {
  readonly value: number;
  readonly source: string;
}

const FROM_SOURCES: FamilyConstant = { value: 1, source: 'unit costs from TRM instruction timings (no fit)' };

// `node --import tsx scripts/fit-latency.ts`, 2026-11-28: 12 gated cells of mlperf-tiny-open.csv on
// nucleo-l4r5zi, ek-ra6m4, nrf5340-dk (the constant minimizing the worst relative error).
const M4_M33_CMSIS: FamilyConstant = { value: 1.526327, source: 'fitted by scripts/fit-latency.ts on MLPerf Tiny (nucleo-l4r5zi, ek-ra6m4, nrf5340-dk; 12 cells)' };

// Same script: TinySeg LCTES'24 Table 5, original Tiny U-Net on Nicla Vision 1190 ms (TFLM + CMSIS-NN
// conv), the one Cortex-M7 measurement. It gives ~4 cycles/MAC for CMSIS-NN on an M7, the figure of
// the TinyEngine README's STM32H743 table; the M7 unit costs alone (dual issue, caches on) give ~1.2.
const M7_CMSIS: FamilyConstant = { value: 3.397827, source: 'TinySeg LCTES 2024 Table 5: original Tiny U-Net 1190 ms on nicla-vision (scripts/fit-latency.ts)' };

// Families without a measurement (Cortex-M0+, Cortex-M55/M85 Helium) take the M4/M33 value: the
// part of the constant that is compiled code and memory traffic the TRM counts leave out, from the
// same compiler and library; their own unit costs still come from their TRMs.
const TRANSFERRED: FamilyConstant = { value: M4_M33_CMSIS.value, source: 'no measurement of this family: the cortex-m4/m33 fit transferred (compiled-code overhead of the same library)' };

export const FAMILY_CONSTANTS: Readonly<Record<CoreFamily, Readonly<Record<KernelLibrary, FamilyConstant>>>> = {
  'cortex-m0plus': { reference: FROM_SOURCES, 'cmsis-nn': TRANSFERRED },
  'cortex-m4': { reference: FROM_SOURCES, 'cmsis-nn': M4_M33_CMSIS },
  'cortex-m7': { reference: FROM_SOURCES, 'cmsis-nn': M7_CMSIS },
  'cortex-m33': { reference: FROM_SOURCES, 'cmsis-nn': M4_M33_CMSIS },
  'cortex-m55': { reference: FROM_SOURCES, 'cmsis-nn': TRANSFERRED },
  'cortex-m85': { reference: FROM_SOURCES, 'cmsis-nn': TRANSFERRED },
};
