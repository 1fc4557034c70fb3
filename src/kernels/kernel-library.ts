// The kernel library a build links, as a registry of specs: TFLM's reference kernels, or TFLM with
// OPTIMIZED_KERNEL_DIR=cmsis_nn, whose kernels/cmsis_nn/*.cc replace add, mul, conv, depthwise conv,
// fully connected, pooling, softmax, svdf, lstm, transpose, pad, maximum/minimum, batch_matmul (no op
// kind in mcusim: refused at import) and transpose conv; every other op keeps its reference kernel. CMSIS-NN's code path is a
// compile-time choice (arm_nn_math_types.h: ARM_MATH_DSP from __ARM_FEATURE_DSP, ARM_MATH_MVEI from
// __ARM_FEATURE_MVE), so the CPU picks it: DSP on M4/M7/M33, MVE (Helium) on M55/M85, plain C else.
import { UsageError } from '../ir/index.ts';
import { KERNELS, REFERENCE_KERNELS } from './registry.ts';
import type { KernelLibraryName, KernelRegistry, KernelTable } from './registry.ts';
import type { CmsisNnFeatures } from './specs/cmsis-nn/conv-family.ts';
import { cmsisNnTable } from './specs/cmsis-nn/table.ts';

export type { CmsisNnFeatures } from './specs/cmsis-nn/conv-family.ts';

export const KERNEL_LIBRARY_NAMES: readonly KernelLibraryName[] = ['reference', 'cmsis-nn'];

/**
 * Cortex-M cores and the CMSIS-NN features their compilers define (ARM's Cortex-M Technical
 * Reference Manuals: the DSP extension is in M4, M7 and M33 (M33's is optional: CMSIS-NN sees it
 * as the usual -mcpu=cortex-m33 builds enable it); M55 and M85 have MVE, which implies DSP).
 */
export const CORTEX_M_CPUS = {
  'cortex-m0plus': { dsp: false, mve: false },
  'cortex-m3': { dsp: false, mve: false },
  'cortex-m4': { dsp: true, mve: false },
  'cortex-m7': { dsp: true, mve: false },
  'cortex-m33': { dsp: true, mve: false },
  'cortex-m55': { dsp: true, mve: true },
  'cortex-m85': { dsp: true, mve: true },
} as const satisfies Record<string, CmsisNnFeatures>;

export type CortexMCpu = keyof typeof CORTEX_M_CPUS;

/** The CPU a cmsis-nn build is for when none is named: the one of the oracle build (Cortex-M7). */
export const DEFAULT_CMSIS_NN_CPU: CortexMCpu = 'cortex-m7';

const featureKey = (f: CmsisNnFeatures): 'mve' | 'dsp' | 'c' => (f.mve ? 'mve' : f.dsp ? 'dsp' : 'c');

// One table per code path, built once: the specs are data, a registry only names them.
const CMSIS_NN_TABLES: Readonly<Record<'mve' | 'dsp' | 'c', KernelTable>> = {
  c: cmsisNnTable(KERNELS, { dsp: false, mve: false }),
  dsp: cmsisNnTable(KERNELS, { dsp: true, mve: false }),
  mve: cmsisNnTable(KERNELS, { dsp: true, mve: true }),
};

export function isCortexMCpu(name: string): name is CortexMCpu {
  return Object.hasOwn(CORTEX_M_CPUS, name);
}

/** CMSIS-NN's features on `cpu`. */
export function cmsisNnFeatures(cpu: CortexMCpu): CmsisNnFeatures {
  return CORTEX_M_CPUS[cpu];
}

/**
 * The registry of `library` (a name, checked) on `cpu`. Reference kernels have one code path:
 * a CPU given with them is refused, so a user never believes it changed something. cmsis-nn
 * without a CPU is for DEFAULT_CMSIS_NN_CPU.
 */
export function kernelRegistry(library: string = 'reference', cpu?: string): KernelRegistry {
  if (library === 'reference') {
    if (cpu !== undefined) throw new UsageError(`a CPU ('${cpu}') only chooses CMSIS-NN's code path: use it with kernels 'cmsis-nn'`);
    return REFERENCE_KERNELS;
  }
  if (library !== 'cmsis-nn') throw new UsageError(`unknown kernel library '${library}' (known: ${KERNEL_LIBRARY_NAMES.join(', ')})`);
  const name = cpu ?? DEFAULT_CMSIS_NN_CPU;
  if (!isCortexMCpu(name)) throw new UsageError(`unknown CPU '${name}' (known: ${Object.keys(CORTEX_M_CPUS).join(', ')})`);
  return { library: 'cmsis-nn', cpu: name, specs: CMSIS_NN_TABLES[featureKey(cmsisNnFeatures(name))] };
}

/** `reference` or `cmsis-nn (cortex-m7: DSP)`: how reports name a registry. */
export function describeKernels(r: KernelRegistry): string {
  if (r.cpu === null || !isCortexMCpu(r.cpu)) return r.library;
  const f = cmsisNnFeatures(r.cpu);
  return `${r.library} (${r.cpu}: ${f.mve ? 'MVE' : f.dsp ? 'DSP' : 'plain C'})`;
}

/** The CMSIS-NN code path of a registry ('mve' | 'dsp' | 'c'), null for reference kernels. */
export function kernelPath(r: KernelRegistry): 'mve' | 'dsp' | 'c' | null {
  return r.cpu === null || !isCortexMCpu(r.cpu) ? null : featureKey(cmsisNnFeatures(r.cpu));
}
