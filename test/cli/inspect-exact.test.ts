// `mcusim inspect --planner exact [--budget-ms N]`: the plan carries `proven` and `gapBytes`
// next to the unchanged JSON contract fields; other planners do not; bad budgets exit 2.
import { describe, expect, it } from 'vitest';
import type { BinRun } from './bin-helpers.ts';
import { runMcusim } from './bin-helpers.ts';
import { inspectModel } from '../../src/api/index.ts';
import { buildZooModel } from '../../src/ir/index.ts';

const mcusim = (...args: string[]): Promise<BinRun> => runMcusim(args);

describe('inspect --planner exact', () => {
  it('reports proven and gapBytes with the contract fields, never above tflm-greedy', async () => {
    const model = buildZooModel('cifar10-cnn');
    const greedy = inspectModel(model, 'tflm-greedy').report.plan;
    const exact = inspectModel(model, 'exact', { timeBudgetMs: 2000 }).report.plan;
    expect(greedy.proven).toBeUndefined();
    expect(greedy.gapBytes).toBeUndefined();
    expect(exact.planner).toBe('exact');
    expect(exact.buffers.length).toBe(greedy.buffers.length);
    expect(exact.peakBytes).toBeLessThanOrEqual(greedy.peakBytes);
    expect(exact.lowerBoundBytes).toBeLessThanOrEqual(exact.peakBytes);
    expect(typeof exact.proven).toBe('boolean');
    expect(exact.gapBytes).toBeGreaterThanOrEqual(0);
    // 10 buffers: the search always finishes, so the plan is proven minimal.
    expect(exact.proven).toBe(true);
    expect(exact.gapBytes).toBe(exact.peakBytes - exact.lowerBoundBytes);
  });

  it('prints proven and gap in the text summary and the JSON document', async () => {
    const text = (await mcusim('inspect', 'zoo:cifar10-cnn', '--planner', 'exact', '--budget-ms', '500', '--ascii'));
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^proven: +yes/m);
    expect(text.stdout).toMatch(/^gap: +\d+ B/m);
    const json = (await mcusim('inspect', 'zoo:cifar10-cnn', '--planner', 'exact', '--budget-ms', '500', '--json'));
    expect(json.code).toBe(0);
    const plan = JSON.parse(json.stdout).plan;
    expect(plan).toEqual(expect.objectContaining({ planner: 'exact', proven: true, gapBytes: expect.any(Number), peakBytes: expect.any(Number), lowerBoundBytes: expect.any(Number) }));
  });

  it('rejects a bad budget and a budget for a non-searching planner with E_USAGE', async () => {
    for (const args of [
      ['--planner', 'exact', '--budget-ms', '0'],
      ['--planner', 'exact', '--budget-ms', 'soon'],
      ['--planner', 'tflm-greedy', '--budget-ms', '100'],
    ]) {
      const r = (await mcusim('inspect', 'zoo:cifar10-cnn', ...args, '--json'));
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/^E_USAGE: /);
    }
  });
});
