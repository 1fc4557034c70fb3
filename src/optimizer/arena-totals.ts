// The whole arena a model needs, as the optimizer scores and reports it (issue 12): the planned head
// (tflm-greedy honouring the model's offline plan, storage I/O buffers included) plus the persistent
// tail of the runtime the model needs on `arch` (stock TFLM when every op and kernel variant is
// TFLM's, mcusim's C runtime otherwise: wholeArena decides), plus any RAM outside the arena. The
// figures as the simulator plans and runs a model (arenaTotals): prepared-totals.ts.
import type { Graph, Model } from '../ir/index.ts';
import { readOfflinePlan } from '../ir/index.ts';
import { DEFAULT_TFLM_ARCH, getTflmArch, mcusimKernelUses, tflmGeneratedArena, wholeArena } from '../sim/index.ts';
import type { ArenaReport, TflmArchName } from '../sim/index.ts';
import type { KernelRegistry } from '../kernels/index.ts';
import { computeModelBufferRequests, planGreedy } from './planners/index.ts';

/** The four figures every memory report carries (DESIGN.md §9). */
export interface ArenaTotals {
  readonly plannedBytes: number;
  readonly persistentBytes: number;
  readonly totalBytes: number;
  readonly outsideArenaBytes: number;
}

/**
 * Whose arena is scored: `mcusim` (default: stock TFLM when it runs every op, else mcusim's C
 * runtime) or `tflm` (TFLM with the kernels of `codegen --tflm`, docs/deploy-tflm.md).
 */
export type ArenaRuntimeTarget = 'mcusim' | 'tflm';

/**
 * The whole-arena report of `graph` planned at `plannedBytes` on `arch` with `registry`'s kernels,
 * for the runtime it needs (or TFLM's with `target` tflm).
 */
export function graphArena(
  graph: Graph, plannedBytes: number, arch: TflmArchName = DEFAULT_TFLM_ARCH, offline: Int32Array | null = null, registry?: KernelRegistry, target: ArenaRuntimeTarget = 'mcusim',
): ArenaReport {
  if (target === 'tflm') return tflmGeneratedArena(graph, plannedBytes, getTflmArch(arch), offline, registry);
  const runtime = mcusimKernelUses(graph, registry).length > 0 ? 'mcusim' : 'auto';
  return wholeArena(graph, plannedBytes, getTflmArch(arch), offline, runtime, registry).report;
}

/** RAM beside the plan (persistent + outside the arena) when `graph` runs on mcusim's C runtime with `registry`'s kernels. */
export function mcusimTailBytes(graph: Graph, arch: TflmArchName = DEFAULT_TFLM_ARCH, target: ArenaRuntimeTarget = 'mcusim', registry?: KernelRegistry): number {
  const r = target === 'tflm' ? tflmGeneratedArena(graph, 0, getTflmArch(arch), null, registry) : wholeArena(graph, 0, getTflmArch(arch), null, 'mcusim', registry).report;
  return r.persistentBytes + r.outsideArenaBytes;
}

/** RAM a board needs for `a`: the arena plus anything beside it (what the optimizers minimize). */
export function ramBytes(a: ArenaTotals): number {
  return a.totalBytes + a.outsideArenaBytes;
}

/** Fast totals for a search candidate: greedy plan of the model's requests + its persistent tail. */
export function candidateTotals(model: Model, arch: TflmArchName = DEFAULT_TFLM_ARCH, registry?: KernelRegistry, target: ArenaRuntimeTarget = 'mcusim'): ArenaTotals {
  const planned = planGreedy(computeModelBufferRequests(model, registry)).peakBytes;
  const r = graphArena(model.graph, planned, arch, readOfflinePlan(model), registry, target);
  return { plannedBytes: r.plannedBytes, persistentBytes: r.persistentBytes, totalBytes: r.totalBytes, outsideArenaBytes: r.outsideArenaBytes };
}

/** "planned a -> b B, persistent c -> d B: total e -> f B" (pass notes). */
export function describeTotals(before: ArenaTotals, after: ArenaTotals): string {
  const n = (x: number): string => x.toLocaleString('en-US');
  return `planned ${n(before.plannedBytes)} -> ${n(after.plannedBytes)} B, persistent ${n(before.persistentBytes)} -> ${n(after.persistentBytes)} B: total ${n(before.totalBytes)} -> ${n(after.totalBytes)} B`;
}
