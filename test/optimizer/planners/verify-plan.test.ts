// verifyPlan and lowerBoundBytes: collisions named and coded, allowed overlaps, malformed plans,
// and seeded random request sets through both planners.
import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import { PlanError } from '../../../src/ir/index.ts';
import { lowerBoundBytes, planGreedy, planLinear, verifyPlan } from '../../../src/optimizer/index.ts';
import type { BufferRequest, Plan } from '../../../src/optimizer/index.ts';
import { req } from '../helpers.ts';

function codeOf(f: () => void): string | undefined {
  try {
    f();
  } catch (e) {
    return e instanceof PlanError ? e.code : `not a PlanError: ${String(e)}`;
  }
  return undefined;
}

/** Random sizes and lifetimes; ~10% offline buffers stacked at disjoint offsets (as a valid offline plan is). */
function randomRequests(rng: seedrandom.PRNG): BufferRequest[] {
  const n = 1 + Math.floor(rng() * 40);
  const steps = 1 + Math.floor(rng() * 20);
  let offlineTop = 16 * Math.floor(rng() * 8);
  return Array.from({ length: n }, (_, id) => {
    const a = Math.floor(rng() * steps);
    const b = a + Math.floor(rng() * 5);
    const size = 16 * Math.floor(rng() * 64);
    if (rng() >= 0.1) return req(id, size, a, b);
    const offset = offlineTop;
    offlineTop += size + 16 * Math.floor(rng() * 4);
    return req(id, size, a, b, offset);
  });
}

describe('verifyPlan', () => {
  const requests = [req(0, 32, 0, 1), req(1, 32, 1, 2), req(2, 16, 2, 3)];

  it('accepts a valid plan and rejects a shifted one naming both buffers', () => {
    const plan = planGreedy(requests);
    expect(() => verifyPlan(requests, plan)).not.toThrow();
    const shifted: Plan = { ...plan, offsets: [0, 16, 64], peakBytes: 80 };
    expect(codeOf(() => verifyPlan(requests, shifted))).toBe('E_PLAN_OVERLAP');
    expect(() => verifyPlan(requests, shifted)).toThrow(/buffer 0 'b0' and buffer 1 'b1'.*step 1.*\[16, 32\)/);
  });

  it('ignores byte overlap between buffers that are never live together', () => {
    expect(() => verifyPlan(requests, { planner: 't', offsets: [0, 32, 0], peakBytes: 64 })).not.toThrow();
  });

  it('allows exactly the overlap a request declares', () => {
    const withOverlap: BufferRequest[] = [req(0, 32, 0, 1), { ...req(1, 32, 1, 2), allowedOverlap: [{ withId: 0, bytes: 16 }] }];
    expect(() => verifyPlan(withOverlap, { planner: 't', offsets: [0, 16], peakBytes: 48 })).not.toThrow();
    expect(codeOf(() => verifyPlan(withOverlap, { planner: 't', offsets: [0, 8], peakBytes: 48 }))).toBe('E_PLAN_OVERLAP');
  });

  it('rejects malformed plans', () => {
    expect(codeOf(() => verifyPlan(requests, { planner: 't', offsets: [0, 32], peakBytes: 64 }))).toBe('E_PLAN_INVALID');
    expect(codeOf(() => verifyPlan(requests, { planner: 't', offsets: [0, 32, -16], peakBytes: 64 }))).toBe('E_PLAN_INVALID');
    expect(codeOf(() => verifyPlan(requests, { planner: 't', offsets: [0, 32, 64], peakBytes: 64 }))).toBe('E_PLAN_INVALID');
  });

  it('lowerBoundBytes is the largest sum of sizes live at one step', () => {
    expect(lowerBoundBytes(requests)).toBe(64);
    expect(lowerBoundBytes([req(0, 16, 0, 0), req(1, 32, 1, 1)])).toBe(32);
    expect(lowerBoundBytes([])).toBe(0);
  });

  it('greedy and linear plans of random requests always verify and never beat the lower bound', () => {
    for (let seed = 1; seed <= 300; seed++) {
      const rng = seedrandom(`plan-${seed}`);
      const rs = randomRequests(rng);
      const lb = lowerBoundBytes(rs);
      for (const plan of [planGreedy(rs), planLinear(rs)]) {
        try {
          verifyPlan(rs, plan);
          expect(plan.peakBytes).toBeGreaterThanOrEqual(lb);
        } catch (e) {
          throw new Error(`seed plan-${seed}, planner ${plan.planner}: ${String(e)}`);
        }
      }
    }
  });
});
