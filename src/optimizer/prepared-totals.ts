// The whole arena of a model as the simulator plans and runs it (optimize / verify reports, the
// pipeline's target verdict): preparePlannedModel's plan plus the persistent tail of the runtime it
// needs on `arch` (arena-totals.ts). Apart from arena-totals.ts so that the passes, which score
// candidates with candidateTotals, do not depend on the planned runner (and its planner table).
import type { Model } from '../ir/index.ts';
import { readOfflinePlan } from '../ir/index.ts';
import { DEFAULT_TFLM_ARCH } from '../sim/index.ts';
import type { TflmArchName } from '../sim/index.ts';
import { graphArena } from './arena-totals.ts';
import type { ArenaTotals } from './arena-totals.ts';
import { preparePlannedModel } from './run-planned.ts';

/** The model's whole arena on `arch` as the simulator plans and runs it (optimize / verify reports). */
export function arenaTotals(model: Model, arch: TflmArchName = DEFAULT_TFLM_ARCH): ArenaTotals {
  return preparedArenaTotals(model, preparePlannedModel(model), arch);
}

/** arenaTotals of a model already prepared by preparePlannedModel (no second plan or runtime). */
export function preparedArenaTotals(model: Model, pm: { readonly plan: { readonly peakBytes: number }; readonly runtime: { readonly outsideArenaBytes: number } }, arch: TflmArchName = DEFAULT_TFLM_ARCH): ArenaTotals {
  const r = graphArena(model.graph, pm.plan.peakBytes, arch, readOfflinePlan(model));
  const outsideArenaBytes = Math.max(r.outsideArenaBytes, pm.runtime.outsideArenaBytes);
  return { plannedBytes: r.plannedBytes, persistentBytes: r.persistentBytes, totalBytes: r.totalBytes, outsideArenaBytes };
}
