// Pooled candidate evaluation for another kernel library than reference (issue 46 item 5): a
// context names the library (KernelNames), so a worker thread rebuilds the same registry and scores
// tiling candidates and spill-sweep points exactly as this thread does, and unlike the reference
// kernels. Through the CLI: `optimize --kernels cmsis-nn` writes the same bytes for --jobs 1 and 2,
// and the whole arena it reports is what `inspect --kernels cmsis-nn --arch cortex-m --cpu
// cortex-m7` reads from the written file. Workers run dist/ (built by the global setup).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildZooModel } from '../../src/ir/index.ts';
import { kernelRegistry } from '../../src/kernels/index.ts';
import type { CandidateEvaluator, SweepEvalContext, TilingCandidate, TilingEvalContext } from '../../src/optimizer/index.ts';
import {
  computeModelBufferRequests, criticalTensors, evaluateSweepSplit, evaluateTilingCandidate, planGreedy, proposeFdt, proposeFfmt, serialEvaluator,
} from '../../src/optimizer/index.ts';
import { getTarget, DEFAULT_TARGET_NAME } from '../../src/sim/index.ts';
import { openEvaluatorPool } from '../../src/cli/worker-pool.ts';
import { bothWays, breathe } from './pool-helpers.ts';
import { runMcusim, testTempDir } from './bin-helpers.ts';
import { ORACLE, itWithData } from '../oracle-paths.ts';

const CMSIS = { library: 'cmsis-nn', cpu: 'cortex-m7' } as const;
const tmp = testTempDir('mcusim-pool-kernels-');


describe('pooled evaluation with the cmsis-nn kernels', () => {
  it('tiling candidates of cifar10-cnn: workers score the cmsis-nn build, as this thread does', async () => {
    const model = buildZooModel('cifar10-cnn');
    const requests = computeModelBufferRequests(model, kernelRegistry('cmsis-nn', 'cortex-m7'));
    const t = criticalTensors(model.graph, requests, planGreedy(requests))[0] as number;
    const cands: TilingCandidate[] = [
      ...proposeFdt(model.graph, t).map((path) => ({ method: 'fdt' as const, path })),
      ...proposeFfmt(model.graph, t).map((path) => ({ method: 'ffmt' as const, path })),
    ];
    const ctx: TilingEvalContext = { model, arch: 'cortex-m', kernels: CMSIS };
    const { serial, pooled } = await bothWays((ev) => ev.map('tiling', evaluateTilingCandidate, ctx, cands));
    expect(pooled).toBe(serial);
    const reference = JSON.stringify(serialEvaluator.map('tiling', evaluateTilingCandidate, { model, arch: 'cortex-m' }, cands));
    expect(serial).not.toBe(reference);
  }, 300_000);

  it('spill-sweep splits of tiny-unet: the cmsis-nn peaks in the workers too', async () => {
    const model = buildZooModel('tiny-unet');
    const base: SweepEvalContext = {
      model, passFlags: {}, target: getTarget(DEFAULT_TARGET_NAME), library: 'cmsis-nn', storage: 'internal', asyncErase: false, compress: false, payloadInputs: undefined,
    };
    const ctx: SweepEvalContext = { ...base, kernels: CMSIS };
    const percents = [0, 50, 100];
    const { serial, pooled } = await bothWays((ev) => ev.map('sweep-split', evaluateSweepSplit, ctx, percents));
    expect(pooled).toBe(serial);
    // CMSIS-NN's transpose conv plans no int32 output scratch: other peaks than the reference kernels'.
    expect(serial).not.toBe(JSON.stringify(serialEvaluator.map('sweep-split', evaluateSweepSplit, base, percents)));
  }, 300_000);
});

describe('optimize --kernels cmsis-nn --jobs N', () => {
  // Budgets no search reaches (a search cut short by its budget depends on the clock and the load).
  const cases = [
    { name: 'tiling on mlperf_ic_resnet8', model: join(ORACLE, 'models-real', 'mlperf_ic_resnet8.tflite'), data: ['models-real'], passes: 'tiling', applied: false },
    { name: 'auto on zoo:tiny-unet', model: 'zoo:tiny-unet', data: [], passes: 'auto', applied: true },
  ];
  for (const c of cases) {
    itWithData(c.data, `${c.name}: the same file for --jobs 1 and 2, and the arena inspect reads from it`, async () => {
      const files: Buffer[] = [];
      const reports: { after: { arena: Record<string, number> }; kernels: string; passes: { applied: boolean }[] }[] = [];
      for (const j of ['1', '2']) {
        const out = join(tmp, `${c.passes}-j${j}.tflite`);
        const r = await runMcusim(['optimize', c.model, '--passes', c.passes, '--kernels', 'cmsis-nn', '--cpu', 'cortex-m7', '--jobs', j, '--time-budget-ms', '3600000', '--json', '-q', '-o', out]);
        expect(r.code, r.stderr).toBe(0);
        files.push(readFileSync(out));
        reports.push(JSON.parse(r.stdout));
      }
      expect(files[1]?.equals(files[0] as Buffer)).toBe(true);
      expect(reports[1]).toEqual(reports[0]);
      const rep = reports[0];
      expect(rep?.kernels).toBe('cmsis-nn');
      expect(rep?.passes[0]?.applied).toBe(c.applied);
      const i = await runMcusim(['inspect', join(tmp, `${c.passes}-j1.tflite`), '--kernels', 'cmsis-nn', '--arch', 'cortex-m', '--cpu', 'cortex-m7', '--json']);
      expect(i.code, i.stderr).toBe(0);
      const arena = JSON.parse(i.stdout).arena;
      for (const k of ['plannedBytes', 'persistentBytes', 'totalBytes']) expect(arena[k], k).toBe(rep?.after.arena[k]);
    }, 600_000);
  }

  it('--time-budget-ms must be a positive number', async () => {
    const r = await runMcusim(['optimize', 'zoo:cifar10-cnn', '-o', join(tmp, 'never.tflite'), '--passes', 'tiling', '--time-budget-ms', '0']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^E_USAGE: --time-budget-ms/);
  });
});
