// Planners by name, as the CLI and passes select them: the request-only planners of
// planners/planner-registry.ts plus the graph-aware dmo and replacement planners, which need the
// techniques above the planners (safe overlaps, the passes' graph planning). Every plan handed out
// goes through verifyPlan first.
import { KERNEL_LIBRARY_NAMES, REFERENCE_KERNELS, isCortexMCpu, kernelRegistry } from '../kernels/index.ts';
import type { KernelLibraryName, KernelRegistry } from '../kernels/index.ts';
import { PlanError, UsageError, VerificationError, readOfflinePlan, readPlanKernels, recordsPlanKernels } from '../ir/index.ts';
import type { Graph, Model } from '../ir/index.ts';
import { planDmoForGraph } from './dmo/index.ts';
import { planOverlapPairs } from './overlap/index.ts';
import { REQUEST_PLANNERS, computeModelBufferRequests, planGreedy, verifyPlan, verifyPlanWithOverlaps } from './planners/index.ts';
import { overlapCandidate } from './overlap/index.ts';
import type { BufferRequest, Plan, PlannerInfo, PlannerOptions } from './planners/index.ts';
import { planReplacementForGraph } from './replacement/index.ts';

export const PLANNERS: readonly PlannerInfo[] = Object.freeze([
  ...REQUEST_PLANNERS,
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
 * e.g. a DMO plan read back from OfflineMemoryAllocation metadata; `registry`: whose access order
 * those overlaps are checked against (default reference).
 */
export function planBuffers(name: string, requests: readonly BufferRequest[], graph?: Graph, options?: PlannerOptions, registry?: KernelRegistry): Plan {
  const plan = getPlanner(name).plan(requests, graph, options);
  const hazard = checkPlanHazard(requests, plan, graph, registry);
  return hazard === null ? plan : { ...plan, libraryHazard: hazard };
}

/**
 * checkPlan for a plan run with `registry`'s kernels. A plan whose overlaps are safe for the
 * reference kernels but not for another library (a file planned for the reference build, run on
 * the CMSIS-NN build) is what that build runs, clobbering as it goes: returned as the reason,
 * not thrown, so the run reproduces the device and the tracer names the clobber. Any other
 * failure throws as checkPlan does.
 */
export function checkPlanHazard(requests: readonly BufferRequest[], plan: Plan, graph?: Graph, registry?: KernelRegistry): string | null {
  try {
    checkPlan(requests, plan, graph, registry);
    return null;
  } catch (e) {
    if (graph === undefined || registry === undefined || registry.library === 'reference' || !(e instanceof PlanError) || e.code !== 'E_PLAN_OVERLAP') throw e;
    checkPlan(requests, plan, graph, REFERENCE_KERNELS);
    return `the plan is safe for the reference kernels only; with ${registry.library} (${registry.cpu ?? 'default cpu'}) kernels: ${e.message}`;
  }
}

/** The check planBuffers makes of a plan (PlanError when it fails), for a plan made unchecked. */
export function checkPlan(requests: readonly BufferRequest[], plan: Plan, graph?: Graph, registry?: KernelRegistry): void {
  try {
    verifyPlan(requests, plan);
  } catch (e) {
    if (graph === undefined || !(e instanceof PlanError) || e.code !== 'E_PLAN_OVERLAP') throw e;
    verifyPlanWithOverlaps(requests, plan, planOverlapPairs(graph, requests, plan, registry));
  }
}

/** Whether `library` on `cpu` runs the same specs (code path, hence access order) as `registry`. */
function samePath(library: string, cpu: string | null, registry: KernelRegistry): boolean {
  if (!(KERNEL_LIBRARY_NAMES as readonly string[]).includes(library) || (cpu !== null && !isCortexMCpu(cpu))) return false;
  return kernelRegistry(library as KernelLibraryName, cpu ?? undefined).specs === registry.specs;
}

const describeKernels = (library: string, cpu: string | null): string => (cpu === null ? library : `${library} (${cpu})`);

/**
 * A file that records the kernel library its plan was made for, read with another library
 * (`--kernels` naming it) whose access order the plan's overlaps break: a VerificationError
 * (E_PLAN_LIBRARY, exit 1) naming the library the plan was made for and where it breaks (op,
 * tensor, bytes). Nothing for files without the record (taken as reference, checked as before:
 * plan.libraryHazard), without an offline plan, or whose plan holds for `registry` too.
 */
export function checkPlanLibrary(model: Model, registry: KernelRegistry, label = 'the file'): void {
  if (!recordsPlanKernels(model) || readOfflinePlan(model) === null) return;
  const planned = readPlanKernels(model);
  if (planned.library === registry.library && (planned.cpu === registry.cpu || samePath(planned.library, planned.cpu, registry))) return;
  const requests = computeModelBufferRequests(model, registry);
  const plan = planGreedy(requests);
  try {
    checkPlan(requests, plan, model.graph, registry);
  } catch (e) {
    if (!(e instanceof PlanError) || e.code !== 'E_PLAN_OVERLAP') throw e;
    const where = overlapBreak(model.graph, requests, plan, registry) ?? e.message;
    throw new VerificationError('E_PLAN_LIBRARY', `${label}'s plan was made for the ${describeKernels(planned.library, planned.cpu)} kernels and breaks with ${describeKernels(registry.library, registry.cpu)}: ${where}; drop --kernels to read it with ${planned.library}, or optimize the original for ${registry.library}`);
  }
}

/** The first op whose input overlaps its output by more than `registry`'s access order allows: op, tensors, bytes. */
function overlapBreak(graph: Graph, requests: readonly BufferRequest[], plan: Plan, registry: KernelRegistry): string | null {
  const allowed = new Map(planOverlapPairs(graph, requests, plan, registry).map((p) => [p.opIndex, p]));
  for (let opIndex = 0; opIndex < graph.ops.length; opIndex++) {
    const c = overlapCandidate(graph, opIndex, requests);
    if (c === null) continue;
    const offIn = plan.offsets[c.input.id] ?? 0;
    const offOut = plan.offsets[c.output.id] ?? 0;
    const shared = Math.min(offIn + c.input.sizeBytes, offOut + c.output.sizeBytes) - Math.max(offIn, offOut);
    if (shared <= 0) continue;
    const p = allowed.get(opIndex);
    const safe = p === undefined ? 0 : p.safeOverlapBytes;
    if (p !== undefined && offIn >= offOut + c.output.sizeBytes - safe) continue;
    const op = graph.ops[opIndex];
    const kind = op === undefined ? '?' : op.kind === 'custom' ? `custom:${op.customCode}` : op.kind;
    const name = (s: string): string => (s.length <= 40 ? s : `...${s.slice(-37)}`);
    return `op ${opIndex} (${kind}): input tensor ${c.input.tensor ?? '?'} '${name(c.input.name)}' and output tensor ${c.output.tensor ?? '?'} '${name(c.output.name)}' share ${shared.toLocaleString('en-US')} B, where ${registry.library}'s access order allows ${safe.toLocaleString('en-US')} B (O_s, at the output's end)`;
  }
  return null;
}
