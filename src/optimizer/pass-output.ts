// The check every pass's model goes through before the next pass or the writer sees it (Vela's
// "graph check between passes"): model validation, every kernel constraint, and its memory plan.
// A pass that builds a model mcusim itself would refuse is a bug in the pass, not bad input:
// InvalidPassOutputError is an InternalError (exit 70) naming the pass and every issue.
import { InternalError, McusimError, ModelError, describeIssue, validateModel } from '../ir/index.ts';
import type { Issue, Model } from '../ir/index.ts';
import { checkGraphConstraints } from '../kernels/index.ts';
import type { KernelRegistry } from '../kernels/index.ts';
import { DEFAULT_PLANNER, computeModelBufferRequests } from './planners/index.ts';
import { checkPlan, getPlanner } from './plan-by-name.ts';

export class InvalidPassOutputError extends InternalError {
  readonly pass: string;
  readonly issues: readonly Issue[];
  constructor(pass: string, cause: McusimError) {
    const issues = cause instanceof ModelError ? cause.issues : [{ code: cause.code, message: cause.message }];
    const lines = issues.map((i) => `  [${i.code}] ${describeIssue(i)}`);
    super(`pass '${pass}' built an invalid model (a bug in the pass):\n${lines.join('\n')}`);
    this.pass = pass;
    this.issues = issues;
  }
}

/**
 * Throws InvalidPassOutputError when `model`, the output of pass `pass`, is not one mcusim accepts
 * with `registry`'s kernels (the library the passes planned for: its safe overlaps).
 */
export function checkPassOutput(pass: string, model: Model, registry?: KernelRegistry): void {
  try {
    validateModel(model);
    checkGraphConstraints(model.graph, registry);
    // checkPlan, not planBuffers: a plan the chosen library's order breaks is a bug here, not a hazard to run.
    const requests = computeModelBufferRequests(model, registry);
    checkPlan(requests, getPlanner(DEFAULT_PLANNER).plan(requests, model.graph), model.graph, registry);
  } catch (e) {
    if (e instanceof McusimError && !(e instanceof InternalError)) throw new InvalidPassOutputError(pass, e);
    throw e;
  }
}
