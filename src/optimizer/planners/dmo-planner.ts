// Diagonal memory optimisation planner (DMO paper §II-D and §IV): heap allocation where an op's
// dying input may start O_s bytes below its output's end. Variants: the paper's modified heap
// order (next = the unallocated buffer, live with an allocated one, that fits lowest), started
// from a graph input (forwards) or a graph output (backwards); TFLM greedy's order with the
// overlaps allowed; and plain tflm-greedy as a floor. The lowest peak wins.
import { PlanError } from '../../ir/index.ts';
import { greedyPlacementOrder, planGreedy } from './greedy-planner.ts';
import { planExtentBytes } from './plan-types.ts';
import type { BufferRequest, Plan } from './plan-types.ts';
import { verifyPlan } from './verify-plan.ts';

/** Input `inputId` may start at or above offset(outputId) + size(outputId) - safeOverlapBytes. */
export interface SafeOverlapPair {
  readonly inputId: number;
  readonly outputId: number;
  /** O_s in request bytes (add the output's alignment padding to the op's O_s). */
  readonly safeOverlapBytes: number;
}

export type DmoVariant = 'forward' | 'backward' | 'largest' | 'greedy-order' | 'tflm-greedy';

export interface DmoOptions {
  readonly variants?: readonly DmoVariant[];
  /** Offsets are multiples of this (TFLM arena alignment). */
  readonly alignmentBytes?: number;
}

export interface DmoResult {
  readonly plan: Plan;
  readonly variant: DmoVariant;
  readonly peakBytesByVariant: Readonly<Partial<Record<DmoVariant, number>>>;
}

const ALL_VARIANTS: readonly DmoVariant[] = ['backward', 'forward', 'largest', 'greedy-order', 'tflm-greedy'];

function liveTogether(a: BufferRequest, b: BufferRequest): boolean {
  return a.firstStep <= b.lastStep && b.firstStep <= a.lastStep;
}

function pairKey(a: number, b: number): string {
  return `${a}:${b}`;
}

/** (inputId:outputId) -> O_s; validates the ids and amounts. */
export function indexPairs(requests: readonly BufferRequest[], overlaps: readonly SafeOverlapPair[]): Map<string, number> {
  const pairs = new Map<string, number>();
  for (const p of overlaps) {
    const ok = requests[p.inputId] !== undefined && requests[p.outputId] !== undefined && p.inputId !== p.outputId;
    if (!ok || !Number.isSafeInteger(p.safeOverlapBytes) || p.safeOverlapBytes < 0) {
      throw new PlanError('E_PLAN_INVALID', `bad safe-overlap pair ${JSON.stringify(p)}`);
    }
    pairs.set(pairKey(p.inputId, p.outputId), p.safeOverlapBytes);
  }
  return pairs;
}

/** True when buffer a at offA and buffer b at offB may coexist. */
function compatible(a: BufferRequest, offA: number, b: BufferRequest, offB: number, pairs: Map<string, number>): boolean {
  if (!liveTogether(a, b)) return true;
  if (offA + a.sizeBytes <= offB || offB + b.sizeBytes <= offA) return true;
  const aIn = pairs.get(pairKey(a.id, b.id));
  if (aIn !== undefined && offA >= offB + b.sizeBytes - aIn) return true;
  const bIn = pairs.get(pairKey(b.id, a.id));
  return bIn !== undefined && offB >= offA + a.sizeBytes - bIn;
}

function alignUp(x: number, alignment: number): number {
  return Math.ceil(x / alignment) * alignment;
}

/** Lowest aligned offset where `want` fits among the placed buffers (offset -1 = unplaced). */
export function lowestFit(
  want: BufferRequest,
  requests: readonly BufferRequest[],
  offsets: readonly number[],
  pairs: Map<string, number>,
  alignment: number,
): number {
  const others: number[] = [];
  const candidates = [0];
  requests.forEach((r, i) => {
    const off = offsets[i] ?? -1;
    if (off < 0 || i === want.id || !liveTogether(r, want)) return;
    others.push(i);
    candidates.push(off + r.sizeBytes);
    const asInput = pairs.get(pairKey(want.id, i));
    if (asInput !== undefined) candidates.push(off + r.sizeBytes - asInput);
    const asOutput = pairs.get(pairKey(i, want.id));
    if (asOutput !== undefined) candidates.push(off + asOutput - want.sizeBytes);
  });
  const sorted = [...new Set(candidates.filter((c) => c >= 0).map((c) => alignUp(c, alignment)))].sort((x, y) => x - y);
  for (const c of sorted) {
    if (others.every((j) => compatible(want, c, requests[j] as BufferRequest, offsets[j] ?? 0, pairs))) return c;
  }
  throw new PlanError('E_PLAN_INFEASIBLE', `no offset fits buffer ${want.id}`);
}

function placeOffline(requests: readonly BufferRequest[]): number[] {
  return requests.map((r) => r.offlineOffsetBytes ?? -1);
}

type HeapSeed = 'forward' | 'backward' | 'largest';

/**
 * The paper's modified heap allocation, seeded from a graph input (forward), a graph output
 * (backward) or the largest buffer ('largest': grows outwards from the peak, so the buffers
 * around it are fitted against it rather than it against them).
 */
function planHeap(requests: readonly BufferRequest[], pairs: Map<string, number>, alignment: number, seed: HeapSeed): number[] {
  const offsets = placeOffline(requests);
  const pending = new Set(requests.filter((r) => r.offlineOffsetBytes === null).map((r) => r.id));
  // Direction order: the seed and the fallback when nothing pending is live with a placed buffer.
  const order = [...pending].sort((x, y) => {
    const a = requests[x] as BufferRequest;
    const b = requests[y] as BufferRequest;
    const key = seed === 'backward' ? b.lastStep - a.lastStep : seed === 'forward' ? a.firstStep - b.firstStep : 0;
    return key !== 0 ? key : b.sizeBytes - a.sizeBytes || x - y;
  });
  const fit = new Map<number, number>();
  let placedAny = offsets.some((o) => o >= 0);
  while (pending.size > 0) {
    let best = -1;
    let bestOffset = Infinity;
    for (const id of order) {
      if (!pending.has(id)) continue;
      const r = requests[id] as BufferRequest;
      const touches = requests.some((q, j) => (offsets[j] ?? -1) >= 0 && liveTogether(q, r));
      if (placedAny && !touches) continue;
      let f = fit.get(id);
      if (f === undefined) {
        f = lowestFit(r, requests, offsets, pairs, alignment);
        fit.set(id, f);
      }
      const better = f < bestOffset || (f === bestOffset && r.sizeBytes > (requests[best]?.sizeBytes ?? -1));
      if (better) [best, bestOffset] = [id, f];
      if (!placedAny) break;
    }
    if (best < 0) {
      best = order.find((id) => pending.has(id)) ?? -1;
      bestOffset = lowestFit(requests[best] as BufferRequest, requests, offsets, pairs, alignment);
    }
    offsets[best] = bestOffset;
    pending.delete(best);
    placedAny = true;
    const placed = requests[best] as BufferRequest;
    for (const id of [...fit.keys()]) if (liveTogether(requests[id] as BufferRequest, placed)) fit.delete(id);
  }
  return offsets;
}

/** TFLM greedy's placement order (offline first, then size descending), overlaps allowed. */
function planGreedyOrder(requests: readonly BufferRequest[], pairs: Map<string, number>, alignment: number): number[] {
  const offsets = placeOffline(requests);
  for (const id of greedyPlacementOrder(requests)) {
    const r = requests[id] as BufferRequest;
    if (r.offlineOffsetBytes === null) offsets[id] = lowestFit(r, requests, offsets, pairs, alignment);
  }
  return offsets;
}

/** Every DMO variant, verified; the lowest peak (earlier variant on ties) is `plan`. */
export function planDmoDetailed(requests: readonly BufferRequest[], overlaps: readonly SafeOverlapPair[], options: DmoOptions = {}): DmoResult {
  const alignment = options.alignmentBytes ?? 16;
  if (!Number.isSafeInteger(alignment) || alignment < 1) throw new PlanError('E_PLAN_INVALID', `alignment ${alignment} must be a positive integer`);
  requests.forEach((r, i) => {
    if (r.id !== i) throw new PlanError('E_PLAN_INVALID', `request ${i} has id ${r.id}`);
  });
  const pairs = indexPairs(requests, overlaps);
  const peaks: Partial<Record<DmoVariant, number>> = {};
  let best: { plan: Plan; variant: DmoVariant } | null = null;
  for (const variant of options.variants ?? ALL_VARIANTS) {
    const offsets =
      variant === 'tflm-greedy'
        ? [...planGreedy(requests).offsets]
        : variant === 'greedy-order'
          ? planGreedyOrder(requests, pairs, alignment)
          : planHeap(requests, pairs, alignment, variant);
    const plan: Plan = { planner: 'dmo', offsets, peakBytes: planExtentBytes(requests, offsets) };
    verifyPlanWithOverlaps(requests, plan, overlaps);
    peaks[variant] = plan.peakBytes;
    if (best === null || plan.peakBytes < best.plan.peakBytes) best = { plan, variant };
  }
  if (best === null) throw new PlanError('E_PLAN_INVALID', 'no DMO variant selected');
  return { plan: best.plan, variant: best.variant, peakBytesByVariant: peaks };
}

export function planDmo(requests: readonly BufferRequest[], overlaps: readonly SafeOverlapPair[], options: DmoOptions = {}): Plan {
  return planDmoDetailed(requests, overlaps, options).plan;
}

/**
 * verifyPlan, plus the DMO orientation rule it cannot express: buffers of an allowed pair may
 * share bytes only with the input at or above outputOffset + outputSize - O_s.
 */
export function verifyPlanWithOverlaps(requests: readonly BufferRequest[], plan: Plan, overlaps: readonly SafeOverlapPair[]): void {
  const pairs = indexPairs(requests, overlaps);
  const widened = requests.map((r) => {
    const extra = overlaps
      .filter((p) => p.inputId === r.id)
      .map((p) => ({ withId: p.outputId, bytes: Math.min(p.safeOverlapBytes, r.sizeBytes, requests[p.outputId]?.sizeBytes ?? 0) }));
    return extra.length === 0 ? r : { ...r, allowedOverlap: [...(r.allowedOverlap ?? []), ...extra] };
  });
  verifyPlan(widened, plan);
  for (const p of overlaps) {
    const a = requests[p.inputId] as BufferRequest;
    const b = requests[p.outputId] as BufferRequest;
    const offA = plan.offsets[p.inputId] ?? 0;
    const offB = plan.offsets[p.outputId] ?? 0;
    if (!compatible(a, offA, b, offB, pairs)) {
      throw new PlanError(
        'E_PLAN_OVERLAP',
        `plan '${plan.planner}': input buffer ${a.id} '${a.name}' at ${offA} starts below ${offB + b.sizeBytes - p.safeOverlapBytes} (output buffer ${b.id} '${b.name}' end minus O_s ${p.safeOverlapBytes})`,
      );
    }
  }
}
