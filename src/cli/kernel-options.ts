// `--kernels reference|cmsis-nn` and `--cpu cortex-m0plus|m3|m4|m7|m33|m55|m85`, shared by the
// commands that plan, run or trace a model: which kernel library the build links and which CMSIS-NN
// code path the CPU's compile-time macros pick. --cpu without --kernels cmsis-nn is refused (the
// reference kernels have one code path); cmsis-nn without --cpu is for a Cortex-M7 (DSP). A file
// that records the library its plan was made for (mcusim_plan_kernels) is read with that library
// when --kernels is absent (--cpu alone then picks that library's path).
import type { Command } from 'commander';
import { UsageError, readPlanKernels, recordsPlanKernels } from '../ir/index.ts';
import type { Model } from '../ir/index.ts';
import { CORTEX_M_CPUS, DEFAULT_CMSIS_NN_CPU, KERNEL_LIBRARY_NAMES, kernelRegistry } from '../kernels/index.ts';
import { checkPlanLibrary } from '../optimizer/index.ts';
import type { KernelLibraryName, KernelRegistry } from '../kernels/index.ts';

export interface KernelCliOptions {
  readonly kernels?: string;
  readonly cpu?: string;
}

/** The registry --kernels / --cpu name (else the library `model` records for its plan, else reference). */
export function resolveKernels(opts: KernelCliOptions, model?: Model): KernelRegistry {
  const recorded = opts.kernels === undefined && model !== undefined && recordsPlanKernels(model) ? readPlanKernels(model) : null;
  if (recorded !== null && recorded.library !== 'reference' && (KERNEL_LIBRARY_NAMES as readonly string[]).includes(recorded.library)) {
    const cpu = opts.cpu ?? recorded.cpu ?? undefined;
    if (cpu !== undefined && !Object.hasOwn(CORTEX_M_CPUS, cpu)) throw new UsageError(`unknown --cpu '${cpu}'; known: ${Object.keys(CORTEX_M_CPUS).join(', ')}`);
    return kernelRegistry(recorded.library as KernelLibraryName, recorded.library === 'cmsis-nn' ? cpu : undefined);
  }
  const library = opts.kernels ?? 'reference';
  if (!(KERNEL_LIBRARY_NAMES as readonly string[]).includes(library)) throw new UsageError(`unknown --kernels '${library}'; known: ${KERNEL_LIBRARY_NAMES.join(', ')}`);
  if (opts.cpu !== undefined && library !== 'cmsis-nn') throw new UsageError(`--cpu picks CMSIS-NN's code path: it needs --kernels cmsis-nn (the reference kernels have one path)`);
  if (opts.cpu !== undefined && !Object.hasOwn(CORTEX_M_CPUS, opts.cpu)) throw new UsageError(`unknown --cpu '${opts.cpu}'; known: ${Object.keys(CORTEX_M_CPUS).join(', ')}`);
  return kernelRegistry(library, opts.cpu);
}

/** Commander options for resolveKernels. */
export function addKernelOptions(cmd: Command): Command {
  return cmd
    .option('--kernels <lib>', `kernel library the build links (${KERNEL_LIBRARY_NAMES.join(', ')}; default reference)`)
    .option('--cpu <cpu>', `CPU picking CMSIS-NN's code path, with --kernels cmsis-nn only (${Object.keys(CORTEX_M_CPUS).join(', ')}; default ${DEFAULT_CMSIS_NN_CPU}): DSP on m4/m7/m33, MVE on m55/m85, plain C else`);
}

/** The `"kernels"` and `"cpu"` fields every --json names. */
export function kernelsJson(r: KernelRegistry): { readonly kernels: string; readonly cpu: string | null } {
  return { kernels: r.library, cpu: r.cpu };
}

/**
 * The registry to read `model` with: resolveKernels, and when --kernels names a library other than
 * the one the file's plan records, E_PLAN_LIBRARY (exit 1) if that plan breaks with it
 * (checkPlanLibrary: the library it was made for, the op and tensor where it breaks).
 */
export function kernelsForFile(opts: KernelCliOptions, model: Model, label: string): KernelRegistry {
  const registry = resolveKernels(opts, model);
  if (opts.kernels !== undefined || opts.cpu !== undefined) checkPlanLibrary(model, registry, label);
  return registry;
}
