// The whole arena a model needs, as the optimizer scores and reports it (issue 12, the like-with-like
// issue): the planned head (tflm-greedy honouring the model's offline plan, storage I/O buffers
// included) plus the persistent tail of the chosen runtime on `arch` (TFLM's MicroInterpreter by
// default, with mcusim's generated kernels for the ops stock TFLM lacks; or mcusim's C port), the
// arena size to declare and any RAM outside the arena. The figures as the simulator plans and runs
// a model (arenaTotals): prepared-totals.ts.
import type { Graph, Model } from '../ir/index.ts';
import { readOfflinePlan } from '../ir/index.ts';
import { DEFAULT_ARENA_RUNTIME, DEFAULT_TFLM_ARCH, getTflmArch, runtimeArena, tflmGeneratedArena, wholeArena } from '../sim/index.ts';
import type { ArenaReport, ArenaRuntime, PlanSize, TflmArchName } from '../sim/index.ts';
import type { KernelRegistry } from '../kernels/index.ts';
import { computeModelBufferRequests, planGreedy } from './planners/index.ts';

/** The figures every memory report carries (DESIGN.md §9), with the runtime and library they are for. */
export type ArenaTotals = Omit<ArenaReport, 'arch' | 'nonStockOps'>;

/** Whose arena is scored: TFLM's MicroInterpreter (default) or mcusim's C port (ArenaRuntime). */
export type ArenaRuntimeTarget = ArenaRuntime;

/** The whole-arena report of `graph` planned as `plan` on `arch` with `registry`'s kernels, on `runtime`. */
export function graphArena(
  graph: Graph, plan: PlanSize, arch: TflmArchName = DEFAULT_TFLM_ARCH, offline: Int32Array | null = null, registry?: KernelRegistry, runtime: ArenaRuntimeTarget = DEFAULT_ARENA_RUNTIME,
): ArenaReport {
  return runtimeArena(graph, plan, getTflmArch(arch), runtime, { offlineOffsets: offline, ...(registry !== undefined ? { registry } : {}) });
}

/** The totals of an arena report (its figures, runtime and library). */
export function totalsOfReport(r: ArenaReport): ArenaTotals {
  return {
    runtime: r.runtime, kernels: r.kernels, cpu: r.cpu, plannedBytes: r.plannedBytes, persistentBytes: r.persistentBytes,
    totalBytes: r.totalBytes, declareBytes: r.declareBytes, outsideArenaBytes: r.outsideArenaBytes,
  };
}

/** RAM beside the plan (persistent + outside the arena) when `graph` runs on `runtime` with `registry`'s kernels. */
export function mcusimTailBytes(graph: Graph, arch: TflmArchName = DEFAULT_TFLM_ARCH, runtime: ArenaRuntimeTarget = DEFAULT_ARENA_RUNTIME, registry?: KernelRegistry): number {
  const r = runtime === 'tflm' ? tflmGeneratedArena(graph, 0, getTflmArch(arch), null, registry) : wholeArena(graph, 0, getTflmArch(arch), null, 'mcusim', registry).report;
  return r.persistentBytes + r.outsideArenaBytes;
}

/** RAM a board needs for `a`: the arena plus anything beside it (what the optimizers minimize). */
export function ramBytes(a: ArenaTotals): number {
  return a.totalBytes + a.outsideArenaBytes;
}

/** Fast totals for a search candidate: greedy plan of the model's requests + its runtime's tail. */
export function candidateTotals(model: Model, arch: TflmArchName = DEFAULT_TFLM_ARCH, registry?: KernelRegistry, runtime: ArenaRuntimeTarget = DEFAULT_ARENA_RUNTIME): ArenaTotals {
  const requests = computeModelBufferRequests(model, registry);
  const plan = { plannedBytes: planGreedy(requests).peakBytes, bufferCount: requests.length };
  return totalsOfReport(graphArena(model.graph, plan, arch, readOfflinePlan(model), registry, runtime));
}

/** "planned a -> b B, persistent c -> d B: total e -> f B" (pass notes). */
export function describeTotals(before: ArenaTotals, after: ArenaTotals): string {
  const n = (x: number): string => x.toLocaleString('en-US');
  return `planned ${n(before.plannedBytes)} -> ${n(after.plannedBytes)} B, persistent ${n(before.persistentBytes)} -> ${n(after.persistentBytes)} B: total ${n(before.totalBytes)} -> ${n(after.totalBytes)} B`;
}
