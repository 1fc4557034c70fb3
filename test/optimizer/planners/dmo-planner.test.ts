// DMO planner (DMO paper §II-D, §IV): every variant verifies with the orientation rule, the
// best is never worse than tflm-greedy, and the overlap saves what the paper says it saves.
import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import { planGreedy, lowerBoundBytes, planDmo, planDmoDetailed, verifyPlanWithOverlaps } from '../../../src/optimizer/planners/index.ts';
import type { BufferRequest, SafeOverlapPair } from '../../../src/optimizer/planners/index.ts';
import { req } from '../helpers.ts';

describe('planDmo', () => {
  it('overlaps a dying input with its output by O_s (MobileNet v1 0.25: 32 KB -> conv -> 64 KB -> depthwise -> 16 KB)', () => {
    const requests = [req(0, 32768, 0, 1), req(1, 65536, 1, 2), req(2, 16384, 2, 3)];
    const overlaps: SafeOverlapPair[] = [
      { inputId: 0, outputId: 1, safeOverlapBytes: 32000 },
      { inputId: 1, outputId: 2, safeOverlapBytes: 16384 },
    ];
    expect(planGreedy(requests).peakBytes).toBe(98304);
    const result = planDmoDetailed(requests, overlaps);
    // Input placed at alignUp(65536 - 32000) = 33536, ending at 66304.
    expect(result.plan.peakBytes).toBe(66304);
    expect(result.plan.offsets[0]).toBe(33536);
  });

  it('rejects an input placed below outputEnd - O_s, and a bad pair, with codes', () => {
    const requests = [req(0, 64, 0, 1), req(1, 64, 1, 2)];
    const overlaps = [{ inputId: 0, outputId: 1, safeOverlapBytes: 32 }];
    verifyPlanWithOverlaps(requests, { planner: 't', offsets: [32, 0], peakBytes: 96 }, overlaps);
    expect(() => verifyPlanWithOverlaps(requests, { planner: 't', offsets: [16, 0], peakBytes: 96 }, overlaps)).toThrow(
      expect.objectContaining({ code: 'E_PLAN_OVERLAP' }),
    );
    // Same byte count shared, wrong orientation (input end over output start).
    expect(() => verifyPlanWithOverlaps(requests, { planner: 't', offsets: [0, 32], peakBytes: 96 }, overlaps)).toThrow(
      expect.objectContaining({ code: 'E_PLAN_OVERLAP' }),
    );
    expect(() => planDmo(requests, [{ inputId: 0, outputId: 7, safeOverlapBytes: 1 }])).toThrow(expect.objectContaining({ code: 'E_PLAN_INVALID' }));
  });

  it('on seeded random request sets: verifies, never worse than tflm-greedy, never below the lower bound', () => {
    const seed = 'dmo-random';
    const rng = seedrandom(seed);
    let greedySum = 0;
    let dmoSum = 0;
    let noOverlapSum = 0;
    const wins: Record<string, number> = {};
    for (let trial = 0; trial < 300; trial++) {
      const n = 2 + Math.floor(rng() * 14);
      const steps = 2 + Math.floor(rng() * 10);
      const requests: BufferRequest[] = [];
      for (let i = 0; i < n; i++) {
        const first = Math.floor(rng() * steps);
        const last = Math.min(steps, first + Math.floor(rng() * 4));
        requests.push(req(i, 16 * (1 + Math.floor(rng() * 64)), first, last));
      }
      const overlaps: SafeOverlapPair[] = [];
      const used = new Set<number>();
      for (const a of requests) {
        const b = requests.find((x) => x.firstStep === a.lastStep && x.id !== a.id && !used.has(x.id));
        if (b && !used.has(a.id) && rng() < 0.7) {
          used.add(a.id).add(b.id);
          overlaps.push({ inputId: a.id, outputId: b.id, safeOverlapBytes: Math.floor(rng() * (b.sizeBytes + 1)) });
        }
      }
      const where = `seed ${seed} trial ${trial}`;
      const result = planDmoDetailed(requests, overlaps);
      verifyPlanWithOverlaps(requests, result.plan, overlaps);
      const greedy = planGreedy(requests).peakBytes;
      const plainDmo = planDmo(requests, []).peakBytes;
      expect(result.plan.peakBytes, where).toBeLessThanOrEqual(greedy);
      if (overlaps.length === 0) expect(result.plan.peakBytes, where).toBeGreaterThanOrEqual(lowerBoundBytes(requests));
      greedySum += greedy;
      dmoSum += result.plan.peakBytes;
      noOverlapSum += plainDmo;
      wins[result.variant] = (wins[result.variant] ?? 0) + 1;
    }
    console.info(`dmo vs greedy: ${(dmoSum / greedySum).toFixed(3)}; heap order without overlaps vs greedy: ${(noOverlapSum / greedySum).toFixed(3)}; winners ${JSON.stringify(wins)}`);
  });
});
