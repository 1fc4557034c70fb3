// The page's figures that `mcusim --json` computes inside a CLI command file today, computed here
// from the same library functions with the same arguments the command passes, so a page figure and
// the CLI's --json agree (test/web compares every one). TO BE REPLACED by the src/api functions once
// issue 53 lands (the optimize / inspect report building moves into src/api); until then a change
// of a command's defaults must be mirrored here, and the page tests show any drift:
//   inspectBuild   = `inspect MODEL --board B --kernels K [--cpu C] --json` (arch cortex-m, runtime mcusim)
//   latencyOn      = `latency MODEL --board B --kernels K --engine E --json`
//   heaviestOp     = `latency MODEL --boards all --json`'s heaviestOp per board
//   optimizeBuild  = `optimize MODEL --passes P [--target-bytes N] [--spill-percent S] --kernels K [--cpu C] -o F --json`
import { inspectModel } from '../api/index.ts';
import type { Inspection, VerifyReport } from '../api/index.ts';
import type { Model } from '../ir/index.ts';
import { UsageError, exportTflite } from '../ir/index.ts';
import { CORTEX_M_CPUS, KERNEL_LIBRARY_NAMES, kernelRegistry } from '../kernels/index.ts';
import type { KernelRegistry } from '../kernels/index.ts';
import type { ArenaTotals, PassOptions, PassReport, TargetResult } from '../optimizer/index.ts';
import { DEFAULT_PAYLOAD_INPUTS, DEFAULT_PLANNER, arenaTotals, currentPeakBytes, estimateModelLatency, getPass, passNames, runPipeline } from '../optimizer/index.ts';
import type { ReportVerification } from '../report/index.ts';
import type { KernelLibrary, LatencyReport } from '../sim/index.ts';
import { DEFAULT_TFLM_ARCH, KERNEL_LIBRARIES, getTarget, getTflmArch, parseEngine } from '../sim/index.ts';
import type { Build } from './protocol.ts';

/** The registry of --kernels K [--cpu C] (kernel-options.ts resolveKernels): the CPU only with cmsis-nn. */
export function registryOf(build: Build): KernelRegistry {
  if (!(KERNEL_LIBRARY_NAMES as readonly string[]).includes(build.kernels)) throw new UsageError(`unknown --kernels '${build.kernels}'; known: ${KERNEL_LIBRARY_NAMES.join(', ')}`);
  if (build.kernels !== 'cmsis-nn') return kernelRegistry(build.kernels);
  if (!Object.hasOwn(CORTEX_M_CPUS, build.cpu)) throw new UsageError(`unknown --cpu '${build.cpu}'; known: ${Object.keys(CORTEX_M_CPUS).join(', ')}`);
  return kernelRegistry('cmsis-nn', build.cpu);
}

/** inspect's report for the page's build, with the board's fit (`inspect --board B --kernels K [--cpu C] --json`). */
export function inspectBuild(model: Model, build: Build): Inspection {
  return inspectModel(model, DEFAULT_PLANNER, {}, { arch: getTflmArch(DEFAULT_TFLM_ARCH), board: getTarget(build.board), runtime: 'mcusim', kernels: registryOf(build) });
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

/** The op with the largest share of a board's latency (`latency --boards`' heaviestOp). */
export function heaviestOp(r: LatencyReport): { index: number; kind: string; share: number } | null {
  const top = [...r.ops].sort((a, b) => b.share - a.share)[0];
  return top === undefined ? null : { index: top.index, kind: top.kind, share: top.share };
}

export interface OptimizeFlags {
  readonly passes: string;
  readonly targetBytes: string;
  readonly spillPercent: string;
}

export interface OptimizeFigures {
  readonly model: Model;
  readonly bytes: Uint8Array;
  readonly before: { readonly peakBytes: number; readonly arena: ArenaTotals };
  readonly after: { readonly peakBytes: number; readonly arena: ArenaTotals };
  readonly passes: readonly PassReport[];
  readonly target: TargetResult | null;
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

/** `optimize` (runOptimize) on one thread: the pipeline, the peaks and whole arenas before and after, the file. */
export function optimizeBuild(model: Model, flags: OptimizeFlags, build: Build, log: (line: string) => void): OptimizeFigures {
  const names = passList(flags.passes);
  const targetBytes = targetOf(flags.targetBytes);
  const spillPercent = percentOf(flags.spillPercent, names);
  const registry = registryOf(build);
  const arch = getTflmArch(DEFAULT_TFLM_ARCH).name;
  const options: PassOptions = {
    flags: spillPercent !== undefined ? { spillPercent } : {},
    ...(targetBytes !== undefined ? { targetBytes } : {}),
    arch, log, registry,
  };
  const before = currentPeakBytes(model, registry);
  const result = runPipeline(model, names, options);
  const cliFlags = [
    `--passes ${names.join(',')}`,
    ...(targetBytes !== undefined ? [`--target-bytes ${targetBytes}`] : []),
    ...(spillPercent !== undefined ? [`--spill-percent ${spillPercent}`] : []),
    ...(registry.library === 'reference' ? [] : [`--kernels ${registry.library} --cpu ${registry.cpu ?? ''}`]),
  ].join(' ');
  return {
    model: result.model,
    bytes: exportTflite(result.model),
    before: { peakBytes: before, arena: arenaTotals(model, arch, registry) },
    after: { peakBytes: currentPeakBytes(result.model, registry), arena: arenaTotals(result.model, arch, registry) },
    passes: result.reports,
    target: result.target ?? null,
    cliFlags,
  };
}

const MAX_DETAILS = 8;

/** The report's verification section from a verify report (`report`'s verificationOf). */
export function reportVerification(r: VerifyReport): ReportVerification {
  const details = [
    ...r.mismatches.map((m) => `seed ${m.seed}, output ${m.output} (${m.name}): ${m.differingBytes} bytes differ, first at byte ${m.firstByte} (${m.expected} expected, ${m.actual} got)`),
    ...r.violations.map((v) => `seed ${v.seed}: ${v.kind} (${v.access}) at step ${v.step}, op ${v.opIndex} ${v.opKind}, address ${v.address}`),
    ...(r.storage?.violations ?? []).map((v) => `storage: ${v}`),
  ];
  const passed = r.identical && r.traceClean;
  return {
    seeds: r.seeds, passed, identical: r.identical, traceClean: r.traceClean, planError: r.planError,
    mismatches: r.mismatches.length, violations: r.violations.length,
    details: details.length > MAX_DETAILS ? [...details.slice(0, MAX_DETAILS), `... ${details.length - MAX_DETAILS} more`] : details,
  };
}
