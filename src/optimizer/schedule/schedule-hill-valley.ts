// The FDT paper's fallback scheduler (§4.1, hill-valley segments after Liu [21]): whenever
// several ops are ready, each ready op starts a path (followed while the next op has one
// unscheduled successor that becomes ready); the path with the largest hill - valley (its peak
// minus the lowest resident bytes after that peak) runs first, as a whole. Linear passes per
// choice; no optimality claim.
import { MemoryTracker } from './memory-model.ts';
import type { MemoryModel } from './memory-model.ts';

/** The path that starts at ready op `v`: successors taken while they are the only next op. */
function pathFrom(model: MemoryModel, tracker: MemoryTracker, v: number): number[] {
  const path = [v];
  const inPath = new Set(path);
  let cur = v;
  for (;;) {
    const next = (model.succs[cur] ?? []).filter((w) => !tracker.done[w]);
    const w = next[0];
    if (next.length !== 1 || w === undefined) return path;
    if (!(model.preds[w] ?? []).every((p) => tracker.done[p] || inPath.has(p))) return path;
    path.push(w);
    inPath.add(w);
    cur = w;
  }
}

/** Hill - valley of running `path` now (relative to the current resident bytes). */
function pathKey(model: MemoryModel, tracker: MemoryTracker, path: readonly number[]): number {
  const probe = new MemoryTracker(model);
  probe.copyFrom(tracker);
  let hill = -Infinity;
  let valley = Infinity;
  for (const v of path) {
    const step = probe.execute(v);
    if (step >= hill) {
      hill = step;
      valley = Infinity;
    }
    valley = Math.min(valley, probe.resident);
  }
  return hill - valley;
}

export function scheduleHillValley(model: MemoryModel): number[] {
  const tracker = new MemoryTracker(model);
  const order: number[] = [];
  while (order.length < model.opCount) {
    const ready: number[] = [];
    for (let v = 0; v < model.opCount; v++) if (tracker.ready(v)) ready.push(v);
    let best: number[] = [];
    let bestKey = -Infinity;
    for (const v of ready) {
      const path = pathFrom(model, tracker, v);
      const key = ready.length === 1 ? 0 : pathKey(model, tracker, path);
      if (key > bestKey) {
        bestKey = key;
        best = path;
      }
    }
    if (best.length === 0) break;
    for (const v of best) {
      tracker.execute(v);
      order.push(v);
    }
  }
  return order;
}
