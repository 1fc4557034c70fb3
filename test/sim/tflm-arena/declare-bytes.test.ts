// The arena to declare (sim/tflm-arena/declare-bytes.ts): SingleArenaBufferAllocator's checks on
// hand-made event logs (each failure mode at its boundary), and on real models: declareBytes is
// the smallest N whose replay passes, never below arena_used_bytes by more than the tail's first
// alignment, and the start alignment only ever raises it.
import { describe, expect, it } from 'vitest';
import { buildZooModel } from '../../../src/ir/index.ts';
import { computeModelBufferRequests, planGreedy } from '../../../src/optimizer/index.ts';
import { CORTEX_M, GREEDY_PLANNER_BYTES_PER_BUFFER, declareBytes, modelArenaEvents, replayArena, runtimeArena } from '../../../src/sim/index.ts';
import type { ArenaEvent } from '../../../src/sim/index.ts';
import { kernelRegistry } from '../../../src/kernels/index.ts';

const P = (sizeBytes: number, alignBytes = 4): ArenaEvent => ({ kind: 'persistent', sizeBytes, alignBytes });

describe('replayArena', () => {
  it('places tail blocks down from the arena end: the alignment waste, hence the size needed, depends on N mod 16', () => {
    const events = [P(36), P(16, 16), { kind: 'overlay' } as const];
    const plan = { plannedBytes: 64, bufferCount: 1 };
    // A 16-aligned end (N = 128): 36 B at 92, the 16-aligned block at 64 (12 B wasted), 64 B planned below.
    expect(replayArena(events, plan, 128)).toBeNull();
    // N = 116: 36 B at 80, the block at 64 with no waste: 12 B less than the aligned end needs.
    expect(replayArena(events, plan, 116)).toBeNull();
    // N = 115: 36 B at 76 (aligned down), the block at 48: the planned head no longer fits.
    expect(replayArena(events, plan, 115)).toMatch(/planned head/);
    expect(declareBytes(events, plan, 128)).toBe(116);
  });

  it('needs 40 B of planner scratch per buffer while the plan is made, beside the temp arrays', () => {
    const events: ArenaEvent[] = [P(32), { kind: 'temp', sizeBytes: 24 * 3, alignBytes: 4 }, { kind: 'plan' }, { kind: 'resetTemp' }, { kind: 'overlay' }];
    const plan = { plannedBytes: 16, bufferCount: 3 };
    // temp 72 B, from 80 (16-aligned) to the tail aligned down to 16: 3 x 40 = 120 B needs a tail at 208.
    expect(replayArena(events, plan, 240)).toBeNull();
    expect(replayArena(events, plan, 239)).toMatch(/too many buffers for the planner \(3, max 2\)/);
    expect(declareBytes(events, plan, 48)).toBe(240);
    expect(GREEDY_PLANNER_BYTES_PER_BUFFER).toBe(40);
  });

  it('checks temp blocks against the tail and the head array against the tail', () => {
    const head: ArenaEvent[] = [P(8), { kind: 'resizeHead', sizeBytes: 144, alignBytes: 4 }];
    expect(replayArena(head, { plannedBytes: 0, bufferCount: 0 }, 152)).toBeNull();
    expect(replayArena(head, { plannedBytes: 0, bufferCount: 0 }, 151)).toMatch(/request array/);
    const temp: ArenaEvent[] = [P(8), { kind: 'temp', sizeBytes: 100, alignBytes: 4 }];
    expect(replayArena(temp, { plannedBytes: 0, bufferCount: 0 }, 108)).toBeNull();
    expect(replayArena(temp, { plannedBytes: 0, bufferCount: 0 }, 107)).toMatch(/temp/);
  });
});

describe('declareBytes on models', () => {
  const cases = [
    { name: 'cifar10-cnn', registry: kernelRegistry('reference') },
    { name: 'ds-cnn-kws', registry: kernelRegistry('cmsis-nn', 'cortex-m7') },
    { name: 'mobilenet-v1-0.25-128', registry: kernelRegistry('cmsis-nn', 'cortex-m7') },
  ];
  for (const c of cases) {
    it(`${c.name} (${c.registry.library}): the smallest N that passes, and a start aligned to less than 16 costs bytes`, () => {
      const model = buildZooModel(c.name);
      const requests = computeModelBufferRequests(model, c.registry);
      const plan = { plannedBytes: planGreedy(requests).peakBytes, bufferCount: requests.length };
      const r = runtimeArena(model.graph, plan, CORTEX_M, 'tflm', { registry: c.registry });
      const events = modelArenaEvents(model.graph, CORTEX_M, null, c.registry);
      expect(replayArena(events, plan, r.declareBytes)).toBeNull();
      for (let n = r.declareBytes - 1; n >= r.declareBytes - 40; n--) expect(replayArena(events, plan, n), `N = ${n}`).not.toBeNull();
      expect(r.declareBytes).toBeGreaterThanOrEqual(r.totalBytes - 15);
      // arena_used_bytes is what a 16-aligned end leaves: the replay at that size agrees with it or fails.
      const at4 = declareBytes(events, plan, r.totalBytes, 4);
      expect(at4).toBeGreaterThanOrEqual(r.declareBytes);
      for (const s of [0, 4, 8, 12]) expect(replayArena(events, plan, at4, s), `start +${s}`).toBeNull();
    });
  }
});
