// Memory-aware scheduling of series-parallel graphs (FDT paper §4.1, after Kayaaslan et al.
// 2018 [17] and Liu's hill-valley merge [21]): split the op DAG between a virtual source and sink
// into series parts (cut vertices) and parallel branches (components), schedule each branch
// recursively, cut its profile into segments (combining neighbours out of rule order) and merge
// all branches' segments: memory-freeing segments first by rise, then by decreasing hill - valley.
// DNN task model: one buffer per tensor, shared by all consumers. O(n (n + m) + n^2 log n).
import type { MemoryModel } from './memory-model.ts';

export interface SeriesParallelSchedule {
  readonly order: number[];
  /** A tensor is read by two parallel branches: the merge treats it as resident, so the order may not be optimal. */
  readonly coupled: boolean;
}

interface Ctx {
  readonly model: MemoryModel;
  readonly succ: readonly (readonly number[])[];
  readonly pred: readonly (readonly number[])[];
  coupled: boolean;
}

/** Branch-local memory profile of `order`: step bytes and resident delta after each op. */
function profile(ctx: Ctx, order: readonly number[]): { hill: number[]; after: number[] } {
  const { model } = ctx;
  const members = new Set(order);
  const seen = new Set<number>();
  const hill: number[] = [];
  const after: number[] = [];
  let cum = 0;
  for (const v of order) {
    seen.add(v);
    hill.push(cum + (model.outBytes[v] ?? 0) + (model.scratchBytes[v] ?? 0));
    let freed = 0;
    for (const e of model.touches[v] ?? []) {
      const t = model.tensors[e];
      if (!t || t.pinned) continue;
      if (t.consumers.every((c) => members.has(c) && seen.has(c))) freed += t.bytes;
    }
    cum += (model.outBytes[v] ?? 0) - freed;
    after.push(cum);
  }
  return { hill, after };
}

interface Segment {
  readonly ops: number[];
  /** Peak above the resident bytes before the segment, and the net change after it. */
  readonly rise: number;
  readonly net: number;
}

/**
 * Which segment runs first (< 0: x): segments that free memory first, by increasing rise; then
 * the others by decreasing rise - net (Liu's hill - valley). The exchange argument of the
 * max-cumulative-cost rule: swapping an adjacent pair out of this order never lowers the peak.
 */
function compareSegments(x: Segment, y: Segment): number {
  const fx = x.net <= 0;
  const fy = y.net <= 0;
  if (fx !== fy) return fx ? -1 : 1;
  return fx ? x.rise - y.rise : y.rise - y.net - (x.rise - x.net);
}

/**
 * A branch schedule cut into segments whose order already obeys compareSegments: start with one
 * segment per op and combine neighbours while the later one should run first (the
 * Abdel-Wahab/Kameda and Liu combining step), so the merge may interleave branches only at
 * segment boundaries.
 */
function segments(ctx: Ctx, order: readonly number[]): Segment[] {
  const { hill, after } = profile(ctx, order);
  const stack: Segment[] = [];
  order.forEach((v, k) => {
    const before = k === 0 ? 0 : (after[k - 1] ?? 0);
    let seg: Segment = { ops: [v], rise: (hill[k] ?? 0) - before, net: (after[k] ?? 0) - before };
    for (;;) {
      const prev = stack[stack.length - 1];
      if (prev === undefined || compareSegments(seg, prev) >= 0) break;
      stack.pop();
      seg = { ops: [...prev.ops, ...seg.ops], rise: Math.max(prev.rise, prev.net + seg.rise), net: prev.net + seg.net };
    }
    stack.push(seg);
  });
  return stack;
}

/** Kahn's order of `inside` (preds outside it must be `s`); null when it is not closed that way. */
function topologicalOrder(ctx: Ctx, s: number, inside: ReadonlySet<number>): number[] | null {
  const indeg = new Map<number, number>();
  for (const v of inside) {
    let d = 0;
    for (const p of ctx.pred[v] ?? []) {
      if (inside.has(p)) d++;
      else if (p !== s) return null;
    }
    indeg.set(v, d);
  }
  const queue = [...inside].filter((v) => indeg.get(v) === 0);
  const order: number[] = [];
  for (let head = 0; head < queue.length; head++) {
    const v = queue[head] ?? 0;
    order.push(v);
    for (const w of ctx.succ[v] ?? []) {
      if (!inside.has(w)) continue;
      const d = (indeg.get(w) ?? 0) - 1;
      indeg.set(w, d);
      if (d === 0) queue.push(w);
    }
  }
  return order.length === inside.size ? order : null;
}

function decompose(ctx: Ctx, s: number, t: number, inside: ReadonlySet<number>): number[] | null {
  if (inside.size === 0) return [];
  // Series: interior nodes every s -> t path through the interior passes. In a topological
  // order of the interior, c is such a cut iff no edge jumps over it (a direct edge s -> t is an
  // empty parallel branch whose tensor just stays resident, so it is not counted).
  const topo = topologicalOrder(ctx, s, inside);
  if (topo === null) return null;
  const pos = new Map<number, number>([[s, 0]]);
  topo.forEach((v, k) => pos.set(v, k + 1));
  pos.set(t, topo.length + 1);
  const cover = new Array<number>(topo.length + 3).fill(0);
  for (const u of [s, ...topo]) {
    for (const w of ctx.succ[u] ?? []) {
      if (u === s && !inside.has(w)) continue;
      if (!inside.has(w) && w !== t) return null;
      const pu = pos.get(u) ?? 0;
      const pw = pos.get(w) ?? 0;
      cover[pu + 1] = (cover[pu + 1] ?? 0) + 1;
      cover[pw] = (cover[pw] ?? 0) - 1;
    }
  }
  const cuts: number[] = [];
  let open = 0;
  topo.forEach((v, k) => {
    open += cover[k + 1] ?? 0;
    if (open === 0) cuts.push(v);
  });
  if (cuts.length > 0) {
    const terminals = [s, ...cuts, t];
    const order: number[] = [];
    let from = 0;
    for (let k = 0; k + 1 < terminals.length; k++) {
      const b = terminals[k + 1] ?? 0;
      const to = b === t ? topo.length : (pos.get(b) ?? 1) - 1;
      const sub = decompose(ctx, terminals[k] ?? 0, b, new Set(topo.slice(from, to)));
      if (sub === null) return null;
      order.push(...sub);
      if (b !== t) order.push(b);
      from = to + 1;
    }
    return order;
  }
  // Parallel: the weakly connected components of the interior.
  const comps: Set<number>[] = [];
  const compOf = new Map<number, number>();
  for (const v of inside) {
    if (compOf.has(v)) continue;
    const comp = new Set([v]);
    const stack = [v];
    compOf.set(v, comps.length);
    while (stack.length > 0) {
      const x = stack.pop() ?? 0;
      for (const w of [...(ctx.succ[x] ?? []), ...(ctx.pred[x] ?? [])]) {
        if (!inside.has(w) || compOf.has(w)) continue;
        compOf.set(w, comps.length);
        comp.add(w);
        stack.push(w);
      }
    }
    comps.push(comp);
  }
  if (comps.length < 2) return null;
  for (const comp of comps) {
    for (const v of comp) {
      if ((ctx.pred[v] ?? []).some((p) => p !== s && !comp.has(p))) return null;
      if ((ctx.succ[v] ?? []).some((q) => q !== t && !comp.has(q))) return null;
    }
  }
  for (const tensor of ctx.model.tensors) {
    const branches = new Set(tensor.consumers.flatMap((c) => (compOf.has(c) ? [compOf.get(c)] : [])));
    if (branches.size > 1 && !tensor.pinned) ctx.coupled = true;
  }
  const all: Segment[] = [];
  for (let b = 0; b < comps.length; b++) {
    const sub = decompose(ctx, s, t, comps[b] ?? new Set());
    if (sub === null) return null;
    all.push(...segments(ctx, sub));
  }
  // Stable: each branch's segments are already in compareSegments order.
  all.sort(compareSegments);
  return all.flatMap((seg) => seg.ops);
}

/** The series-parallel schedule, or null when the op graph is not series-parallel. */
export function scheduleSeriesParallel(model: MemoryModel): SeriesParallelSchedule | null {
  const n = model.opCount;
  const source = n;
  const sink = n + 1;
  const succ: number[][] = model.succs.map((x) => [...x]);
  const pred: number[][] = model.preds.map((x) => [...x]);
  succ.push([], []);
  pred.push([], []);
  for (let v = 0; v < n; v++) {
    if ((model.preds[v] ?? []).length === 0) {
      succ[source]?.push(v);
      pred[v]?.push(source);
    }
    if ((model.succs[v] ?? []).length === 0) {
      succ[v]?.push(sink);
      pred[sink]?.push(v);
    }
  }
  const ctx: Ctx = { model, succ, pred, coupled: false };
  const order = decompose(ctx, source, sink, new Set(Array.from({ length: n }, (_, i) => i)));
  return order === null ? null : { order, coupled: ctx.coupled };
}
