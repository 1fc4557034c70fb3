// The `replacement` optimizer pass and planner-registry entry (Sakr et al., memory-efficient
// CMSIS-NN §IV): one total buffer, each pooling output written in place of its dying input (by
// the pooling op's exact safe overlap), every other output beside its live input; the plan is
// carried as OfflineMemoryAllocation metadata. Reports the paper's Table III accounting too. Kept
// only when it lowers the whole arena on --arch (guardTotal; the planned part under objective=planned).
import type { KernelRegistry } from '../../kernels/index.ts';
import type { Graph, Model } from '../../ir/index.ts';
import { UsageError, withOfflinePlan } from '../../ir/index.ts';
import { computeModelBufferRequests, planGreedy } from '../planners/index.ts';
import { currentPeakBytes, tensorPlanOffsets } from '../dmo/index.ts';
import { graphOverlapPairs } from '../overlap/index.ts';
import type { OptimizerPass, PassOptions, PassResult } from '../pass.ts';
import { guardTotal, objectiveOf } from '../total-guard.ts';
import type { BufferRequest, Plan } from '../planners/index.ts';
import { POOLING_KINDS, planReplacement, replacementFootprint } from './replacement-planner.ts';
import type { ReplacementFootprint, ReplacementOp } from './replacement-planner.ts';

/** The graph's ops with their planned data buffers as request ids (constants dropped). */
export function replacementOps(graph: Graph, requests: readonly BufferRequest[]): ReplacementOp[] {
  const byTensor = new Map<number, number>();
  for (const r of requests) if (r.tensor !== null) byTensor.set(r.tensor, r.id);
  const ids = (ts: readonly number[]): number[] => ts.flatMap((t) => (byTensor.has(t) ? [byTensor.get(t) as number] : []));
  return graph.ops.map((op) => ({ kind: op.kind, inputIds: ids(op.inputs), outputIds: ids(op.outputs) }));
}

export interface ReplacementGraphResult {
  readonly plan: Plan;
  readonly footprint: ReplacementFootprint;
}

/** Replacement plan of `requests` for `graph`: pooling in place by its exact O_s. */
export function planReplacementGraph(requests: readonly BufferRequest[], graph: Graph, registry?: KernelRegistry): ReplacementGraphResult {
  const ops = replacementOps(graph, requests);
  const pooling = new Set(graph.ops.flatMap((op, i) => (POOLING_KINDS.includes(op.kind) ? [i] : [])));
  const overlaps = graphOverlapPairs(graph, requests, registry === undefined ? {} : { registry }).filter((p) => pooling.has(p.opIndex));
  return { plan: planReplacement(requests, ops, { overlaps }), footprint: replacementFootprint(requests, ops) };
}

/** Registry form: `plan(requests, graph)`. */
export function planReplacementForGraph(requests: readonly BufferRequest[], graph?: Graph): Plan {
  if (graph === undefined) throw new UsageError("planner 'replacement' needs the model graph");
  return planReplacementGraph(requests, graph).plan;
}

export const replacementPass: OptimizerPass = {
  name: 'replacement',
  description: 'replacement strategy (Sakr et al.): one total buffer, pooling in place, conv output beside its input',
  run(model: Model, options: PassOptions): PassResult {
    const requests = computeModelBufferRequests(model, options.registry);
    const before = planGreedy(requests).peakBytes;
    const online = requests.map((r) => ({ ...r, offlineOffsetBytes: null }));
    const { plan, footprint } = planReplacementGraph(online, model.graph, options.registry);
    const planned = withOfflinePlan(model, tensorPlanOffsets(model.graph, online, plan));
    const after = currentPeakBytes(planned, options.registry);
    const notes = [
      `activations as the paper counts them: CMSIS-NN ${footprint.cmsisBaselineBytes} B -> total buffer ${footprint.totalBufferBytes} B`,
      `full arena incl. graph inputs: ${after} B`,
    ];
    const details = { footprint, planPeakBytes: plan.peakBytes };
    // flags.force: attach the plan even without a gain (e.g. to verify the planner's layout).
    const force = options.flags.force === true;
    // The planned part decides only under objective=planned; otherwise guardTotal compares totals.
    if (after >= before && !force && objectiveOf(options) === 'planned') {
      notes.push('no gain over the current layout; model unchanged');
      return guardTotal(model, { model, report: { pass: 'replacement', peakBytesBefore: before, peakBytesAfter: before, applied: false, notes, details } }, options);
    }
    return guardTotal(model, { model: planned, report: { pass: 'replacement', peakBytesBefore: before, peakBytesAfter: after, applied: true, notes, details } }, options, { force });
  },
};
