// TFLM's GreedyMemoryPlanner (memory_planner/greedy_memory_planner.cc), byte for byte:
// offline buffers first at their fixed offsets, then online buffers by size descending, each
// put in the first gap big enough among the already placed buffers that are live at the same
// time, walking those in offset order; GetMaximumMemorySize = max(offset + size).
import { planExtentBytes } from './plan-types.ts';
import type { BufferRequest, Plan } from './plan-types.ts';

/**
 * TFLM's placement order. CalculateOffsetsIfNeeded stores offline buffers from the head in
 * add order and online buffers from the tail (so they sit in reverse add order), then
 * ReverseSortInPlace bubble-sorts the online part by size, swapping only on a strict `<`:
 * that is a stable descending sort, which Array.prototype.sort (stable) reproduces exactly.
 * Returns request positions in placement order.
 */
export function greedyPlacementOrder(requests: readonly BufferRequest[]): number[] {
  const all = requests.map((_, i) => i);
  const offline = all.filter((i) => requests[i]?.offlineOffsetBytes !== null);
  const online = all.filter((i) => requests[i]?.offlineOffsetBytes === null).reverse();
  const size = (id: number): number => requests[id]?.sizeBytes ?? 0;
  online.sort((a, b) => size(b) - size(a));
  return [...offline, ...online];
}

/** The offset-ordered singly linked list of placed buffers (TFLM's ListEntry array). */
interface PlacedList {
  readonly offset: number[];
  readonly id: number[];
  readonly next: number[];
  first: number;
}

const END = -1;

function overlapsInTime(a: BufferRequest, first: number, last: number): boolean {
  return !(a.firstStep > last) && !(first > a.lastStep);
}

/** NextSimultaneouslyActiveBuffer: the next entry after `start` (END = list head) live with `want`. */
function nextActive(list: PlacedList, requests: readonly BufferRequest[], start: number, want: BufferRequest): number {
  let e = start === END ? list.first : (list.next[start] ?? END);
  while (e !== END) {
    const r = requests[list.id[e] ?? 0];
    if (r && overlapsInTime(r, want.firstStep, want.lastStep)) return e;
    e = list.next[e] ?? END;
  }
  return END;
}

/** The first-fit offset for an online buffer. */
function findGap(list: PlacedList, requests: readonly BufferRequest[], want: BufferRequest): number {
  let candidate = 0;
  let prior = END;
  for (;;) {
    const next = nextActive(list, requests, prior, want);
    if (prior !== END) {
      const priorEnd = (list.offset[prior] ?? 0) + (requests[list.id[prior] ?? 0]?.sizeBytes ?? 0);
      candidate = Math.max(candidate, priorEnd);
    }
    if (next === END) return candidate;
    if ((list.offset[next] ?? 0) - candidate >= want.sizeBytes) return candidate;
    prior = next;
  }
}

/** Insert a new entry before the first entry with a strictly greater offset. */
function insert(list: PlacedList, id: number, offset: number): void {
  const entry = list.offset.length;
  list.offset.push(offset);
  list.id.push(id);
  list.next.push(END);
  if ((list.offset[list.first] ?? 0) > offset) {
    list.next[entry] = list.first;
    list.first = entry;
    return;
  }
  let cur = list.first;
  for (;;) {
    const nxt = list.next[cur] ?? END;
    if (nxt === END) {
      list.next[cur] = entry;
      return;
    }
    if ((list.offset[nxt] ?? 0) > offset) {
      list.next[entry] = nxt;
      list.next[cur] = entry;
      return;
    }
    cur = nxt;
  }
}

export function planGreedy(requests: readonly BufferRequest[]): Plan {
  const offsets = requests.map((r) => r.offlineOffsetBytes ?? -1);
  const order = greedyPlacementOrder(requests);
  const firstId = order[0];
  if (firstId === undefined) return { planner: 'tflm-greedy', offsets: [], peakBytes: 0 };
  const list: PlacedList = { offset: [], id: [], next: [], first: 0 };
  const firstOffset = requests[firstId]?.offlineOffsetBytes ?? 0;
  offsets[firstId] = firstOffset;
  list.offset.push(firstOffset);
  list.id.push(firstId);
  list.next.push(END);
  for (const id of order.slice(1)) {
    const want = requests[id];
    if (!want) continue;
    const offset = want.offlineOffsetBytes ?? findGap(list, requests, want);
    offsets[id] = offset;
    insert(list, id, offset);
  }
  return { planner: 'tflm-greedy', offsets, peakBytes: planExtentBytes(requests, offsets) };
}
