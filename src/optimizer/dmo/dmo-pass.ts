// The `dmo` optimizer pass and planner-registry entry (DMO paper §II-D, §IV): graph -> overlap
// pairs (overlap-pairs.ts, exact algorithmic O_s by default) -> planDmo -> the plan carried as
// OfflineMemoryAllocation metadata (withOfflinePlan), so TFLM and `mcusim run/verify` use it.
// Kept only when it lowers the whole arena on --arch (guardTotal; the planned part under
// objective=planned): an offline plan also moves variable tensors from TFLM's tail into the head.
import type { Graph, Model } from '../../ir/index.ts';
import { UsageError, withOfflinePlan } from '../../ir/index.ts';
import { computeModelBufferRequests, planDmoDetailed, planGreedy } from '../planners/index.ts';
import type { DmoResult, BufferRequest, Plan } from '../planners/index.ts';
import { graphOverlapPairs } from '../overlap/index.ts';
import type { GraphOverlapPair, OverlapPairMethod } from '../overlap/index.ts';
import type { OptimizerPass, PassOptions, PassResult } from '../pass.ts';
import type { KernelRegistry } from '../../kernels/index.ts';
import { guardTotal, objectiveOf } from '../total-guard.ts';

export interface DmoGraphResult extends DmoResult {
  readonly pairs: readonly GraphOverlapPair[];
}

function methodFlag(options: PassOptions): OverlapPairMethod {
  const m = options.flags['overlap-method'] ?? options.flags.method ?? 'algorithmic';
  if (m !== 'algorithmic' && m !== 'analytic') throw new UsageError(`overlap method must be algorithmic or analytic, got '${String(m)}'`);
  return m;
}

/** DMO plan of `requests` for `graph` (all variants, lowest peak), with the pairs it used. */
export function planDmoGraph(requests: readonly BufferRequest[], graph: Graph, method: OverlapPairMethod = 'algorithmic', registry?: KernelRegistry): DmoGraphResult {
  const pairs = graphOverlapPairs(graph, requests, { method, ...(registry === undefined ? {} : { registry }) });
  return { ...planDmoDetailed(requests, pairs), pairs };
}

/** Registry form: `plan(requests, graph)`. */
export function planDmoForGraph(requests: readonly BufferRequest[], graph?: Graph): Plan {
  if (graph === undefined) throw new UsageError("planner 'dmo' needs the model graph (safe overlaps are per op)");
  return planDmoGraph(requests, graph).plan;
}

/** Per-tensor offsets (-1 = online) from a plan of `requests` over `graph`'s tensors. */
export function tensorPlanOffsets(graph: Graph, requests: readonly BufferRequest[], plan: Plan): number[] {
  const offsets = graph.tensors.map(() => -1);
  requests.forEach((r, i) => {
    if (r.tensor !== null) offsets[r.tensor] = plan.offsets[i] ?? -1;
  });
  return offsets;
}

/** Peak of the model's current layout: tflm-greedy honouring any offline offsets it carries. */
export function currentPeakBytes(model: Model, registry?: KernelRegistry): number {
  return planGreedy(computeModelBufferRequests(model, registry)).peakBytes;
}

export const dmoPass: OptimizerPass = {
  name: 'dmo',
  description: 'diagonal memory optimisation: overlap each dying input with its output by O_s (offline plan)',
  run(model: Model, options: PassOptions): PassResult {
    const method = methodFlag(options);
    const requests = computeModelBufferRequests(model, options.registry);
    const before = planGreedy(requests).peakBytes;
    const online = requests.map((r) => ({ ...r, offlineOffsetBytes: null }));
    const result = planDmoGraph(online, model.graph, method, options.registry);
    const planned = withOfflinePlan(model, tensorPlanOffsets(model.graph, online, result.plan));
    // Scratch buffers are not in OfflineMemoryAllocation: TFLM (and mcusim) place them online.
    const after = currentPeakBytes(planned, options.registry);
    const notes = [
      `${result.pairs.length} overlap pairs (O_s by ${method}${result.pairs.some((p) => p.method !== method) ? ', analytic fallback for some ops' : ''})`,
      `best allocation order ${result.variant}; peak by order: ${Object.entries(result.peakBytesByVariant).map(([v, b]) => `${v} ${b} B`).join(', ')}`,
    ];
    // flags.force: attach the plan even without a gain (e.g. to verify the planner's layout).
    const force = options.flags.force === true;
    // The planned part decides only under objective=planned; otherwise guardTotal compares totals.
    if (after >= before && !force && objectiveOf(options) === 'planned') {
      notes.push('no gain over the current layout; model unchanged');
      return guardTotal(model, { model, report: { pass: 'dmo', peakBytesBefore: before, peakBytesAfter: before, applied: false, notes, details: { variant: result.variant } } }, options);
    }
    if (after !== result.plan.peakBytes) notes.push(`DMO plan ${result.plan.peakBytes} B; ${after} B with scratch placed online`);
    const details = {
      variant: result.variant,
      peakBytesByVariant: result.peakBytesByVariant,
      pairs: result.pairs.map((p) => ({ op: p.opIndex, inputId: p.inputId, outputId: p.outputId, safeOverlapBytes: p.opSafeOverlapBytes, method: p.method })),
    };
    return guardTotal(model, { model: planned, report: { pass: 'dmo', peakBytesBefore: before, peakBytesAfter: after, applied: true, notes, details } }, options, { force });
  },
};
