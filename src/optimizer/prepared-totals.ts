// The whole arena of a model as the simulator plans and runs it (optimize / verify reports, the
// pipeline's target verdict): preparePlannedModel's plan plus the persistent tail of the runtime it
// needs on `arch` (arena-totals.ts). Apart from arena-totals.ts so that the passes, which score
// candidates with candidateTotals, do not depend on the planned runner (and its planner table).
import type { Model } from '../ir/index.ts';
import { readOfflinePlan } from '../ir/index.ts';
import { DEFAULT_ARENA_RUNTIME, DEFAULT_TFLM_ARCH } from '../sim/index.ts';
import type { PlanSize, TflmArchName } from '../sim/index.ts';
import type { KernelRegistry } from '../kernels/index.ts';
import { graphArena, totalsOfReport } from './arena-totals.ts';
import type { ArenaRuntimeTarget, ArenaTotals } from './arena-totals.ts';
import { planModel } from './run-planned.ts';

/**
 * The model's whole arena on `arch` as the simulator plans and runs it (optimize / verify reports).
 * From its plan alone: the runtime keeps nothing outside the arena (Runtime.outsideArenaBytes is 0:
 * spilled tensors live on the storage device, the storage ops' buffers are planned scratch), and
 * building one compiled every kernel of the model (the three of one `optimize` of
 * mobilenet-v2-0.35-224 took 0.15 s of its 2.3 s). test/optimizer/arena-totals.test.ts checks the
 * two agree.
 */
export function arenaTotals(model: Model, arch: TflmArchName = DEFAULT_TFLM_ARCH, registry?: KernelRegistry, runtime: ArenaRuntimeTarget = DEFAULT_ARENA_RUNTIME): ArenaTotals {
  const planned = planModel(model, registry === undefined ? {} : { registry });
  return totalsOfPlan(model, { plannedBytes: planned.plan.peakBytes, bufferCount: planned.requests.length }, 0, arch, registry, runtime);
}

/** arenaTotals of a model already prepared by preparePlannedModel (no second plan), with its runtime's RAM outside the arena. */
export function preparedArenaTotals(
  model: Model, pm: { readonly plan: { readonly peakBytes: number }; readonly requests: readonly unknown[]; readonly runtime: { readonly outsideArenaBytes: number } },
  arch: TflmArchName = DEFAULT_TFLM_ARCH, registry?: KernelRegistry, runtime: ArenaRuntimeTarget = DEFAULT_ARENA_RUNTIME,
): ArenaTotals {
  return totalsOfPlan(model, { plannedBytes: pm.plan.peakBytes, bufferCount: pm.requests.length }, pm.runtime.outsideArenaBytes, arch, registry, runtime);
}

function totalsOfPlan(
  model: Model, plan: PlanSize, runtimeOutsideBytes: number, arch: TflmArchName, registry: KernelRegistry | undefined, runtime: ArenaRuntimeTarget,
): ArenaTotals {
  const r = totalsOfReport(graphArena(model.graph, plan, arch, readOfflinePlan(model), registry, runtime));
  return { ...r, outsideArenaBytes: Math.max(r.outsideArenaBytes, runtimeOutsideBytes) };
}
