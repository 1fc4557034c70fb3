// planGreedy against hand-worked placements (sort ties, gaps, offline buffers), against TFLM's
// offsets when fed the oracle's own buffer list, and against a plain first-fit reference on seeded
// random buffer lists (planGreedy walks TFLM's linked list; the reference filters and sorts).
import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import type { BufferRequest } from '../../../src/optimizer/index.ts';
import { greedyPlacementOrder, planGreedy, verifyPlan } from '../../../src/optimizer/index.ts';
import { oracleMeta, oracleModelNames, req, requestsFromMeta } from '../helpers.ts';

describe('planGreedy', () => {
  it('places the largest buffer first at 0 and reuses space across disjoint lifetimes', () => {
    const plan = planGreedy([req(0, 16, 0, 1), req(1, 32, 2, 3), req(2, 16, 1, 2)]);
    expect(plan.offsets).toEqual([0, 0, 32]);
    expect(plan.peakBytes).toBe(48);
  });

  it('keeps equal sizes in reverse add order (buffers enter the sort array from the tail)', () => {
    expect(greedyPlacementOrder([req(0, 16, 0, 0), req(1, 32, 0, 0), req(2, 16, 0, 0), req(3, 32, 0, 0)])).toEqual([3, 1, 2, 0]);
    const plan = planGreedy([req(0, 16, 0, 0), req(1, 16, 0, 0), req(2, 16, 0, 0)]);
    expect(plan.offsets).toEqual([32, 16, 0]);
  });

  it('takes the first gap that fits among buffers live at the same time', () => {
    // 0: [0,64) steps 0-2; 1: [64,96) steps 0-0; 2 (size 32, steps 1-2) fits the gap 1 left.
    const plan = planGreedy([req(0, 64, 0, 2), req(1, 32, 0, 0), req(2, 32, 1, 2), req(3, 16, 0, 2)]);
    expect(plan.offsets).toEqual([0, 64, 64, 96]);
    expect(plan.peakBytes).toBe(112);
  });

  it('puts offline buffers at their offsets first, unsorted, and fits online ones around them', () => {
    const plan = planGreedy([req(0, 16, 0, 3), req(1, 32, 0, 3, 64), req(2, 48, 0, 3), req(3, 16, 0, 3, 0)]);
    expect(plan.offsets[1]).toBe(64);
    expect(plan.offsets[3]).toBe(0);
    expect(greedyPlacementOrder([req(0, 16, 0, 3), req(1, 32, 0, 3, 64), req(2, 48, 0, 3), req(3, 16, 0, 3, 0)])).toEqual([1, 3, 2, 0]);
    // 2 (48 B) fills [16, 64) exactly; 0 then finds no gap and goes after buffer 1.
    expect(plan.offsets).toEqual([96, 64, 16, 0]);
    verifyPlan([req(0, 16, 0, 3), req(1, 32, 0, 3, 64), req(2, 48, 0, 3), req(3, 16, 0, 3, 0)], plan);
  });

  it('plans nothing as 0 bytes', () => {
    expect(planGreedy([])).toEqual({ planner: 'tflm-greedy', offsets: [], peakBytes: 0 });
  });

  for (const name of oracleModelNames()) {
    it(`reproduces TFLM's offsets for ${name} given TFLM's requests`, () => {
      const meta = oracleMeta(name);
      const requests = requestsFromMeta(meta);
      const plan = planGreedy(requests);
      expect(plan.peakBytes).toBe(meta.planner_max_memory_bytes);
      expect(plan.offsets).toEqual(meta.memory_plan.map((e) => e.offset));
    });
  }
});

/**
 * TFLM's greedy placement read plainly: in placement order, each online buffer goes to the first
 * gap, from offset 0, between the already placed buffers live at the same time, walked by offset
 * (equal offsets in placement order, as TFLM's list inserts after them).
 */
function referenceGreedy(requests: readonly BufferRequest[]): number[] {
  const placed: { offset: number; r: BufferRequest; k: number }[] = [];
  const offsets = requests.map(() => -1);
  referenceOrder(requests).forEach((id, k) => {
    const r = requests[id] as BufferRequest;
    let offset = r.offlineOffsetBytes;
    if (offset === null) {
      const live = placed
        .filter((p) => !(p.r.firstStep > r.lastStep) && !(r.firstStep > p.r.lastStep))
        .sort((a, b) => a.offset - b.offset || a.k - b.k);
      let candidate = 0;
      for (const p of live) {
        if (p.offset - candidate >= r.sizeBytes) break;
        candidate = Math.max(candidate, p.offset + p.r.sizeBytes);
      }
      offset = k === 0 ? 0 : candidate;
    }
    offsets[id] = offset;
    placed.push({ offset, r, k });
  });
  return offsets;
}

/** TFLM's placement order read plainly: offline buffers in add order, then the online ones in
 * reverse add order, stably sorted by size, largest first (Array.prototype.sort is stable). */
function referenceOrder(requests: readonly BufferRequest[]): number[] {
  const ids = requests.map((_, i) => i);
  const online = ids.filter((i) => requests[i]?.offlineOffsetBytes === null).reverse();
  online.sort((a, b) => (requests[b]?.sizeBytes ?? 0) - (requests[a]?.sizeBytes ?? 0));
  return [...ids.filter((i) => requests[i]?.offlineOffsetBytes !== null), ...online];
}

describe('planGreedy against the plain reference', () => {
  it('orders buffers as the plain stable sort does, sizes past 2^32 too (packed sort keys stop there)', () => {
    const rng = seedrandom('greedy-order');
    const int = (n: number): number => Math.floor(rng() * n);
    for (let c = 0; c < 200; c++) {
      const huge = c % 4 === 3;
      const requests = Array.from({ length: 1 + int(60) }, (_, id) => req(id, huge && int(3) === 0 ? 2 ** 33 + 16 * int(3) : 16 * int(c % 2 === 0 ? 3 : 40), 0, 0, int(6) === 0 ? 16 * id : null));
      expect(greedyPlacementOrder(requests), `case ${c}`).toEqual(referenceOrder(requests));
    }
  });

  it('gives the same offsets on 300 seeded random buffer lists (lifetimes, sizes, ties, offline buffers)', () => {
    const rng = seedrandom('greedy-reference');
    const int = (n: number): number => Math.floor(rng() * n);
    for (let c = 0; c < 300; c++) {
      const steps = 1 + int(12);
      const count = 1 + int(40);
      const requests: BufferRequest[] = Array.from({ length: count }, (_, id) => {
        const first = int(steps);
        const offline = c % 3 === 0 && int(5) === 0 ? 16 * int(20) : null;
        return req(id, 16 * (1 + int(c % 2 === 0 ? 4 : 64)), first, first + int(steps - first), offline);
      });
      const plan = planGreedy(requests);
      expect(plan.offsets, `case ${c}`).toEqual(referenceGreedy(requests));
    }
  });
});
