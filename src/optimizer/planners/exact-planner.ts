// Exact layout planner (FDT paper §4.2: the MILP "min max e_i, e_u - s_u >= e_v or e_v - s_v >=
// e_u for every conflict") solved by branch and bound instead of a MILP. Search space: buffers
// placed one by one on a skyline in non-decreasing (offset, rank) order, each at the lowest
// 16-aligned offset above the buffers already placed in its lifetime. Every plan can be pushed
// down into such a sequence without growing, so the space holds an optimum. tflm-greedy is the
// starting incumbent: the result is never worse, and after the node limit (work, so the same plan
// on every machine) or an explicit wall-clock budget it is the best found.
import { ARENA_ALIGNMENT_BYTES, alignUp } from './buffer-requests.ts';
import { planGreedy } from './greedy-planner.ts';
import { planExtentBytes } from './plan-types.ts';
import type { BufferRequest, Plan } from './plan-types.ts';
import { lowerBoundBytes } from './verify-plan.ts';

export interface ExactPlanOptions {
  /** Wall-clock budget for the search (none by default): a search it cuts depends on the machine. */
  readonly timeBudgetMs?: number;
  /** Cap on search nodes (default DEFAULT_EXACT_NODE_LIMIT): the same cut-off on every machine. */
  readonly nodeLimit?: number;
  /** Offset alignment; TFLM aligns arena buffers to 16 bytes. */
  readonly alignmentBytes?: number;
}

export interface ExactPlan extends Plan {
  /** True when the search finished (or met the lower bound): no plan of these requests is smaller. */
  readonly proven: boolean;
  /** Live-bytes lower bound (lowerBoundBytes, raised by fixed offline buffers). */
  readonly lowerBoundBytes: number;
  /** peakBytes - lowerBoundBytes. */
  readonly gapBytes: number;
  /** Bytes saved against tflm-greedy (>= 0). */
  readonly savedVsGreedyBytes: number;
  readonly nodes: number;
  readonly elapsedMs: number;
}

/** Search nodes before the exact planner keeps its best (about 1-2 s on a laptop core). */
export const DEFAULT_EXACT_NODE_LIMIT = 2_000_000;

/** Buffers in the search's terms: lifetimes as ranges of elementary segments, fixed offset or -1. */
interface Problem {
  readonly n: number;
  readonly size: readonly number[];
  readonly segA: readonly number[];
  readonly segB: readonly number[];
  readonly fixed: readonly number[];
  readonly rank: readonly number[];
  /** The previous identical online buffer in rank order (placed first by symmetry), or -1. */
  readonly twinPrev: readonly number[];
  readonly segments: number;
}

function buildProblem(requests: readonly BufferRequest[]): Problem {
  const points = [...new Set(requests.flatMap((r) => [r.firstStep, r.lastStep + 1]))].sort((a, b) => a - b);
  const segOf = new Map(points.map((p, i) => [p, i]));
  const size = requests.map((r) => r.sizeBytes);
  const segA = requests.map((r) => segOf.get(r.firstStep) ?? 0);
  const segB = requests.map((r) => (segOf.get(r.lastStep + 1) ?? 1) - 1);
  const fixed = requests.map((r) => r.offlineOffsetBytes ?? -1);
  // Rank: big, long-lived buffers first among equal offsets (the greedy's instinct).
  const byRank = requests
    .map((_, i) => i)
    .sort((x, y) => (size[y] ?? 0) - (size[x] ?? 0) || (segA[x] ?? 0) - (segA[y] ?? 0) || (segB[y] ?? 0) - (segB[x] ?? 0) || x - y);
  const rank = new Array<number>(requests.length).fill(0);
  byRank.forEach((id, k) => {
    rank[id] = k;
  });
  const twinPrev = new Array<number>(requests.length).fill(-1);
  for (let k = 1; k < byRank.length; k++) {
    const a = byRank[k - 1] ?? 0;
    const b = byRank[k] ?? 0;
    const same = size[a] === size[b] && segA[a] === segA[b] && segB[a] === segB[b] && fixed[a] === -1 && fixed[b] === -1;
    if (same) twinPrev[b] = a;
  }
  return { n: requests.length, size, segA, segB, fixed, rank, twinPrev, segments: Math.max(0, points.length - 1) };
}

/** Mutable search state; a class because it is the stateful core of one search run. */
class Search {
  readonly skyline: Float64Array;
  readonly unplacedLive: Float64Array;
  readonly placed: Uint8Array;
  readonly offsets: number[];
  readonly place: Float64Array;
  best: number;
  bestOffsets: number[];
  nodes = 0;
  aborted = false;
  private readonly deadline: number;

  constructor(
    readonly p: Problem,
    incumbent: Plan,
    readonly lowerBound: number,
    readonly align: number,
    budgetMs: number | undefined,
    readonly nodeLimit: number,
  ) {
    this.skyline = new Float64Array(p.segments);
    this.unplacedLive = new Float64Array(p.segments);
    for (let i = 0; i < p.n; i++) for (let t = p.segA[i] ?? 0; t <= (p.segB[i] ?? -1); t++) this.unplacedLive[t] = (this.unplacedLive[t] ?? 0) + (p.size[i] ?? 0);
    this.placed = new Uint8Array(p.n);
    this.offsets = new Array<number>(p.n).fill(0);
    this.place = new Float64Array(p.n);
    this.best = incumbent.peakBytes;
    this.bestOffsets = [...incumbent.offsets];
    this.deadline = budgetMs === undefined ? Infinity : performance.now() + budgetMs;
  }

  private outOfTime(): boolean {
    if (this.aborted) return true;
    if (this.nodes >= this.nodeLimit || ((this.nodes & 255) === 0 && performance.now() > this.deadline)) this.aborted = true;
    return this.aborted;
  }

  /** Top of the skyline over buffer i's lifetime: it cannot sit lower. */
  private skylineTop(i: number): number {
    let top = 0;
    for (let t = this.p.segA[i] ?? 0; t <= (this.p.segB[i] ?? -1); t++) top = Math.max(top, this.skyline[t] ?? 0);
    return top;
  }

  /** Depth-first search below the current state; `level`/`lastRank` = the last placed (offset, rank). */
  run(remaining: number, level: number, lastRank: number, peak: number): void {
    this.nodes++;
    if (remaining === 0) {
      if (peak < this.best) {
        this.best = peak;
        this.bestOffsets = [...this.offsets];
      }
      return;
    }
    if (this.outOfTime()) return;
    const { p } = this;
    const children: number[] = [];
    const minPlace = new Float64Array(p.segments).fill(Infinity);
    for (let i = 0; i < p.n; i++) {
      if (this.placed[i]) continue;
      const top = this.skylineTop(i);
      const f = p.fixed[i] ?? -1;
      if (f >= 0) {
        // A fixed buffer under the skyline, or behind the order, can never be placed: dead branch.
        if (top > f) return;
        if (f < level || (f === level && (p.rank[i] ?? 0) < lastRank)) return;
        this.place[i] = f;
      } else {
        this.place[i] = alignUp(top, this.align);
      }
      const pi = this.place[i] ?? 0;
      for (let t = p.segA[i] ?? 0; t <= (p.segB[i] ?? -1); t++) if (pi < (minPlace[t] ?? 0)) minPlace[t] = pi;
      const inOrder = pi > level || (pi === level && (p.rank[i] ?? 0) > lastRank);
      const twin = p.twinPrev[i] ?? -1;
      if (inOrder && (twin < 0 || this.placed[twin])) children.push(i);
    }
    // Bound: buffers still to come at segment t are mutually live, so they stack above both the
    // current level and the lowest place any of them can take.
    let bound = peak;
    for (let t = 0; t < p.segments; t++) {
      const u = this.unplacedLive[t] ?? 0;
      if (u > 0) bound = Math.max(bound, alignUp(Math.max(level, minPlace[t] ?? 0), this.align) + u);
    }
    if (bound >= this.best) return;
    children.sort((a, b) => (this.place[a] ?? 0) - (this.place[b] ?? 0) || (p.rank[a] ?? 0) - (p.rank[b] ?? 0));
    const at = children.map((i) => this.place[i] ?? 0);
    for (let k = 0; k < children.length; k++) {
      const i = children[k] ?? 0;
      const off = at[k] ?? 0;
      const end = off + (p.size[i] ?? 0);
      if (end >= this.best) continue;
      const a = p.segA[i] ?? 0;
      const b = p.segB[i] ?? -1;
      const saved = this.skyline.slice(a, b + 1);
      for (let t = a; t <= b; t++) {
        this.skyline[t] = Math.max(this.skyline[t] ?? 0, end);
        this.unplacedLive[t] = (this.unplacedLive[t] ?? 0) - (p.size[i] ?? 0);
      }
      this.placed[i] = 1;
      this.offsets[i] = off;
      this.run(remaining - 1, off, p.rank[i] ?? 0, Math.max(peak, end));
      this.placed[i] = 0;
      this.skyline.set(saved, a);
      for (let t = a; t <= b; t++) this.unplacedLive[t] = (this.unplacedLive[t] ?? 0) + (p.size[i] ?? 0);
      if (this.best <= this.lowerBound || this.aborted) return;
    }
  }
}

/**
 * Minimal-peak offsets for a fixed schedule. Allowed overlaps (DMO) are not used: buffers live
 * at a common step are made fully disjoint. Offline (fixed) offsets are kept.
 */
export function planExact(requests: readonly BufferRequest[], options: ExactPlanOptions = {}): ExactPlan {
  const start = performance.now();
  const align = options.alignmentBytes ?? ARENA_ALIGNMENT_BYTES;
  const greedy = planGreedy(requests);
  const fixedTop = requests.reduce((m, r) => (r.offlineOffsetBytes === null ? m : Math.max(m, r.offlineOffsetBytes + r.sizeBytes)), 0);
  const lower = Math.max(lowerBoundBytes(requests), fixedTop);
  const p = buildProblem(requests);
  const search = new Search(p, greedy, lower, align, options.timeBudgetMs, options.nodeLimit ?? DEFAULT_EXACT_NODE_LIMIT);
  if (greedy.peakBytes > lower) search.run(p.n, -1, -1, 0);
  const peakBytes = planExtentBytes(requests, search.bestOffsets);
  return {
    planner: 'exact',
    offsets: search.bestOffsets,
    peakBytes,
    proven: peakBytes <= lower || !search.aborted,
    lowerBoundBytes: lower,
    gapBytes: peakBytes - lower,
    savedVsGreedyBytes: greedy.peakBytes - peakBytes,
    nodes: search.nodes,
    elapsedMs: performance.now() - start,
  };
}
