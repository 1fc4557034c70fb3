// The stderr warning `latency` prints when the model it estimates does not fit the board (issue 12
// item 5): the whole arena on the board's Cortex-M build (TFLM greedy plan + persistent tail, or
// mcusim's runtime for custom ops) against the arena's RAM region, and the weights against flash.
import type { Model } from '../ir/index.ts';
import { readOfflinePlan } from '../ir/index.ts';
import { computeModelBufferRequests, planBuffers } from '../optimizer/index.ts';
import { CORTEX_M, boardFit, wholeArena } from '../sim/index.ts';
import type { TargetProfile } from '../sim/index.ts';

/** A one-line warning when `model` does not fit `target`, else null. */
export function boardFitWarning(model: Model, target: TargetProfile): string | null {
  const plan = planBuffers('tflm-greedy', computeModelBufferRequests(model), model.graph, {});
  const arena = wholeArena(model.graph, plan.peakBytes, CORTEX_M, readOfflinePlan(model)).report;
  const fit = boardFit(model.graph, arena, target);
  const problems = [
    ...(fit.fits ? [] : [`arena ${fit.neededBytes} B > ${fit.region} ${fit.ramBytes} B (${-fit.marginBytes} B missing)`]),
    ...(fit.flashFits ? [] : [`weights ${fit.weightsBytes} B > flash ${fit.flashBytes} B (${-fit.flashMarginBytes} B missing)`]),
  ];
  return problems.length === 0 ? null : `warning: the model does not fit ${target.name}: ${problems.join('; ')}`;
}
