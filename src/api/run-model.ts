// Running, optimizing and timing a model through the public API: runModel plans the arena (offline
// plans honoured), runs every op bit-exact to TFLM's kernels (reference, or cmsis-nn: `kernels`) and, on request, watches
// every arena access with the Tracer; optimizeModel chains the named passes (pipeline.ts);
// estimateLatency times one inference on a board profile (DESIGN.md §9, TinySeg Table 5).
import type { Model } from '../ir/index.ts';
import type { TraceSink } from '../kernels/index.ts';
import { kernelRegistry } from '../kernels/index.ts';
import type { PassOptions, PipelineResult } from '../optimizer/index.ts';
import { estimateModelLatency, preparePlannedModel, runPipeline, runPlanned, tracerFor } from '../optimizer/index.ts';
import type { KernelLibrary, LatencyReport, StorageKind, TargetProfile, TraceViolation, TraceViolationKind } from '../sim/index.ts';
import { DEFAULT_TARGET_NAME, createStorage, getTarget, niclaVision, teeTraceSinks } from '../sim/index.ts';

export interface RunModelOptions {
  /** Raw bytes per graph input; default: seeded random bytes (`seed`). */
  readonly inputs?: readonly Uint8Array[];
  /** Seed of the generated inputs (default 1). */
  readonly seed?: number | string;
  /** Planner name (default tflm-greedy; a model's offline plan is always honoured). */
  readonly planner?: string;
  /** Run under the memory tracer (clobbers, uninitialized reads, out-of-bounds accesses). */
  readonly trace?: boolean;
  /** Also feed every arena access here (e.g. a TracePlot's sink). */
  readonly traceSink?: TraceSink;
  /** Device for TinySeg Spill / Fetching ops (default internal flash of the Nicla Vision). */
  readonly storage?: StorageKind;
  readonly compress?: boolean;
  /** Kernel library the build links (default reference) and, for cmsis-nn, the CPU picking its path (default cortex-m7). */
  readonly kernels?: 'reference' | 'cmsis-nn';
  readonly cpu?: string;
}

export interface RunModelResult {
  readonly inputs: readonly Uint8Array[];
  readonly outputs: readonly Uint8Array[];
  readonly peakBytes: number;
  readonly arenaBytes: number;
  /** With `trace`: what the tracer saw (empty violations = a clean run); else null. */
  readonly trace: { readonly violations: readonly TraceViolation[]; readonly counts: Readonly<Record<TraceViolationKind, number>> } | null;
}

/** Plan, run and optionally trace one inference. */
export function runModel(model: Model, options: RunModelOptions = {}): RunModelResult {
  const pm = preparePlannedModel(model, {
    registry: kernelRegistry(options.kernels ?? 'reference', options.cpu),
    ...(options.planner !== undefined ? { planner: options.planner } : {}),
    ...(options.storage !== undefined ? { storage: createStorage(niclaVision, options.storage) } : {}),
    ...(options.compress ? { compress: true } : {}),
    ...(options.trace ? { traceShadow: true } : {}),
  });
  const tracer = options.trace ? tracerFor(pm) : null;
  const sinks = [...(tracer ? [tracer.sink] : []), ...(options.traceSink ? [options.traceSink] : [])];
  const run = runPlanned(pm, {
    ...(options.inputs !== undefined ? { inputs: options.inputs } : {}),
    ...(options.seed !== undefined ? { seed: options.seed } : {}),
    ...(sinks.length > 0 ? { trace: sinks.length === 1 ? sinks[0] : teeTraceSinks(...sinks) } : {}),
  });
  tracer?.finish();
  return {
    inputs: run.inputs,
    outputs: run.outputs,
    peakBytes: pm.plan.peakBytes,
    arenaBytes: pm.arenaBytes,
    trace: tracer ? { violations: tracer.violations(), counts: tracer.violationCounts() } : null,
  };
}

export interface OptimizeOptions {
  /** Memory target in bytes (passes that search stop once they meet it). */
  readonly targetBytes?: number;
  readonly storage?: StorageKind;
  /** Pass-specific flags, as `mcusim optimize` takes them (e.g. { 'spill-percent': 50 }). */
  readonly flags?: PassOptions['flags'];
  /** The TFLM build whose whole arena (planned + persistent) the passes minimize (default cortex-m). */
  readonly arch?: PassOptions['arch'];
  readonly log?: (line: string) => void;
  /** Kernel library planned for (its scratch, persistent data and access order; default reference)
   * and, for cmsis-nn, the CPU picking its path (default cortex-m7): as runModel's. */
  readonly kernels?: 'reference' | 'cmsis-nn';
  readonly cpu?: string;
}

/** Run the named passes in order (see passNames()); the result carries its plan offline. */
export function optimizeModel(model: Model, passes: readonly string[], options: OptimizeOptions = {}): PipelineResult {
  const { kernels, cpu, ...rest } = options;
  return runPipeline(model, passes, { ...rest, flags: options.flags ?? {}, registry: kernelRegistry(kernels ?? 'reference', cpu) });
}

export interface EstimateLatencyOptions {
  readonly library?: KernelLibrary;
  readonly storage?: StorageKind;
  readonly asyncErase?: boolean;
  /** MFV-compress spilled tensors; their bytes come from a run on `inputs` (default seed 1). */
  readonly compress?: boolean;
  readonly inputs?: 'zero' | { readonly seed: number };
}

/** One inference's latency on a board (a name from listTargets() or a TargetProfile). */
export function estimateLatency(model: Model, target: string | TargetProfile = DEFAULT_TARGET_NAME, options: EstimateLatencyOptions = {}): LatencyReport {
  return estimateModelLatency(model, { ...options, target: typeof target === 'string' ? getTarget(target) : target });
}
