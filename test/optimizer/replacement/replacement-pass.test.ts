// Replacement pass on zoo:cifar10-cnn (Sakr et al. Table III): 45,056 B -> 32,768 B of
// activations as the paper counts them; full arena including the 3,072 B input <= 35,840 B.
import { describe, expect, it } from 'vitest';
import { buildZooModel } from '../../../src/ir/index.ts';
import { computeModelBufferRequests, planBuffers, planGreedy, planReplacementGraph, replacementPass } from '../../../src/optimizer/index.ts';

describe('replacement on zoo:cifar10-cnn', () => {
  const model = buildZooModel('cifar10-cnn');
  const requests = computeModelBufferRequests(model);

  it('reproduces Table III and fits the full arena in 35,840 B', () => {
    const { plan, footprint } = planReplacementGraph(requests, model.graph);
    expect(footprint).toEqual({ cmsisBaselineBytes: 45_056, totalBufferBytes: 32_768 });
    expect(plan.peakBytes).toBeLessThanOrEqual(35_840);
    expect(planBuffers('replacement', requests, model.graph).peakBytes).toBe(plan.peakBytes);
    console.info(`cifar10-cnn: tflm-greedy ${planGreedy(requests).peakBytes} B, replacement ${plan.peakBytes} B (activations ${footprint.cmsisBaselineBytes} -> ${footprint.totalBufferBytes} B)`);
  });

  it('the pass attaches the plan and reports the paper accounting', () => {
    const r = replacementPass.run(model, { flags: {} });
    expect(r.report).toMatchObject({ pass: 'replacement', applied: true, peakBytesAfter: 35_840 });
    expect(r.report.notes.join('\n')).toMatch(/45056 B -> total buffer 32768 B/);
    expect(() => planBuffers('replacement', requests)).toThrow(expect.objectContaining({ code: 'E_USAGE' }));
  });
});
