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

// Same script: the tinyengine README's STM32H743 table (480 MHz, -Ofast, TFLM @713b6ed + CMSIS-NN @011bf32)
// measures eight MCUNet / ProxylessNAS nets (MobileNetV2-style inverted residual blocks) at 3.8-4.8 cycles per MAC
// with CMSIS-NN (geometric mean 4.23; MACs from the mcunet README's model list) and 44-48 with the reference
// kernels (46.06). Their files are not public beside the table, so the constant is fitted on the same block
// structure: zoo:mobilenet-v2-0.35-224 (mbv2-w0.35, in the table at r144, OOM on TFLM there) on nucleo-h743zi2.
const M7_CMSIS: FamilyConstant = { value: 1.578710, source: 'tinyengine README STM32H743 table: TFLM + CMSIS-NN at 4.23 cycles per MAC over 8 MCUNet nets (zoo:mobilenet-v2-0.35-224 on nucleo-h743zi2; scripts/fit-latency.ts)' };
const M7_REFERENCE: FamilyConstant = { value: 0.957773, source: 'tinyengine README STM32H743 table: TFLM reference kernels at 46.06 cycles per MAC over 8 MCUNet nets (zoo:mobilenet-v2-0.35-224 on nucleo-h743zi2; scripts/fit-latency.ts)' };

// Same script: TinySeg LCTES 2024 Table 5, the original Tiny U-Net on Nicla Vision, 1190 ms for the 206.5 M
// instructions the build executes (7.8 cycles per MAC where the H743 table's nets take 4.2): the Arduino mbed
// build of that board (-Os, TinySeg's 2023 TFLM) runs the kernels 2.5x slower than the vendor build. A board
// whose `build` says -Os takes these; the reference kernels are assumed slowed as much as CMSIS-NN.
const M7_OS_CMSIS: FamilyConstant = { value: 3.886571, source: 'TinySeg LCTES 2024 Table 5: original Tiny U-Net 1190 ms on nicla-vision (Arduino mbed, -Os; scripts/fit-latency.ts)' };
const M7_OS_REFERENCE: FamilyConstant = { value: 2.357909, source: 'the -O2 reference constant x (TinySeg Table 5 -Os constant / the H743 CMSIS-NN constant): no measurement of reference kernels at -Os' };

/** Constants of a -Os board build (`TargetProfile.build`), where a family has them; others keep FAMILY_CONSTANTS. */
export const SIZE_OPTIMIZED_CONSTANTS: Readonly<Partial<Record<CoreFamily, Readonly<Record<KernelLibrary, FamilyConstant>>>>> = {
  'cortex-m7': { reference: M7_OS_REFERENCE, 'cmsis-nn': M7_OS_CMSIS },
};

export const FAMILY_CONSTANTS: Readonly<Record<CoreFamily, Readonly<Record<KernelLibrary, FamilyConstant>>>> = {
  'cortex-m0plus': { reference: FROM_SOURCES, 'cmsis-nn': FROM_SOURCES },
  'cortex-m4': { reference: M4_M33_CMSIS, 'cmsis-nn': M4_M33_CMSIS },
  'cortex-m7': { reference: M7_REFERENCE, 'cmsis-nn': M7_CMSIS },
  'cortex-m33': { reference: M4_M33_CMSIS, 'cmsis-nn': M4_M33_CMSIS },
  'cortex-m55': { reference: FROM_SOURCES, 'cmsis-nn': FROM_SOURCES },
  'cortex-m85': { reference: FROM_SOURCES, 'cmsis-nn': FROM_SOURCES },
};
