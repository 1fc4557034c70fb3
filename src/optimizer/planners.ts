// Planners by name, as the CLI and passes select them. Every plan handed out goes through
// verifyPlan first. dmo, replacement and exact join this table when they exist.
import { PlanError, UsageError } from '../ir/index.ts';
import type { Graph } from '../ir/index.ts';
import { planDmoForGraph } from './dmo-pass.ts';
import { verifyPlanWithOverlaps } from './dmo-planner.ts';
import { graphOverlapPairs } from './overlap-pairs.ts';
import { planReplacementForGraph } from './replacement-pass.ts';
import { planGreedy } from './greedy-planner.ts';
import { planExact } from './exact-planner.ts';
import { planLinear } from './linear-planner.ts';
import type { BufferRequest, Plan } from './plan-types.ts';
import { verifyPlan } from './verify-plan.ts';

/** Per-call planner settings; planners ignore what does not apply to them. */
export interface PlannerOptions {
  /** Search budget of searching planners (exact); default DEFAULT_EXACT_TIME_BUDGET_MS. */
  readonly timeBudgetMs?: number;
}

export interface PlannerInfo {
  readonly name: string;
  readonly description: string;
  /** `graph` is needed by graph-aware planners (dmo, replacement); the others ignore it. */
  readonly plan: (requests: readonly BufferRequest[], graph?: Graph, options?: PlannerOptions) => Plan;
}

export const DEFAULT_PLANNER = 'tflm-greedy';

export const PLANNERS: readonly PlannerInfo[] = Object.freeze([
  { name: 'tflm-greedy', description: "TFLM's GreedyMemoryPlanner, reproduced exactly", plan: planGreedy },
  { name: 'linear', description: 'no reuse: buffers back to back (TFLM LinearMemoryPlanner)', plan: planLinear },
  { name: 'exact', description: 'minimal peak for the fixed schedule by branch and bound (FDT §4.2), tflm-greedy fallback after 2 s', plan: (requests: readonly BufferRequest[], _graph?: Graph, o?: PlannerOptions) => planExact(requests, o?.timeBudgetMs !== undefined ? { timeBudgetMs: o.timeBudgetMs } : {}) },
  { name: 'dmo', description: 'diagonal memory optimisation: dying inputs overlap outputs by O_s', plan: (r: readonly BufferRequest[], g?: Graph) => planDmoForGraph(r, g) },
  { name: 'replacement', description: 'replacement strategy: one total buffer, pooling in place', plan: (r: readonly BufferRequest[], g?: Graph) => planReplacementForGraph(r, g) },
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

/**
 * Plan `requests` with the named planner and verify the result before returning it. With the
 * graph, buffers may share bytes where the graph's safe overlaps allow it (DMO orientation rule),
 * e.g. a DMO plan read back from OfflineMemoryAllocation metadata.
 */
export function planBuffers(name: string, requests: readonly BufferRequest[], graph?: Graph, options?: PlannerOptions): Plan {
  const plan = getPlanner(name).plan(requests, graph, options);
  try {
    verifyPlan(requests, plan);
  } catch (e) {
    if (graph === undefined || !(e instanceof PlanError) || e.code !== 'E_PLAN_OVERLAP') throw e;
    verifyPlanWithOverlaps(requests, plan, graphOverlapPairs(graph, requests));
  }
  return plan;
}
