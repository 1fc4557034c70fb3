// `mcusim optimize` as a library call (the like-with-like issue): runs the passes for one kernel
// library and one runtime (TFLM's MicroInterpreter by default, or mcusim's C port), and reports
// the arena before and after on that same runtime and library. A result that needs mcusim's own
// ops (TinySeg's Spill / Fetching, FDT's MergeAccumulators, TransposeConv's mcusim-only forms)
// also gets both runtimes side by side, each against the original on that runtime. A result larger
// than the original on the chosen runtime is refused: `written` false, and why.
import type { Model } from '../ir/index.ts';
import { exportTflite } from '../ir/index.ts';
import { kernelRegistry } from '../kernels/index.ts';
import type { KernelLibraryName } from '../kernels/index.ts';
import { arenaTotals, currentPeakBytes, runPipeline } from '../optimizer/index.ts';
import type { ArenaTotals, CandidateEvaluator, PassOptions, PassReport, TargetResult } from '../optimizer/index.ts';
import { DEFAULT_ARENA_RUNTIME, DEFAULT_TFLM_ARCH, runsGeneratedKernel } from '../sim/index.ts';
import type { ArenaRuntime, TflmArchName } from '../sim/index.ts';

export interface OptimizeRunOptions {
  /** Kernel library planned for (default reference) and, for cmsis-nn, the CPU picking its path. */
  readonly kernels?: KernelLibraryName;
  readonly cpu?: string;
  /** Whose arena the passes minimize and the report compares (default tflm). */
  readonly runtime?: ArenaRuntime;
  /** The build whose arena is scored (default cortex-m). */
  readonly arch?: TflmArchName;
  readonly targetBytes?: number;
  readonly storage?: PassOptions['storage'];
  /** Pass-specific flags, as `mcusim optimize` takes them (e.g. { 'spill-percent': 50 }). */
  readonly flags?: PassOptions['flags'];
  readonly log?: (line: string) => void;
  /** Scores search candidates (the CLI passes a worker pool; default: in order on this thread). */
  readonly evaluator?: CandidateEvaluator;
}

/** Before and after on one runtime and one kernel library. */
export interface ArenaComparison {
  readonly before: ArenaTotals;
  readonly after: ArenaTotals;
}

export interface OptimizeReport {
  readonly kernels: KernelLibraryName;
  readonly cpu: string | null;
  /** The runtime the passes scored and `before` / `after` compare. */
  readonly runtime: ArenaRuntime;
  readonly arch: TflmArchName;
  readonly before: { readonly peakBytes: number; readonly arena: ArenaTotals };
  readonly after: { readonly peakBytes: number; readonly arena: ArenaTotals };
  /** When the result needs mcusim's ops: each runtime's before and after (TFLM with the generated kernels, and the C port). */
  readonly runtimes?: Readonly<Record<ArenaRuntime, ArenaComparison>>;
  readonly passes: readonly PassReport[];
  /** The pipeline's verdict on the byte target, when one was given. */
  readonly target?: TargetResult;
  /** False when the result would need more RAM than the original on `runtime`: nothing to write. */
  readonly written: boolean;
  readonly refused?: string;
}

export interface OptimizeRun {
  readonly model: Model;
  /** The .tflite bytes to write (null when refused). */
  readonly bytes: Uint8Array | null;
  readonly report: OptimizeReport;
}

/** Whether `model` needs mcusim's own kernels (generated TFLM kernels, or the C port) to run. */
export function needsMcusimOps(model: Model, kernels: KernelLibraryName = 'reference', cpu?: string): boolean {
  const registry = kernelRegistry(kernels, cpu);
  return model.graph.ops.some((op) => runsGeneratedKernel(op, registry));
}

const grouped = (n: number): string => n.toLocaleString('en-US');

/** Run `passes` on `model` and compare the arena before and after on one runtime (see the header). */
export function optimizeWithReport(model: Model, passes: readonly string[], options: OptimizeRunOptions = {}): OptimizeRun {
  const registry = kernelRegistry(options.kernels ?? 'reference', options.cpu);
  const runtime = options.runtime ?? DEFAULT_ARENA_RUNTIME;
  const arch = options.arch ?? DEFAULT_TFLM_ARCH;
  const passOptions: PassOptions = {
    flags: options.flags ?? {}, arch, runtime, registry,
    ...(options.targetBytes !== undefined ? { targetBytes: options.targetBytes } : {}),
    ...(options.storage !== undefined ? { storage: options.storage } : {}),
    ...(options.log !== undefined ? { log: options.log } : {}),
    ...(options.evaluator !== undefined ? { evaluator: options.evaluator } : {}),
  };
  const result = runPipeline(model, passes, passOptions);
  const on = (m: Model, r: ArenaRuntime): ArenaTotals => arenaTotals(m, arch, registry, r);
  const before = on(model, runtime);
  const after = on(result.model, runtime);
  const both = result.model.graph.ops.some((op) => runsGeneratedKernel(op, registry));
  const other: ArenaRuntime = runtime === 'tflm' ? 'mcusim' : 'tflm';
  const runtimes = both
    ? ({ [runtime]: { before, after }, [other]: { before: on(model, other), after: on(result.model, other) } } as Record<ArenaRuntime, ArenaComparison>)
    : undefined;
  const larger = after.totalBytes + after.outsideArenaBytes > before.totalBytes + before.outsideArenaBytes;
  const refused = larger
    ? `the result needs ${grouped(after.totalBytes)} B on ${runtime} (${registry.library} kernels), more than the original's ${grouped(before.totalBytes)} B: nothing written`
    : undefined;
  const report: OptimizeReport = {
    kernels: registry.library,
    cpu: registry.cpu,
    runtime,
    arch,
    before: { peakBytes: currentPeakBytes(model, registry), arena: before },
    after: { peakBytes: currentPeakBytes(result.model, registry), arena: after },
    ...(runtimes !== undefined ? { runtimes } : {}),
    passes: result.reports,
    ...(result.target !== undefined ? { target: result.target } : {}),
    written: !larger,
    ...(refused !== undefined ? { refused } : {}),
  };
  return { model: result.model, bytes: larger ? null : exportTflite(result.model), report };
}
