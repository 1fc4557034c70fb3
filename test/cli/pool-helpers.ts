// Shared by the worker-pool tests: run a search with the serial evaluator and with a 2-thread pool
// that shares every batch, giving the JSON of each (pooled must equal serial).
import { expect } from 'vitest';
import type { CandidateEvaluator } from '../../src/optimizer/index.ts';
import { serialEvaluator } from '../../src/optimizer/index.ts';
import { openEvaluatorPool } from '../../src/cli/worker-pool.ts';

/** Back to the event loop between long synchronous runs (vitest's RPC times out otherwise). */
export const breathe = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** The JSON of `run` with the serial evaluator and with a 2-thread pool. */
export async function bothWays(run: (evaluator: CandidateEvaluator) => unknown): Promise<{ serial: string; pooled: string }> {
  const serial = JSON.stringify(run(serialEvaluator));
  await breathe();
  const pool = openEvaluatorPool(2, { shareAlways: true });
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
