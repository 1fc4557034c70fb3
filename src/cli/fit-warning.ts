// The stderr warning `latency` prints when the model it estimates does not fit the board (issue 12
// item 5): TFLM's whole arena on the board's Cortex-M build (greedy plan + persistent tail, with
// mcusim's generated kernels for custom ops) against the arena's RAM region, and the weights against flash.
import type { Model } from '../ir/index.ts';
import { readOfflinePlan } from '../ir/index.ts';
import { computeModelBufferRequests, planBuffers } from '../optimizer/index.ts';
import { CORTEX_M, boardFit, runtimeArena } from '../sim/index.ts';
import type { TargetProfile } from '../sim/index.ts';

/** A one-line warning when `model` does not fit `target`, else null. */
export function boardFitWarning(model: Model, target: TargetProfile): string | null {
  const requests = computeModelBufferRequests(model);
  const plan = planBuffers('tflm-greedy', requests, model.graph, {});
  const arena = runtimeArena(model.graph, { plannedBytes: plan.peakBytes, bufferCount: requests.length }, CORTEX_M, 'tflm', { offlineOffsets: readOfflinePlan(model) });
  const fit = boardFit(model.graph, arena, target);
  const problems = [
    ...(fit.fits ? [] : [`arena ${fit.neededBytes} B > ${fit.region} ${fit.ramBytes} B (${-fit.marginBytes} B missing)`]),
    ...(fit.flashFits ? [] : [`weights ${fit.weightsBytes} B > flash ${fit.flashBytes} B (${-fit.flashMarginBytes} B missing)`]),
  ];
  return problems.length === 0 ? null : `warning: the model does not fit ${target.name}: ${problems.join('; ')}`;
}
