// Planners by name, as the CLI and passes select them. Every plan handed out goes through
// verifyPlan first. dmo, replacement and exact join this table when they exist.
import { UsageError } from '../ir/index.ts';
import { planGreedy } from './greedy-planner.ts';
import { planLinear } from './linear-planner.ts';
import type { BufferRequest, Plan } from './plan-types.ts';
import { verifyPlan } from './verify-plan.ts';

export interface PlannerInfo {
  readonly name: string;
  readonly description: string;
  readonly plan: (requests: readonly BufferRequest[]) => Plan;
}

export const DEFAULT_PLANNER = 'tflm-greedy';

export const PLANNERS: readonly PlannerInfo[] = Object.freeze([
  { name: 'tflm-greedy', description: "TFLM's GreedyMemoryPlanner, reproduced exactly", plan: planGreedy },
  { name: 'linear', description: 'no reuse: buffers back to back (TFLM LinearMemoryPlanner)', plan: planLinear },
]);

export function plannerNames(): string[] {
  return PLANNERS.map((p) => p.name);
}

/** The planner called `name`; UsageError listing the available ones otherwise. */
export function getPlanner(name: string): PlannerInfo {
  const p = PLANNERS.find((x) => x.name === name);
  if (p === undefined) throw new UsageError(`unknown planner '${name}'; available: ${plannerNames().join(', ')}`);
  return p;
}

/** Plan `requests` with the named planner and verify the result before returning it. */
export function planBuffers(name: string, requests: readonly BufferRequest[]): Plan {
  const plan = getPlanner(name).plan(requests);
  verifyPlan(requests, plan);
  return plan;
}
