// planExact: never above tflm-greedy, proven optimal on up to 30 buffers, equal to an exhaustive
// search on tiny sets, fixed offline offsets kept, and strictly better on MobileNet v1 0.25.
import { readFileSync } from 'node:fs';
import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import { buildZooModel, importTflite, listZooModels } from '../../../src/ir/index.ts';
import type { Model } from '../../../src/ir/index.ts';
import { computeModelBufferRequests, planBuffers, planExact, planGreedy, verifyPlan } from '../../../src/optimizer/index.ts';
import type { BufferRequest } from '../../../src/optimizer/index.ts';
import { itWithData } from '../../oracle-paths.ts';
import { ORACLE_MODELS, oracleModelNames, req } from '../helpers.ts';

function randomRequests(seed: string, n: number, steps: number): BufferRequest[] {
  const rng = seedrandom(seed);
  return Array.from({ length: n }, (_, i) => {
    const first = Math.floor(rng() * steps);
    return req(i, 16 * (1 + Math.floor(rng() * 40)), first, Math.min(steps, first + Math.floor(rng() * 6)));
  });
}

/** Exhaustive: every placement order with first fit (some order reproduces any optimum). */
function bruteForcePeak(rs: readonly BufferRequest[]): number {
  let best = Infinity;
  const offsets = rs.map(() => 0);
  const placed: number[] = [];
  const live = (a: BufferRequest, b: BufferRequest): boolean => a.firstStep <= b.lastStep && b.firstStep <= a.lastStep;
  const rec = (): void => {
    if (placed.length === rs.length) {
      best = Math.min(best, Math.max(0, ...rs.map((r, i) => (offsets[i] ?? 0) + r.sizeBytes)));
      return;
    }
    rs.forEach((r, j) => {
      if (placed.includes(j)) return;
      const others = placed.filter((i) => live(rs[i] as BufferRequest, r));
      const spots = [0, ...others.map((i) => (offsets[i] ?? 0) + (rs[i]?.sizeBytes ?? 0))].sort((a, b) => a - b);
      offsets[j] = spots.find((c) => others.every((i) => (offsets[i] ?? 0) >= c + r.sizeBytes || (offsets[i] ?? 0) + (rs[i]?.sizeBytes ?? 0) <= c)) ?? 0;
      placed.push(j);
      rec();
      placed.pop();
    });
  };
  rec();
  return best;
}

const oracleModels = (): [string, Model][] => oracleModelNames().map((n) => [n, importTflite(readFileSync(`${ORACLE_MODELS}/${n}.tflite`))]);
const zooModels = (): [string, Model][] => listZooModels().map((z) => [`zoo:${z.name}`, buildZooModel(z.name)]);

/** Plans every model exactly: never above tflm-greedy, verified; how many it beats greedy on. */
function beatenOf(models: readonly [string, Model][]): number {
  let beaten = 0;
  for (const [name, model] of models) {
    const requests = computeModelBufferRequests(model);
    const plan = planExact(requests, { timeBudgetMs: 5000 });
    verifyPlan(requests, plan);
    const greedy = planGreedy(requests).peakBytes;
    expect(plan.peakBytes, name).toBeLessThanOrEqual(greedy);
    expect(plan.peakBytes, name).toBeGreaterThanOrEqual(plan.lowerBoundBytes);
    if (plan.peakBytes < greedy) beaten++;
    if (name === 'zoo:mobilenet-v1-0.25-128') expect(plan.peakBytes).toBeLessThan(greedy);
  }
  return beaten;
}

describe('planExact', () => {
  it('is never above tflm-greedy on the zoo models, verifies, and beats it on MobileNet v1 0.25', () => {
    expect(beatenOf(zooModels())).toBeGreaterThan(0);
  });

  itWithData('models', 'is never above tflm-greedy on the oracle models, and verifies', () => {
    beatenOf(oracleModels());
  });

  it('proves optimality on random sets of up to 30 buffers', () => {
    for (let k = 0; k < 12; k++) {
      const seed = `exact-${k}`;
      const rs = randomRequests(seed, 10 + 2 * k, 8 + k);
      const plan = planExact(rs, { timeBudgetMs: 60_000 });
      verifyPlan(rs, plan);
      expect(plan.proven, seed).toBe(true);
      expect(plan.peakBytes, seed).toBeLessThanOrEqual(planGreedy(rs).peakBytes);
      expect(plan.gapBytes, seed).toBe(plan.peakBytes - plan.lowerBoundBytes);
    }
  });

  it('matches an exhaustive search on tiny sets', () => {
    for (let k = 0; k < 40; k++) {
      const seed = `tiny-${k}`;
      const rs = randomRequests(seed, 3 + (k % 4), 4);
      expect(planExact(rs).peakBytes, seed).toBe(bruteForcePeak(rs));
    }
  });

  it('keeps offline offsets and proves a peak above the live-bytes bound', () => {
    // The fixed 16-byte buffer at 16 splits [0, 48): the 32-byte buffer must go to 32.
    const rs = [req(0, 16, 0, 0, 16), req(1, 32, 0, 0)];
    const plan = planExact(rs);
    expect(plan.offsets).toEqual([16, 32]);
    expect(plan).toMatchObject({ peakBytes: 64, lowerBoundBytes: 48, gapBytes: 16, proven: true });
  });

  it('falls back to the best plan so far when the search is cut, flagged unproven', () => {
    const rs = randomRequests('cut', 30, 12);
    const plan = planExact(rs, { nodeLimit: 1 });
    verifyPlan(rs, plan);
    expect(plan.peakBytes).toBeLessThanOrEqual(planGreedy(rs).peakBytes);
    if (plan.peakBytes > plan.lowerBoundBytes) expect(plan.proven).toBe(false);
  });

  it('is registered as planner "exact"', () => {
    const rs = randomRequests('reg', 8, 5);
    expect(planBuffers('exact', rs).planner).toBe('exact');
    expect(planExact([]).peakBytes).toBe(0);
  });
});
