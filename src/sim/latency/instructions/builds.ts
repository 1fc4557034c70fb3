// The measured builds whose block costs price an op, and which one a board's core runs. Each build is
// TFLM 90b983c (+ CMSIS-NN 4ab83cc3) compiled as the cortex_m_generic target for one CPU with
// arm-none-eabi-gcc 12.2.1 -O2 and measured in the lab (costs-*.ts name how). A core family without a
// build of its own runs the one with its CMSIS-NN code path and instruction set; `stand-in` says so.
// Checked for the DSP stand-ins: the same TFLM + CMSIS-NN built for cortex-m4+fp and for cortex-m33
// executes, over the 18 recorded models that fit the lab runner, within -1.2% / +2.5% of the cortex-m7
// build's Invoke instructions (MLPerf KWS, VWW, IC, AD within 0.8%).
import type { CoreFeatures, KernelLibrary } from '../../targets/index.ts';
import type { BlockCosts, ClassCounts } from './block-costs.ts';
import type { Libc } from './libc-counts.ts';
import type { CodePath } from './op-blocks.ts';
import { M7_CMSIS_DSP } from './costs-m7-dsp.ts';
import { M55_CMSIS_MVE } from './costs-m55-mve.ts';
import { M7_REFERENCE } from './costs-m7-reference.ts';
import { M0PLUS_CMSIS_C } from './costs-m0plus-c.ts';
import { M0PLUS_REFERENCE } from './costs-m0plus-reference.ts';

/** What TFLM's MicroInterpreter spends outside the ops' windows: once per Invoke and per op. */
export interface InterpreterCost {
  readonly invoke: number;
  readonly perOp: number;
  readonly source: string;
}

export interface InstructionBuild {
  readonly name: string;
  readonly code: CodePath;
  readonly costs: BlockCosts;
  readonly interpreter: InterpreterCost;
  /** The newlib memcpy it links. */
  readonly libc: Libc;
}

/** Instruction classes of the interpreter's own loop (loads of the node / registration tables, calls, compares). */
export const INTERPRETER_MIX: ClassCounts = { alu: 0.4, load: 0.25, loadNext: 0.05, store: 0.1, jump: 0.1, condFwd: 0.1 };

// Lab runs of the same build: a second Invoke with the profiler hooks disabled minus the sum of the
// op windows, on single-op models (110) and 24- to 31-op models without data-dependent ops
// (zoo:tiny-unet 1007, person_detect 1286): 71 + 39 per op (the 39 hold MicroInterpreterGraph's loop
// and two empty profiler calls, as the oracle's runs do).
const M7_INTERPRETER: InterpreterCost = { invoke: 71, perOp: 39, source: 'lab TFLM cortex-m7 build: Invoke minus op windows' };

export const M7_DSP_BUILD: InstructionBuild = { name: 'TFLM + CMSIS-NN (DSP), cortex-m7 build', code: 'dsp', costs: M7_CMSIS_DSP, interpreter: M7_INTERPRETER, libc: 'armv7m' };

// Same measurement on the cortex-m55 build (mps3-an547): 71 + 40 per op.
const M55_INTERPRETER: InterpreterCost = { invoke: 71, perOp: 40, source: 'lab TFLM cortex-m55 build: Invoke minus op windows' };

export const M55_MVE_BUILD: InstructionBuild = { name: 'TFLM + CMSIS-NN (MVE), cortex-m55 build', code: 'mve', costs: M55_CMSIS_MVE, interpreter: M55_INTERPRETER, libc: 'armv7m' };

export const M7_REFERENCE_BUILD: InstructionBuild = { name: 'TFLM reference kernels, cortex-m7 build', code: 'reference', costs: M7_REFERENCE, interpreter: M7_INTERPRETER, libc: 'armv7m' };

// The cortex-m0plus build: 139 instructions outside the window of a single-op model's Invoke (the M7
// build's 110 + 29), 5 more per op than the M7 build on 3- to 13-op models (hello_world, lenet300, AD,
// cifar10-cnn, ds-cnn-kws, first Invoke): 95 + 44 per op.
const M0PLUS_INTERPRETER: InterpreterCost = { invoke: 95, perOp: 44, source: 'lab TFLM cortex-m0plus build: Invoke minus op windows' };

export const M0PLUS_C_BUILD: InstructionBuild = { name: 'TFLM + CMSIS-NN (plain C), cortex-m0plus build', code: 'c', costs: M0PLUS_CMSIS_C, interpreter: M0PLUS_INTERPRETER, libc: 'armv6m' };

// The reference-kernel cortex-m0plus build links the same interpreter code: outside the op windows it runs
// the plain-C build's instructions exactly, on the single-op models (139) and on the five multi-op ones.
export const M0PLUS_REFERENCE_BUILD: InstructionBuild = { name: 'TFLM reference kernels, cortex-m0plus build', code: 'reference', costs: M0PLUS_REFERENCE, interpreter: M0PLUS_INTERPRETER, libc: 'armv6m' };

export interface BuildChoice {
  readonly build: InstructionBuild | null;
  /** Why a core runs another core's measured build, or why none fits. */
  readonly note: string;
}

/** The measured build pricing `library` on `core`. */
export function instructionBuild(core: CoreFeatures, library: KernelLibrary): BuildChoice {
  if (library === 'reference') {
    if (core.family === 'cortex-m0plus') return { build: M0PLUS_REFERENCE_BUILD, note: 'measured build' };
    return core.family === 'cortex-m7'
      ? { build: M7_REFERENCE_BUILD, note: 'measured build' }
      : { build: M7_REFERENCE_BUILD, note: `stand-in: TFLM's reference kernels on the ${core.family}, measured as compiled for a Cortex-M7` };
  }
  if (library === 'cmsis-nn' && core.dsp && !core.mve) {
    return core.family === 'cortex-m7'
      ? { build: M7_DSP_BUILD, note: 'measured build' }
      : { build: M7_DSP_BUILD, note: `stand-in: the ${core.family} runs CMSIS-NN's DSP path, measured as compiled for a Cortex-M7` };
  }
  if (library === 'cmsis-nn' && core.mve) {
    return core.family === 'cortex-m55'
      ? { build: M55_MVE_BUILD, note: 'measured build' }
      : { build: M55_MVE_BUILD, note: `stand-in: the ${core.family} runs CMSIS-NN's MVE path, measured as compiled for a Cortex-M55` };
  }
  if (library === 'cmsis-nn' && !core.dsp) {
    return core.family === 'cortex-m0plus'
      ? { build: M0PLUS_C_BUILD, note: 'measured build' }
      : { build: M0PLUS_C_BUILD, note: `stand-in: the ${core.family} runs CMSIS-NN's plain-C path, measured as compiled for a Cortex-M0+` };
  }
  return { build: null, note: `no measured ${library} build for ${core.family} yet` };
}
