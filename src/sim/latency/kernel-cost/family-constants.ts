// The one constant per (core family group, kernel library) that scales the cycles the instruction
// model and the core timing give (what neither counts: cache misses on activations, bus contention,
// branch mispredictions beyond the TRM figures). Fitted by scripts/fit-latency.ts, which prints this
// table with what each value was fitted on; a group without a measurement keeps 1 (the TRM timings alone).
import type { CoreFamily, KernelLibrary } from '../../targets/index.ts';

/** Families sharing one constant: the same pipeline class and CMSIS-NN code path. */
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

const FROM_SOURCES: FamilyConstant = { value: 1, source: 'core timing from the TRMs alone (no measurement of this group to fit on)' };

// `npm run fit:latency` (scripts/fit-latency.ts): the minimax constant over the 12 gated cells of
// mlperf-tiny-open.csv (nucleo-l4r5zi, ek-ra6m4, nrf5340-dk): what the measured instruction counts priced by
// the M4 / M33 TRM timings leave out (flash and SRAM wait states on loads, library version differences).
const M4_M33_CMSIS: FamilyConstant = { value: 1.205873, source: 'fitted by scripts/fit-latency.ts on MLPerf Tiny (ek-ra6m4, nrf5340-dk, nucleo-l4r5zi; 12 cells)' };

// Same script: TinySeg LCTES 2024 Table 5, the original Tiny U-Net on Nicla Vision, 1190 ms for the 206.5 M
// instructions the build executes (2.8 cycles each at 480 MHz, where the dual-issue timing gives 0.8).
const M7_CMSIS: FamilyConstant = { value: 4.041237, source: 'TinySeg LCTES 2024 Table 5: original Tiny U-Net 1190 ms on nicla-vision (scripts/fit-latency.ts)' };

// Same script: the tinyengine README's STM32H743 table measures TFLM's reference kernels at ~46 cycles per
// MAC and TFLM + CMSIS-NN at ~4 (11.5x); the reference constant makes the geometric mean of the VWW and IC
// ratios on nucleo-h743zi2 that, given the CMSIS-NN constant above. The measured instruction ratio is 23-27x:
// the reference kernels' scalar loops dual-issue where CMSIS-NN's DSP loops cannot, more than the TRM-level
// timing captures.
const M7_REFERENCE: FamilyConstant = { value: 2.051717, source: 'tinyengine README STM32H743 table: reference / CMSIS-NN = 46 / 4 cycles per MAC (VWW, IC on nucleo-h743zi2; scripts/fit-latency.ts)' };

export const FAMILY_CONSTANTS: Readonly<Record<CoreFamily, Readonly<Record<KernelLibrary, FamilyConstant>>>> = {
  'cortex-m0plus': { reference: FROM_SOURCES, 'cmsis-nn': FROM_SOURCES },
  'cortex-m4': { reference: M4_M33_CMSIS, 'cmsis-nn': M4_M33_CMSIS },
  'cortex-m7': { reference: M7_REFERENCE, 'cmsis-nn': M7_CMSIS },
  'cortex-m33': { reference: M4_M33_CMSIS, 'cmsis-nn': M4_M33_CMSIS },
  'cortex-m55': { reference: FROM_SOURCES, 'cmsis-nn': FROM_SOURCES },
  'cortex-m85': { reference: FROM_SOURCES, 'cmsis-nn': FROM_SOURCES },
};
