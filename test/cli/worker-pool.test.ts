// The CLI's worker pool (src/cli/worker-pool.ts) injected into the searches of issue 15: the tiling
// pass, `auto` and the TinySeg spill sweep give JSON identical to the library's serial evaluator
// with 2 threads (time budgets high enough that no search is cut short), `sweep --jobs 1` and
// `--jobs 2` print the same document, a candidate failing in the workers is thrown once as the
// same coded error, and a bad --jobs is a usage error. Workers run dist/ (built by the global setup).
import { describe, expect, it } from 'vitest';
import { KernelError, buildZooModel } from '../../src/ir/index.ts';
import type { CandidateEvaluator } from '../../src/optimizer/index.ts';
import { autoPass, serialEvaluator, sweepPartialSpill, tilingPass } from '../../src/optimizer/index.ts';
import { openEvaluatorPool } from '../../src/cli/worker-pool.ts';
import { runMcusim } from './bin-helpers.ts';

const BIG = 3_600_000;

/** Back to the event loop between long synchronous runs (vitest's RPC times out otherwise). */
const breathe = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** The JSON of `run` with the serial evaluator and with a 2-thread pool. */
async function bothWays(run: (evaluator: CandidateEvaluator) => unknown): Promise<{ serial: string; pooled: string }> {
  const serial = JSON.stringify(run(serialEvaluator));
  await breathe();
  const pool = openEvaluatorPool(2);
  try {
    pool.waitReady();
    await breathe();
    const pooled = JSON.stringify(run(pool.evaluator));
    // The worker took part: some candidates came back from it.
    expect(pool.stats().workerItems).toBeGreaterThan(0);
    return { serial, pooled };
  } finally {
    void pool.close();
  }
}

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
    const pool = openEvaluatorPool(3, { evaluatorModule: new URL('./fixtures/failing-evaluator.mjs', import.meta.url) });
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
