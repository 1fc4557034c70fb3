// Replacement strategy (Sakr et al. §IV-V): the CIFAR-10 CNN of Table II gives Table III's
// 45,056 B -> 32,768 B of activations; the full arena adds the 3,072 B input image.
import { describe, expect, it } from 'vitest';
import type { BufferRequest } from '../../../src/optimizer/planners/index.ts';
import { planGreedy } from '../../../src/optimizer/planners/index.ts';
import { planReplacement, replacementFootprint } from '../../../src/optimizer/replacement/index.ts';
import type { ReplacementOp } from '../../../src/optimizer/replacement/index.ts';
import { req } from '../helpers.ts';

/** Table II chain with TFLM lifetimes (graph input at step 0, op i at step i+1). */
function cifar10(): { requests: BufferRequest[]; ops: ReplacementOp[] } {
  const sizes = [32 * 32 * 3, 32 * 32 * 32, 16 * 16 * 32, 16 * 16 * 32, 8 * 8 * 32, 8 * 8 * 64, 4 * 4 * 64, 16];
  const kinds = ['conv2d', 'maxPool2d', 'conv2d', 'maxPool2d', 'conv2d', 'maxPool2d', 'fullyConnected'] as const;
  const requests = sizes.map((s, i) => req(i, s, i, Math.min(i + 1, kinds.length)));
  const ops = kinds.map((kind, i) => ({ kind, inputIds: [i], outputIds: [i + 1] }));
  return { requests, ops };
}

describe('planReplacement', () => {
  it('reproduces Table III for the CIFAR-10 CNN', () => {
    const { requests, ops } = cifar10();
    const fp = replacementFootprint(requests, ops);
    expect(fp.cmsisBaselineBytes).toBe(45_056);
    expect(fp.totalBufferBytes).toBe(32_768);
    const plan = planReplacement(requests, ops);
    // Paper's layout: conv1 at 0, pools at 0, conv outputs right after their pooled input.
    expect(plan.offsets).toEqual([32768, 0, 0, 8192, 0, 2048, 0, 1024]);
    expect(plan.peakBytes).toBe(32_768 + 3_072);
    console.info(`cifar10: CMSIS ${fp.cmsisBaselineBytes} B -> replacement ${fp.totalBufferBytes} B; arena incl. input ${plan.peakBytes} B (greedy ${planGreedy(requests).peakBytes} B)`);
  });

  it('keeps a pooled input that is read later out of the way', () => {
    const requests = [req(0, 64, 0, 2), req(1, 32, 1, 2), req(2, 16, 2, 3)];
    const plan = planReplacement(requests, [
      { kind: 'maxPool2d', inputIds: [0], outputIds: [1] },
      { kind: 'add', inputIds: [0, 1], outputIds: [2] },
    ]);
    const [a = 0, b = 0] = plan.offsets;
    expect(a + 64 <= b || b + 32 <= a).toBe(true);
  });
});
