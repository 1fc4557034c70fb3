// Per-step views of a plan for pictures and reports: the bytes live at each step (TFLM allocation
// scope counts, inclusive lifetimes) and the step where the plan reaches its peak, i.e. where the
// buffers in use reach the highest arena address (ties: the most live bytes).
import type { BufferRequest, Plan } from './plan-types.ts';

export interface PlanSteps {
  readonly firstStep: number;
  readonly lastStep: number;
  /** Live bytes at step firstStep + k. */
  readonly liveBytes: readonly number[];
  /** max(offset + size) over the buffers live at step firstStep + k. */
  readonly extentBytes: readonly number[];
  /** The step where the plan's extent peaks. */
  readonly peakStep: number;
}

export function planSteps(requests: readonly BufferRequest[], plan: Plan): PlanSteps {
  const firstStep = requests.reduce((m, r) => Math.min(m, r.firstStep), 0);
  const lastStep = requests.reduce((m, r) => Math.max(m, r.lastStep), 0);
  const n = lastStep - firstStep + 1;
  const live = new Array<number>(n).fill(0);
  const extent = new Array<number>(n).fill(0);
  requests.forEach((r, i) => {
    const end = (plan.offsets[i] ?? 0) + r.sizeBytes;
    for (let s = r.firstStep; s <= r.lastStep; s++) {
      const k = s - firstStep;
      live[k] = (live[k] ?? 0) + r.sizeBytes;
      extent[k] = Math.max(extent[k] ?? 0, end);
    }
  });
  let best = 0;
  for (let k = 1; k < n; k++) {
    const e = extent[k] ?? 0;
    const b = extent[best] ?? 0;
    if (e > b || (e === b && (live[k] ?? 0) > (live[best] ?? 0))) best = k;
  }
  return { firstStep, lastStep, liveBytes: live, extentBytes: extent, peakStep: firstStep + best };
}

/**
 * Which planner placed the buffers, as a picture's title should say it: a model that carries an
 * OfflineMemoryAllocation plan is laid out by that plan (the named planner only fills the rest).
 */
export function describePlanSource(requests: readonly BufferRequest[], plannerName: string): string {
  const fixed = requests.filter((r) => r.offlineOffsetBytes !== null).length;
  if (fixed === 0) return `planner ${plannerName}`;
  if (fixed === requests.length) return 'offline plan carried in the model (OfflineMemoryAllocation)';
  return `offline plan carried in the model for ${fixed} of ${requests.length} buffers, the rest by ${plannerName}`;
}
