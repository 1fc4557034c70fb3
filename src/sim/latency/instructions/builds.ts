// The measured builds whose block costs price an op, and which one a core runs: TFLM + CMSIS-NN's
// DSP path measured as built for a Cortex-M7, the MVE path as built for a Cortex-M55, the plain-C path
// as built for a Cortex-M0+, and TFLM's reference kernels as built for a Cortex-M7.
import type { BlockCosts } from './block-costs.ts';
import type { CodePath } from './op-blocks.ts';
import { M7_CMSIS_DSP } from './costs-m7-dsp.ts';

export interface InstructionBuild {
  readonly name: string;
  readonly code: CodePath;
  readonly costs: BlockCosts;
}

export const M7_DSP_BUILD: InstructionBuild = { name: 'TFLM + CMSIS-NN (DSP), cortex-m7 build', code: 'dsp', costs: M7_CMSIS_DSP };
