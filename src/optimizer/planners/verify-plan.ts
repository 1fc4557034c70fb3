// The one plan check every planner's output goes through: no two buffers live at a common
// step share a byte, except by an overlap a request explicitly allows (DMO safe overlap);
// plus the live-bytes lower bound that no plan can beat.
import { PlanError } from '../../ir/index.ts';
import { planExtentBytes } from './plan-types.ts';
import type { BufferRequest, Plan } from './plan-types.ts';

/** Bytes `a` and `b` may share by the requests' allowedOverlap entries (either direction). */
export function allowedOverlapBytes(a: BufferRequest, b: BufferRequest): number {
  let bytes = 0;
  for (const o of a.allowedOverlap ?? []) if (o.withId === b.id) bytes = Math.max(bytes, o.bytes);
  for (const o of b.allowedOverlap ?? []) if (o.withId === a.id) bytes = Math.max(bytes, o.bytes);
  return bytes;
}

function describe(r: BufferRequest): string {
  return `buffer ${r.id} '${r.name}'`;
}

function checkShape(requests: readonly BufferRequest[], plan: Plan): void {
  if (plan.offsets.length !== requests.length) {
    throw new PlanError('E_PLAN_INVALID', `plan '${plan.planner}' has ${plan.offsets.length} offsets for ${requests.length} buffers`);
  }
  requests.forEach((r, i) => {
    const off = plan.offsets[i] ?? -1;
    if (!Number.isSafeInteger(off) || off < 0) {
      throw new PlanError('E_PLAN_INVALID', `plan '${plan.planner}': ${describe(r)} has offset ${off}`);
    }
    if (r.firstStep > r.lastStep) {
      throw new PlanError('E_PLAN_INVALID', `${describe(r)} has lifetime [${r.firstStep}, ${r.lastStep}]`);
    }
  });
  const extent = planExtentBytes(requests, plan.offsets);
  if (plan.peakBytes < extent) {
    throw new PlanError('E_PLAN_INVALID', `plan '${plan.planner}' claims ${plan.peakBytes} B but its buffers reach ${extent} B`);
  }
}

/** Throws PlanError E_PLAN_OVERLAP (naming both buffers, a common step and the byte range) or E_PLAN_INVALID. */
export function verifyPlan(requests: readonly BufferRequest[], plan: Plan): void {
  checkShape(requests, plan);
  // Sweep by first step: only buffers whose lifetimes intersect are compared.
  const order = requests.map((_, i) => i).sort((x, y) => (requests[x]?.firstStep ?? 0) - (requests[y]?.firstStep ?? 0));
  const live: number[] = [];
  for (const i of order) {
    const a = requests[i];
    if (!a) continue;
    for (let k = live.length - 1; k >= 0; k--) {
      if ((requests[live[k] ?? 0]?.lastStep ?? 0) < a.firstStep) live.splice(k, 1);
    }
    const aStart = plan.offsets[i] ?? 0;
    for (const j of live) {
      const b = requests[j];
      if (!b) continue;
      const bStart = plan.offsets[j] ?? 0;
      const lo = Math.max(aStart, bStart);
      const hi = Math.min(aStart + a.sizeBytes, bStart + b.sizeBytes);
      if (hi - lo > allowedOverlapBytes(a, b)) {
        const [p, q] = j < i ? [b, a] : [a, b];
        throw new PlanError(
          'E_PLAN_OVERLAP',
          `plan '${plan.planner}': ${describe(p)} and ${describe(q)} both live at step ${a.firstStep} share bytes [${lo}, ${hi})`,
        );
      }
    }
    live.push(i);
  }
}

/** max over steps of the bytes live at that step: no plan of these requests can use less. */
export function lowerBoundBytes(requests: readonly BufferRequest[]): number {
  const events: [step: number, delta: number][] = [];
  for (const r of requests) {
    events.push([r.firstStep, r.sizeBytes], [r.lastStep + 1, -r.sizeBytes]);
  }
  // At equal steps, releases (step last+1) and arrivals at the same step: apply all, then read.
  events.sort((x, y) => x[0] - y[0]);
  let live = 0;
  let best = 0;
  for (let k = 0; k < events.length; k++) {
    const e = events[k];
    if (!e) continue;
    live += e[1];
    if ((events[k + 1]?.[0] ?? Infinity) !== e[0]) best = Math.max(best, live);
  }
  return best;
}
