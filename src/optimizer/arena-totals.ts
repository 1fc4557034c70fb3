// The whole arena a model needs, as the optimizer scores and reports it (issue 12): the planned head
// (tflm-greedy honouring the model's offline plan, storage I/O buffers included) plus the persistent
// tail of the runtime the model needs on `arch` (stock TFLM when every op and kernel variant is
// TFLM's, mcusim's C runtime otherwise: wholeArena decides), plus any RAM outside the arena.
import type { Graph, Model } from '../ir/index.ts';
import { readOfflinePlan } from '../ir/index.ts';
import { DEFAULT_TFLM_ARCH, getTflmArch, mcusimKernelUses, wholeArena } from '../sim/index.ts';
import type { ArenaReport, TflmArchName } from '../sim/index.ts';
import { computeModelBufferRequests, planGreedy } from './planners/index.ts';
import { preparePlannedModel } from './run-planned.ts';

/** The four figures every memory report carries (DESIGN.md §9). */
export interface ArenaTotals {
  readonly plannedBytes: number;
  readonly persistentBytes: number;
  readonly totalBytes: number;
  readonly outsideArenaBytes: number;
}

/** The whole-arena report of `graph` planned at `plannedBytes` on `arch`, for the runtime it needs. */
export function graphArena(graph: Graph, plannedBytes: number, arch: TflmArchName = DEFAULT_TFLM_ARCH, offline: Int32Array | null = null): ArenaReport {
  const runtime = mcusimKernelUses(graph).length > 0 ? 'mcusim' : 'auto';
  return wholeArena(graph, plannedBytes, getTflmArch(arch), offline, runtime).report;
}

/** RAM a board needs for `a`: the arena plus anything beside it (what the optimizers minimize). */
export function ramBytes(a: ArenaTotals): number {
  return a.totalBytes + a.outsideArenaBytes;
}

/** Fast totals for a search candidate: greedy plan of the model's requests + its persistent tail. */
export function candidateTotals(model: Model, arch: TflmArchName = DEFAULT_TFLM_ARCH): ArenaTotals {
  const planned = planGreedy(computeModelBufferRequests(model)).peakBytes;
  const r = graphArena(model.graph, planned, arch, readOfflinePlan(model));
  return { plannedBytes: r.plannedBytes, persistentBytes: r.persistentBytes, totalBytes: r.totalBytes, outsideArenaBytes: r.outsideArenaBytes };
}

/** The model's whole arena on `arch` as the simulator plans and runs it (optimize / verify reports). */
export function arenaTotals(model: Model, arch: TflmArchName = DEFAULT_TFLM_ARCH): ArenaTotals {
  return preparedArenaTotals(model, preparePlannedModel(model), arch);
}

/** "planned a -> b B, persistent c -> d B: total e -> f B" (pass notes). */
export function describeTotals(before: ArenaTotals, after: ArenaTotals): string {
  const n = (x: number): string => x.toLocaleString('en-US');
  return `planned ${n(before.plannedBytes)} -> ${n(after.plannedBytes)} B, persistent ${n(before.persistentBytes)} -> ${n(after.persistentBytes)} B: total ${n(before.totalBytes)} -> ${n(after.totalBytes)} B`;
}

/** arenaTotals of a model already prepared by preparePlannedModel (no second plan or runtime). */
export function preparedArenaTotals(model: Model, pm: { readonly plan: { readonly peakBytes: number }; readonly runtime: { readonly outsideArenaBytes: number } }, arch: TflmArchName = DEFAULT_TFLM_ARCH): ArenaTotals {
  const r = graphArena(model.graph, pm.plan.peakBytes, arch, readOfflinePlan(model));
  const outsideArenaBytes = Math.max(r.outsideArenaBytes, pm.runtime.outsideArenaBytes);
  return { plannedBytes: r.plannedBytes, persistentBytes: r.persistentBytes, totalBytes: r.totalBytes, outsideArenaBytes };
}
