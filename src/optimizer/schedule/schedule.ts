// Memory-aware scheduling (FDT paper §4.1): pick an op order (a topological order) whose peak of
// live bytes is smallest. Cost model = TFLM lifetimes (computeBufferRequests): a tensor lives
// from its producer to its last consumer, graph inputs from the start, graph outputs to the end,
// scratch at its op. Methods: the series-parallel algorithm (schedule-series-parallel.ts), an
// exact DP over executed-op sets for small graphs, the hill-valley heuristic for the rest. The op-level
// model they share is memory-model.ts.
import { InternalError, PlanError } from '../../ir/index.ts';
import type { Graph } from '../../ir/index.ts';
import { MemoryTracker, buildMemoryModel, isTopologicalOrder } from './memory-model.ts';
import type { MemoryModel } from './memory-model.ts';
import { scheduleHillValley } from './schedule-hill-valley.ts';
import { scheduleSeriesParallel } from './schedule-series-parallel.ts';

export interface ScheduleOptions {
  /** Wall-clock budget for the exact methods (none by default: they stop at maxStates, the same
   * on every machine); the heuristic result is used after it. */
  readonly timeBudgetMs?: number;
  /** Cap on DP states for the exact search over executed-op sets. */
  readonly maxStates?: number;
}

export type ScheduleMethod = 'series-parallel' | 'exact-dp' | 'hill-valley' | 'original';

export interface ScheduleResult {
  /** Op indices of the input graph in execution order. */
  readonly order: readonly number[];
  /** Max over steps of the live bytes under `order` (= lowerBoundBytes of the reordered graph). */
  readonly peakBytes: number;
  readonly method: ScheduleMethod;
  /** True when no topological order has a smaller peak. */
  readonly optimal: boolean;
}

/** Peak live bytes of `order` (throws PlanError E_PLAN_INVALID when it is not topological). */
export function schedulePeakBytes(model: MemoryModel, order: readonly number[]): number {
  if (!isTopologicalOrder(model, order)) throw new PlanError('E_PLAN_INVALID', `schedule [${order.join(', ')}] is not a topological order of the graph`);
  const tracker = new MemoryTracker(model);
  let peak = model.initialBytes;
  for (const v of order) peak = Math.max(peak, tracker.execute(v));
  return peak;
}

/** The graph with its ops in `order` (tensors untouched). */
export function reorderGraph(graph: Graph, order: readonly number[]): Graph {
  const model = buildMemoryModel(graph);
  if (!isTopologicalOrder(model, order)) throw new PlanError('E_PLAN_INVALID', `schedule [${order.join(', ')}] is not a topological order of graph '${graph.name}'`);
  return {
    ...graph,
    ops: order.map((i) => {
      const op = graph.ops[i];
      if (op === undefined) throw new InternalError(`reorderGraph: no op ${i}`);
      return op;
    }),
  };
}

/**
 * Exact DP over executed-op sets (ideals): best[S ∪ {v}] = min over the last op v of
 * max(best[S], step bytes of v after S). Optimal for any DAG; exponential in the graph's width,
 * so it gives up (null) past `maxStates` states or the deadline, checked as each layer grows (one
 * layer of a wide graph can hold millions of states: checked only at the layer's end, the DP took
 * 27 s on the LSTM model under a 2 s budget), and not started when idealsLowerBound already passes
 * the cap. A set is a bigint (its Map key); each state's set is unpacked once into a membership
 * array, so the ready and freed checks are plain array reads instead of bigint masks.
 */
export function scheduleExactDp(model: MemoryModel, maxStates: number, deadline: number): { order: number[]; peakBytes: number } | null {
  const n = model.opCount;
  // The DP visits every ideal once: when there are surely more than the cap, it would give up.
  if (idealsLowerBound(model, maxStates) > maxStates) return null;
  const bits = Array.from({ length: n }, (_, i) => 1n << BigInt(i));
  const { preds, tensors, touches, outBytes, scratchBytes } = model;
  const member = new Uint8Array(n);
  interface State { readonly cost: number; readonly resident: number; readonly prev: bigint; readonly last: number }
  let layer = new Map<bigint, State>([[0n, { cost: model.initialBytes, resident: model.initialBytes, prev: -1n, last: -1 }]]);
  const history: Map<bigint, State>[] = [layer];
  let states = 1;
  for (let k = 0; k < n; k++) {
    const next = new Map<bigint, State>();
    let visited = 0;
    for (const [set, s] of layer) {
      // Give up as soon as the layer is sure to pass the cap or the deadline has passed (the layer's
      // end would say the same: its size only grows, time only passes), not after building it all.
      if (states + next.size > maxStates || ((++visited & 255) === 0 && performance.now() > deadline)) return null;
      unpackSet(set, member);
      for (let v = 0; v < n; v++) {
        if (member[v] === 1 || !allIn(preds[v] ?? [], member)) continue;
        // v runs: a tensor it touches is freed once every consumer has run (v included).
        member[v] = 1;
        let freed = 0;
        for (const e of touches[v] ?? []) {
          const t = tensors[e];
          if (t && !t.pinned && allIn(t.consumers, member)) freed += t.bytes;
        }
        member[v] = 0;
        const after = set | (bits[v] as bigint);
        const step = s.resident + (outBytes[v] ?? 0) + (scratchBytes[v] ?? 0);
        const cost = Math.max(s.cost, step);
        const old = next.get(after);
        if (old === undefined || cost < old.cost) {
          next.set(after, { cost, resident: s.resident + (outBytes[v] ?? 0) - freed, prev: set, last: v });
        }
      }
    }
    states += next.size;
    if (states > maxStates || performance.now() > deadline) return null;
    layer = next;
    history.push(layer);
  }
  const [finalSet, final] = [...layer.entries()][0] ?? [0n, undefined];
  if (final === undefined) return n === 0 ? { order: [], peakBytes: model.initialBytes } : null;
  const order: number[] = [];
  let cur: bigint = finalSet;
  for (let k = n; k > 0; k--) {
    const s = history[k]?.get(cur);
    if (s === undefined) throw new InternalError('scheduleExactDp: broken back-pointer');
    order.push(s.last);
    cur = s.prev;
  }
  return { order: order.reverse(), peakBytes: final.cost };
}

/**
 * A lower bound on the number of ideals (executed-op sets the DP visits, the empty one included),
 * stopping once past `cap`. Ops at one depth (longest path from a source) are pairwise unordered,
 * and the ops below depth d plus any subset of those at depth d form an ideal: at least
 * 1 + sum over depths of (2^width - 1). Widths past 52 count as past any cap.
 */
export function idealsLowerBound(model: MemoryModel, cap: number): number {
  const n = model.opCount;
  const depth = new Array<number>(n).fill(-1);
  const width: number[] = [];
  // Kahn's order: an op's depth is one more than its deepest predecessor's.
  const waiting = model.preds.map((ps) => ps.length);
  const ready = waiting.flatMap((w, i) => (w === 0 ? [i] : []));
  for (let k = 0; k < ready.length; k++) {
    const v = ready[k] as number;
    const d = (model.preds[v] ?? []).reduce((m, p) => Math.max(m, (depth[p] ?? 0) + 1), 0);
    depth[v] = d;
    width[d] = (width[d] ?? 0) + 1;
    for (const w of model.succs[v] ?? []) {
      const left = (waiting[w] ?? 0) - 1;
      waiting[w] = left;
      if (left === 0) ready.push(w);
    }
  }
  if (ready.length !== n) return 1; // not a DAG: the DP finds no order by itself
  let bound = 1;
  for (const w of width) {
    bound += w > 52 ? cap + 1 : 2 ** w - 1;
    if (bound > cap) return bound;
  }
  return bound;
}

/** member[i] = bit i of `set` (one hex digit, four ops, at a time). */
function unpackSet(set: bigint, member: Uint8Array): void {
  member.fill(0);
  const hex = set.toString(16);
  for (let d = 0; d < hex.length; d++) {
    const nibble = parseInt(hex.charAt(hex.length - 1 - d), 16);
    for (let b = 0; b < 4; b++) if ((nibble >> b) & 1) member[4 * d + b] = 1;
  }
}

function allIn(ops: readonly number[], member: Uint8Array): boolean {
  for (const o of ops) if (member[o] !== 1) return false;
  return true;
}

const DEFAULT_MAX_STATES = 50_000;

/** A memory-minimising op order for `graph` (see the file header for the methods). */
export function scheduleGraph(graph: Graph, options: ScheduleOptions = {}): ScheduleResult {
  const model = buildMemoryModel(graph);
  const deadline = options.timeBudgetMs === undefined ? Infinity : performance.now() + options.timeBudgetMs;
  const original = graph.ops.map((_, i) => i);
  if (!isTopologicalOrder(model, original)) throw new PlanError('E_PLAN_INVALID', `graph '${graph.name}' lists an op before its producer`);
  const sp = scheduleSeriesParallel(model);
  if (sp !== null && !sp.coupled) return { order: sp.order, peakBytes: schedulePeakBytes(model, sp.order), method: 'series-parallel', optimal: true };
  const dp = scheduleExactDp(model, options.maxStates ?? DEFAULT_MAX_STATES, deadline);
  if (dp !== null) return { order: dp.order, peakBytes: dp.peakBytes, method: 'exact-dp', optimal: true };
  const candidates: { order: readonly number[]; method: ScheduleMethod }[] = [
    { order: scheduleHillValley(model), method: 'hill-valley' },
    { order: original, method: 'original' },
  ];
  if (sp !== null) candidates.unshift({ order: sp.order, method: 'series-parallel' });
  let best: ScheduleResult | null = null;
  for (const c of candidates) {
    const peakBytes = schedulePeakBytes(model, c.order);
    if (best === null || peakBytes < best.peakBytes) best = { order: c.order, peakBytes, method: c.method, optimal: false };
  }
  if (best === null) throw new InternalError('scheduleGraph: no candidate');
  return best;
}

/** `graph` with its ops reordered by scheduleGraph, and the schedule used. */
export function scheduleAndReorder(graph: Graph, options: ScheduleOptions = {}): { readonly graph: Graph; readonly schedule: ScheduleResult } {
  const schedule = scheduleGraph(graph, options);
  return { graph: reorderGraph(graph, schedule.order), schedule };
}
