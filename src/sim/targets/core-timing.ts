// Cycles per instruction class on each Cortex-M core, from the cores' published pipeline
// descriptions: the Cortex-M0+ / M3 / M4 / M33 / M55 Technical Reference Manuals' instruction
// timing tables (ARM DDI 0484C §3.3, DDI 0337, DDI 0439B §3.3 Table 3-1, Arm 100230 §B1,
// Arm 101051 §2 and its MVE beat description), the Cortex-M7 / M85 TRMs' pipeline descriptions
// (ARM DDI 0489 §1.2: in-order dual-issue; Arm 101924 §2: dual-issue, MVE dual-beat) with the
// measured M7 pairings of quinapalus.com/cm7cycles.html (STM32H730, 2021). Classes are those of
// src/sim/latency/instructions/block-costs.ts; each figure is the steady-state issue cost of one
// instruction of the class in a compiled loop (zero-wait-state memory: flash is priced separately).
import type { CoreFamily } from './target-profile.ts';

/** Instruction classes a core's pipeline prices differently (same names as the instruction model's). */
export type TimedClass =
  | 'alu' | 'mul' | 'div' | 'mac' | 'simd' | 'it' | 'load' | 'loadNext' | 'store' | 'multi' | 'jump' | 'condBack' | 'condFwd'
  | 'loop' | 'popPc' | 'fpu' | 'mveLoad' | 'mveStore' | 'mveMac' | 'mveAlu' | 'mvePred';

export interface CoreTiming {
  readonly family: CoreFamily;
  /** Cycles per instruction of each class. */
  readonly cpi: Readonly<Record<TimedClass, number>>;
  readonly source: string;
}

/** Classes a core without MVE never executes: priced high so a wrong build choice shows. */
const NO_MVE = { mveLoad: 4, mveStore: 4, mveMac: 4, mveAlu: 4, mvePred: 4, loop: 3 } as const;

// Cortex-M4 TRM (DDI 0439B) §3.3 Table 3-1: data processing 1; MUL / MLA / SMULL / SMLAL and the
// DSP MACs (SMLAD, SMLABB, ...) 1; SXTB16 / SSAT 1; SDIV 2-12 (mid 7); LDR 2, but a load that follows a
// load or store pipelines its address phase (1, "§3.3.3 Load/store timings"); STR 1 (write buffer);
// LDM / STM / PUSH / POP 1 + N (N ~ 3 in function prologues); B / BL / BX 1 + P, P = 1-3 pipeline
// refill (2); a backward conditional branch closes a loop, taken but on the last pass (1 + P);
// forward ones are taken about half the time (1 + P / 2); POP {pc} 1 + N + P; IT folds into the
// preceding 16-bit instruction about half the time; VFP single ops 1.
const M4: CoreTiming = {
  family: 'cortex-m4',
  cpi: { alu: 1, mul: 1, div: 7, mac: 1, simd: 1, it: 0.5, load: 2, loadNext: 1, store: 1, multi: 4, jump: 3, condBack: 3, condFwd: 2, popPc: 6, fpu: 1, ...NO_MVE },
  source: 'Cortex-M4 TRM (ARM DDI 0439B) §3.3 Table 3-1',
};

// Cortex-M33 TRM (Arm 100230) and the Armv8-M pipeline: the same single-issue three-stage integer
// pipeline timings as the M4 for data processing, MACs and loads / stores; a shorter branch penalty
// (taken branches 2: the M33 prefetches the branch target); limited dual issue of 16-bit pairs
// lowers the average ALU cost (CoreMark/MHz 4.02 vs the M4's 3.42: ~0.85).
const M33: CoreTiming = {
  family: 'cortex-m33',
  cpi: { alu: 0.85, mul: 1, div: 7, mac: 1, simd: 1, it: 0.5, load: 2, loadNext: 1, store: 1, multi: 4, jump: 2, condBack: 2, condFwd: 1.5, popPc: 5, fpu: 1, ...NO_MVE },
  source: 'Cortex-M33 TRM (Arm 100230) §B1 instruction timing; Arm CoreMark/MHz (M33 4.02, M4 3.42)',
};

// Cortex-M7 TRM (ARM DDI 0489) §1.2: six-stage in-order superscalar; two ALU / shift instructions or an
// ALU and a load / store issue together; one load / store, one MAC, one branch a cycle; a branch
// target address cache predicts loops (predicted branches 1). quinapalus.com/cm7cycles.html measures
// most ALU pairs and ALU + LDR at 1 cycle the pair, SMLAD 1, consecutive loads 1 each, SDIV 3-12.
const M7: CoreTiming = {
  family: 'cortex-m7',
  cpi: { alu: 0.5, mul: 1, div: 7, mac: 1, simd: 1, it: 0, load: 0.5, loadNext: 0.5, store: 0.5, multi: 3, jump: 1, condBack: 0.5, condFwd: 1.5, popPc: 4, fpu: 1, ...NO_MVE },
  source: 'Cortex-M7 TRM (ARM DDI 0489) §1.2 dual issue; quinapalus.com/cm7cycles.html pair timings',
};

// Cortex-M0+ TRM (ARM DDI 0484C) §3.3: two-stage pipeline; data processing 1; MULS 1 (single-cycle
// multiplier, as RP2040 has); LDR / STR 2 (no pipelining of consecutive accesses); LDM / STM / PUSH /
// POP 1 + N; taken branches 2 (B, BX), BL 3; conditional taken 2, not taken 1.
const M0P: CoreTiming = {
  family: 'cortex-m0plus',
  cpi: { alu: 1, mul: 1, div: 40, mac: 1, simd: 1, it: 1, load: 2, loadNext: 2, store: 2, multi: 4, jump: 2.5, condBack: 2, condFwd: 1.5, popPc: 5, fpu: 1, ...NO_MVE },
  source: 'Cortex-M0+ TRM (ARM DDI 0484C) §3.3',
};

// Cortex-M55 TRM (Arm 101051) §2: scalar pipeline as the M33 (four stages, limited dual issue);
// Helium executes a 128-bit vector instruction in four beats, two beats a cycle ("dual-beat"), so
// 2 cycles each; the beat overlap of a load with the next MAC / ALU instruction (different units)
// hides about half of the load beats in compiled kernels; VPT / VCTP 1; low-overhead loops (LE /
// LETP) cost nothing after the first pass (loop branch cache).
const M55: CoreTiming = {
  family: 'cortex-m55',
  cpi: { alu: 0.85, mul: 1, div: 7, mac: 1, simd: 1, it: 0.5, load: 2, loadNext: 1, store: 1, multi: 4, jump: 2, condBack: 2, condFwd: 1.5, popPc: 5, fpu: 1,
    mveLoad: 1, mveStore: 1, mveMac: 2, mveAlu: 1.5, mvePred: 1, loop: 0.25 },
  source: 'Cortex-M55 TRM (Arm 101051) §2: dual-beat MVE, beat overlap, low-overhead loops',
};

// Cortex-M85 TRM (Arm 101924) §2: the M7's dual-issue scalar pipeline and the M55's dual-beat Helium
// with a wider (128-bit) data path for vector loads, which overlap fully with MACs.
const M85: CoreTiming = {
  family: 'cortex-m85',
  cpi: { alu: 0.5, mul: 1, div: 7, mac: 1, simd: 0.75, it: 0, load: 1, loadNext: 1, store: 1, multi: 3, jump: 1, condBack: 1, condFwd: 1.5, popPc: 4, fpu: 1,
    mveLoad: 0.5, mveStore: 1, mveMac: 2, mveAlu: 1.5, mvePred: 1, loop: 0.25 },
  source: 'Cortex-M85 TRM (Arm 101924) §2: dual issue, dual-beat MVE, 128-bit vector loads',
};

export const CORE_TIMING: Readonly<Record<CoreFamily, CoreTiming>> = {
  'cortex-m0plus': M0P, 'cortex-m4': M4, 'cortex-m7': M7, 'cortex-m33': M33, 'cortex-m55': M55, 'cortex-m85': M85,
};

/** Cycles of `counts` (instructions per class) on `timing`. */
export function classCycles(counts: Readonly<Partial<Record<TimedClass, number>>>, timing: CoreTiming): number {
  let c = 0;
  for (const [cls, n] of Object.entries(counts) as [TimedClass, number][]) c += n * timing.cpi[cls];
  return c;
}
