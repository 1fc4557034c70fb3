// End to end against TFLM: import each oracle model, compute TFLM's buffer requests (lifetimes
// and scratch sizes included) and plan them greedily; every buffer must match meta.json.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { PlanError, importTflite } from '../../../src/ir/index.ts';
import { computeModelBufferRequests, planGreedy, verifyPlan } from '../../../src/optimizer/index.ts';
import { describeWithData } from '../../oracle-paths.ts';
import { ORACLE_MODELS, oracleMeta, oracleModelNames } from '../helpers.ts';

describeWithData('models', 'TFLM memory plans of the oracle models', () => {
  for (const name of oracleModelNames()) {
    it(`${name}: same buffers, lifetimes, offsets and peak as TFLM`, () => {
      const meta = oracleMeta(name);
      const model = importTflite(new Uint8Array(readFileSync(join(ORACLE_MODELS, `${name}.tflite`))));
      const requests = computeModelBufferRequests(model);
      const plan = planGreedy(requests);
      const got = requests.map((r, i) => ({
        kind: r.tensor === null ? 'scratch' : 'tensor',
        index: r.tensor ?? r.scratchIndex,
        offset: plan.offsets[i],
        size: r.sizeBytes,
        first: r.firstStep,
        last: r.lastStep,
      }));
      const want = meta.memory_plan.map((e) => ({
        kind: e.kind,
        index: e.kind === 'tensor' ? e.tensor_index : e.scratch_index,
        offset: e.offset,
        size: e.size,
        first: e.first_time_used,
        last: e.last_time_used,
      }));
      expect(got).toEqual(want);
      expect(plan.peakBytes).toBe(meta.planner_max_memory_bytes);
      verifyPlan(requests, plan);

      // Move one buffer onto a neighbour it is live with: verifyPlan must object.
      const collision = requests.findIndex((a, i) =>
        requests.some((b, j) => j !== i && a.firstStep <= b.lastStep && b.firstStep <= a.lastStep && a.sizeBytes > 0 && b.sizeBytes > 0),
      );
      if (collision >= 0) {
        const a = requests[collision]!;
        const b = requests.find((x, j) => j !== collision && a.firstStep <= x.lastStep && x.firstStep <= a.lastStep && x.sizeBytes > 0)!;
        const offsets = [...plan.offsets];
        offsets[collision] = plan.offsets[b.id]!;
        const shifted = { ...plan, offsets, peakBytes: plan.peakBytes + a.sizeBytes };
        expect(() => verifyPlan(requests, shifted)).toThrow(PlanError);
        try {
          verifyPlan(requests, shifted);
        } catch (e) {
          expect((e as PlanError).code).toBe('E_PLAN_OVERLAP');
        }
      }
    });
  }
});
