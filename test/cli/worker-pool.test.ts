// The CLI's worker pool (src/cli/worker-pool.ts) injected into the searches of issue 15: the tiling
// pass, `auto` and the TinySeg spill sweep give JSON identical to the library's serial evaluator
// with 2 threads sharing every batch (time budgets high enough that no search is cut short),
// `sweep --jobs 1` and `--jobs 2` print the same document, a candidate failing in the workers is
// thrown once as the same coded error, and a bad --jobs is a usage error. By default the pool
// starts workers only once a search proves long and shares a batch only when its rest is worth a
// worker's cold start (worthSharing): short batches stay on this thread, a long one is shared, with
// the same results. Workers run dist/ (built by the global setup).
import { describe, expect, it } from 'vitest';
import { KernelError, buildZooModel } from '../../src/ir/index.ts';
import type { CandidateEvaluator } from '../../src/optimizer/index.ts';
import { autoPass, serialEvaluator, sweepPartialSpill, tilingPass } from '../../src/optimizer/index.ts';
import { SHARE_COLD_FACTOR, SHARE_MIN_MS, START_AFTER_MS, openEvaluatorPool, worthSharing } from '../../src/cli/worker-pool.ts';
import { bothWays, breathe } from './pool-helpers.ts';
import { runMcusim } from './bin-helpers.ts';

const BIG = 3_600_000;


describe('pooled candidate evaluation: the serial result, in the same order', () => {
  it('tiling on cifar10-cnn (applies a tiling)', async () => {
    const model = buildZooModel('cifar10-cnn');
    const { serial, pooled } = await bothWays((evaluator) => tilingPass.run(model, { flags: { 'time-budget-ms': BIG }, evaluator }).report);
    expect(JSON.parse(serial).applied).toBe(true);
    expect(pooled).toBe(serial);
  }, 600_000);

  it('auto on cifar10-cnn', async () => {
    const model = buildZooModel('cifar10-cnn');
    const { serial, pooled } = await bothWays((evaluator) => autoPass.run(model, { flags: { 'auto-budget-ms': BIG }, evaluator }).report);
    expect(JSON.parse(serial).details.candidates.length).toBeGreaterThan(4);
    expect(pooled).toBe(serial);
  }, 600_000);

  it('the spill sweep on tiny-unet, library and `sweep --jobs 1` vs `--jobs 2`', async () => {
    const model = buildZooModel('tiny-unet');
    const { serial, pooled } = await bothWays((evaluator) => sweepPartialSpill(model, { steps: 4, storage: 'remote', evaluator }));
    expect(JSON.parse(serial).spillingHelps).toBe(true);
    expect(pooled).toBe(serial);
    await breathe();
    const one = (await runMcusim(['sweep', 'zoo:tiny-unet', '--steps', '3', '--json', '--jobs', '1'], 300_000));
    await breathe();
    const two = (await runMcusim(['sweep', 'zoo:tiny-unet', '--steps', '3', '--json', '--jobs', '2'], 300_000));
    expect(one.code).toBe(0);
    expect(two.stdout).toBe(one.stdout);
  }, 600_000);
});

describe('a failing candidate', () => {
  it('is thrown once, as the coded error the worker threw, and stops the batch', async () => {
    const model = buildZooModel('cifar10-cnn');
    const pool = openEvaluatorPool(3, { evaluatorModule: new URL('./fixtures/failing-evaluator.mjs', import.meta.url), shareAlways: true });
    const thrown: unknown[] = [];
    try {
      pool.waitReady();
      tilingPass.run(model, { flags: { 'time-budget-ms': BIG }, evaluator: pool.evaluator });
    } catch (e) {
      thrown.push(e);
    } finally {
      void pool.close();
    }
    expect(thrown).toHaveLength(1);
    expect(thrown[0]).toBeInstanceOf(KernelError);
    expect((thrown[0] as KernelError).code).toBe('E_KERNEL_CONSTRAINT');
    expect((thrown[0] as Error).message).toBe('injected candidate failure in a worker');
    // The search stopped at the failing batch (an unfailing run pools about two dozen).
    expect(pool.stats().batches).toBeLessThan(5);
  }, 600_000);

  it('--jobs must be a positive integer (optimize, sweep)', async () => {
    const o = (await runMcusim(['optimize', 'zoo:tiny-unet', '-o', '/dev/null', '--passes', 'tiling', '--jobs', '0']));
    expect(o.code).toBe(2);
    expect(o.stderr).toMatch(/^E_USAGE: --jobs/);
    const s = (await runMcusim(['sweep', 'zoo:tiny-unet', '--jobs', 'x']));
    expect(s.code).toBe(2);
    expect(s.stderr).toMatch(/^E_USAGE: --jobs/);
  });
});

describe('when the pool shares a batch', () => {
  const times = (firstMs: number, latestMs: number, count = 2): { count: number; firstMs: number; latestMs: number } => ({ count, firstMs, latestMs });

  it('never on one measured item, nor with nothing left', () => {
    expect(worthSharing(100, undefined, false)).toBe(false);
    expect(worthSharing(100, times(50, 50, 1), true)).toBe(false);
    expect(worthSharing(0, times(50, 50), true)).toBe(false);
  });

  it('to warm workers, once the rest is estimated at SHARE_MIN_MS', () => {
    expect(worthSharing(10, times(200, SHARE_MIN_MS / 10), true)).toBe(true);
    expect(worthSharing(9, times(200, SHARE_MIN_MS / 10), true)).toBe(false);
  });

  it('to cold workers, only when the rest is SHARE_COLD_FACTOR times the cold start (first item less the latest)', () => {
    // zoo:tiny-unet's sweep: latency points of ~100 ms after a cold first of ~200 ms.
    const enough = Math.ceil((SHARE_COLD_FACTOR * (200 - 104)) / 104);
    expect(enough).toBeGreaterThan(1);
    expect(worthSharing(enough, times(200, 104), false)).toBe(true);
    expect(worthSharing(enough - 1, times(200, 104), false)).toBe(false);
    // A kind whose first item is no slower than the rest: SHARE_MIN_MS is the bar.
    expect(worthSharing(3, times(5, 10), false)).toBe(true);
    expect(worthSharing(1, times(5, 10), false)).toBe(false);
  });
});

describe('the default pool, adaptive', () => {
  const fixture = new URL('./fixtures/sleeping-evaluator.mjs', import.meta.url);
  const items = (n: number, ms: number): { ms: number; v: number }[] => Array.from({ length: n }, (_, v) => ({ ms, v }));

  it('keeps short searches on this thread and shares a long batch, with the same results', async () => {
    const { sleepThenDouble } = (await import(fixture.href)) as { sleepThenDouble: (c: unknown, i: { ms: number; v: number }) => number };
    const pool = openEvaluatorPool(2, { evaluatorModule: fixture });
    try {
      // Batches adding up to less than START_AFTER_MS: no worker starts, nothing is shared.
      const short = items(5, 2);
      for (let b = 0; b < 3; b++) expect(pool.evaluator.map('sweep-split', sleepThenDouble, {}, short)).toEqual(short.map((x) => x.v * 2));
      expect(pool.stats().workerItems).toBe(0);
      // A long batch: this thread's time passes START_AFTER_MS, the workers start, and the rest
      // (dozens of equal items, no cold start) is shared.
      const long = items(Math.ceil((6 * START_AFTER_MS) / 20), 20);
      expect(pool.evaluator.map('sweep-split', sleepThenDouble, {}, long)).toEqual(long.map((x) => x.v * 2));
      expect(pool.stats().workerItems).toBeGreaterThan(0);
    } finally {
      void pool.close();
    }
  }, 120_000);
});
