// The request-only planners by name (they need no graph): TFLM's greedy and linear planners and
// the exact planner. Graph-aware planners (dmo, replacement) sit above the planners in the import
// order, so the full table by name (PLANNERS, getPlanner, planBuffers) is ../plan-by-name.ts.
import type { Graph } from '../../ir/index.ts';
import { planExact } from './exact-planner.ts';
import { planGreedy } from './greedy-planner.ts';
import { planLinear } from './linear-planner.ts';
import type { BufferRequest, Plan } from './plan-types.ts';

/** Per-call planner settings; planners ignore what does not apply to them. */
export interface PlannerOptions {
  /** Wall-clock budget of searching planners (exact; none by default: they stop on a node limit). */
  readonly timeBudgetMs?: number;
}

export interface PlannerInfo {
  readonly name: string;
  readonly description: string;
  /** `graph` is needed by graph-aware planners (dmo, replacement); the others ignore it. */
  readonly plan: (requests: readonly BufferRequest[], graph?: Graph, options?: PlannerOptions) => Plan;
}

export const DEFAULT_PLANNER = 'tflm-greedy';

/** The planners that plan from buffer requests alone, in the order `plannerNames()` lists them. */
export const REQUEST_PLANNERS: readonly PlannerInfo[] = Object.freeze([
  { name: 'tflm-greedy', description: "TFLM's GreedyMemoryPlanner, reproduced exactly", plan: planGreedy },
  { name: 'linear', description: 'no reuse: buffers back to back (TFLM LinearMemoryPlanner)', plan: planLinear },
  { name: 'exact', description: 'minimal peak for the fixed schedule by branch and bound (FDT §4.2), best found after 2M search nodes', plan: (requests: readonly BufferRequest[], _graph?: Graph, o?: PlannerOptions) => planExact(requests, o?.timeBudgetMs !== undefined ? { timeBudgetMs: o.timeBudgetMs } : {}) },
]);
