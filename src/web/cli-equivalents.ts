// The arguments a CLI command passes to the library, for the page's build: each page figure comes
// from the same API call with the same arguments as the CLI's --json for the same flags (test/web
// compares every one); the figures themselves are computed by the library (inspectModel,
// estimateLatency + heaviestOp, optimizeWithReport, reportVerification), never here. A change of a command's defaults must be mirrored here; the page tests show any drift:
//   registryOf     = --kernels K [--cpu C] with the file check (kernel-options.ts kernelsForFile)
//   inspectBuild   = `inspect MODEL --board B --kernels K [--cpu C] --json` (arch cortex-m, default runtime)
//   latencyOn      = `latency MODEL --board B --kernels K --engine E --json`
//   optimizeBuild  = `optimize MODEL --passes P [--target-bytes N] [--spill-percent S] --kernels K [--cpu C] -o F --json`
import { inspectModel, optimizeWithReport } from '../api/index.ts';
import type { Inspection, OptimizeRun } from '../api/index.ts';
import type { Model } from '../ir/index.ts';
import { UsageError } from '../ir/index.ts';
import { CORTEX_M_CPUS, KERNEL_LIBRARY_NAMES, kernelRegistry } from '../kernels/index.ts';
import type { KernelRegistry } from '../kernels/index.ts';
import { DEFAULT_PAYLOAD_INPUTS, DEFAULT_PLANNER, checkPlanLibrary, estimateModelLatency, getPass, passNames } from '../optimizer/index.ts';
import type { KernelLibrary, LatencyReport } from '../sim/index.ts';
import { DEFAULT_ARENA_RUNTIME, DEFAULT_TFLM_ARCH, KERNEL_LIBRARIES, getTarget, getTflmArch, parseEngine } from '../sim/index.ts';
import type { Build } from './protocol.ts';

/** The registry of --kernels K [--cpu C] (kernel-options.ts resolveKernels): the CPU only with cmsis-nn. */
export function kernelsOf(build: Build): KernelRegistry {
  if (!(KERNEL_LIBRARY_NAMES as readonly string[]).includes(build.kernels)) throw new UsageError(`unknown --kernels '${build.kernels}'; known: ${KERNEL_LIBRARY_NAMES.join(', ')}`);
  if (build.kernels !== 'cmsis-nn') return kernelRegistry(build.kernels);
  if (!Object.hasOwn(CORTEX_M_CPUS, build.cpu)) throw new UsageError(`unknown --cpu '${build.cpu}'; known: ${Object.keys(CORTEX_M_CPUS).join(', ')}`);
  return kernelRegistry('cmsis-nn', build.cpu);
}

/** kernelsOf for `model` as kernelsForFile reads a file with --kernels given: E_PLAN_LIBRARY when
 * the plan the file records breaks with that library. */
export function registryOf(build: Build, model: Model, label: string): KernelRegistry {
  const registry = kernelsOf(build);
  checkPlanLibrary(model, registry, label);
  return registry;
}

/** The declared arena's start alignment `inspect` uses without --arena-align (cli-options.ts parseArenaAlign). */
const CLI_ARENA_ALIGN_BYTES = 16;

/** inspect's report for the page's build, with the board's fit (`inspect --board B --kernels K [--cpu C] --json`). */
export function inspectBuild(model: Model, label: string, build: Build): Inspection {
  return inspectModel(model, DEFAULT_PLANNER, {}, {
    arch: getTflmArch(DEFAULT_TFLM_ARCH), board: getTarget(build.board), runtime: DEFAULT_ARENA_RUNTIME, kernels: registryOf(build, model, label), startAlignBytes: CLI_ARENA_ALIGN_BYTES,
  });
}

function libraryOf(name: string): KernelLibrary {
  const lib = KERNEL_LIBRARIES.find((l) => l === name);
  if (lib === undefined) throw new UsageError(`unknown --kernels '${name}'; known: ${KERNEL_LIBRARIES.join(', ')}`);
  return lib;
}

/** `latency MODEL --board B --kernels K --engine E --json` (internal storage, no compression). */
export function latencyOn(model: Model, board: string, build: Build): LatencyReport {
  return estimateModelLatency(model, {
    target: getTarget(board), library: libraryOf(build.kernels), engine: parseEngine(build.engine),
    storage: 'internal', asyncErase: false, compress: false, inputs: DEFAULT_PAYLOAD_INPUTS, payloadOf: null,
  });
}

export interface OptimizeFlags {
  readonly passes: string;
  readonly targetBytes: string;
  readonly spillPercent: string;
}

export interface OptimizeFigures extends OptimizeRun {
  /** The CLI flags these figures are for, e.g. `--passes dmo --kernels cmsis-nn --cpu cortex-m7`. */
  readonly cliFlags: string;
}

function passList(text: string): string[] {
  const names = text.split(',').map((s) => s.trim()).filter((s) => s.length > 0);
  if (names.length === 0) throw new UsageError(`--passes needs at least one pass; available: ${passNames().join(', ')}`);
  names.forEach(getPass);
  return names;
}

function targetOf(s: string): number | undefined {
  if (s.trim() === '') return undefined;
  const n = Number(s);
  if (!Number.isSafeInteger(n) || n <= 0) throw new UsageError(`--target-bytes must be a positive byte count, got '${s}'`);
  return n;
}

function percentOf(s: string, names: readonly string[]): number | undefined {
  if (s.trim() === '') return undefined;
  if (!names.some((n) => n === 'tinyseg' || n === 'auto')) throw new UsageError(`--spill-percent: only the tinyseg pass (or auto, which tries it) reads it; --passes is ${names.join(',')}`);
  const n = Number(s);
  if (!Number.isFinite(n) || n < 0 || n > 100) throw new UsageError(`--spill-percent must be a number in [0, 100], got '${s}'`);
  return n;
}

/** `optimize` (runOptimize: optimizeWithReport) on one thread: the file (null when refused) and the report. */
export function optimizeBuild(model: Model, label: string, flags: OptimizeFlags, build: Build, log: (line: string) => void): OptimizeFigures {
  const names = passList(flags.passes);
  const targetBytes = targetOf(flags.targetBytes);
  const spillPercent = percentOf(flags.spillPercent, names);
  const registry = registryOf(build, model, label);
  const run = optimizeWithReport(model, names, {
    kernels: registry.library, ...(registry.cpu !== null ? { cpu: registry.cpu } : {}),
    runtime: DEFAULT_ARENA_RUNTIME, arch: getTflmArch(DEFAULT_TFLM_ARCH).name,
    flags: spillPercent !== undefined ? { spillPercent } : {},
    ...(targetBytes !== undefined ? { targetBytes } : {}),
    log,
  });
  const cliFlags = [
    `--passes ${names.join(',')}`,
    ...(targetBytes !== undefined ? [`--target-bytes ${targetBytes}`] : []),
    ...(spillPercent !== undefined ? [`--spill-percent ${spillPercent}`] : []),
    `--kernels ${registry.library}`, ...(registry.cpu === null ? [] : [`--cpu ${registry.cpu}`]),
  ].join(' ');
  return { ...run, cliFlags };
}
