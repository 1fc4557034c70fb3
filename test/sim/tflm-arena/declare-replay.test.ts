// The arena to declare against a real build (testdata/real-builds/declare: TFLM 90b983c + CMSIS-NN
// 4ab83cc3 on a Cortex-M7 under QEMU, arena sizes N tried at a given start offset, each accepted or
// refused): for every recorded file, mcusim's replay of TFLM's allocator accepts and refuses the same
// N at the same start, and for a 16-aligned start declareBytes is the smallest N the build accepted.
// Files of other projects are read from the oracle folder (skipped with a note when absent).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadModel, optimizeWithReport, zooModel } from '../../../src/api/index.ts';
import type { Model } from '../../../src/ir/index.ts';
import { exportTflite, readOfflinePlan } from '../../../src/ir/index.ts';
import { kernelRegistry } from '../../../src/kernels/index.ts';
import { computeModelBufferRequests, planGreedy } from '../../../src/optimizer/index.ts';
import { CORTEX_M, modelArenaEvents, replayArena, runsGeneratedKernel, runtimeArena } from '../../../src/sim/index.ts';
import { ORACLE, TESTDATA, itWithData } from '../../oracle-paths.ts';

interface Recorded {
  readonly model: string;
  readonly optimize?: { readonly passes: string; readonly kernels: 'cmsis-nn'; readonly cpu: string; readonly runtime: 'tflm'; readonly arch: 'cortex-m' };
  readonly sha256: string;
  readonly startOffset: number;
  readonly runs: readonly { readonly n: number; readonly ok: boolean }[];
}

const DATA = JSON.parse(readFileSync(join(TESTDATA, 'real-builds', 'declare', 'arena-sizes.json'), 'utf8')) as { readonly runs: readonly Recorded[] };
const REGISTRY = kernelRegistry('cmsis-nn', 'cortex-m7');
const sha = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

/** The file that ran: the zoo model or the oracle's, optimized as recorded. */
function fileOf(r: Recorded): Uint8Array {
  const zoo = r.model.startsWith('zoo:');
  const file = zoo ? null : new Uint8Array(readFileSync(join(ORACLE, r.model)));
  const original: Model = file === null ? zooModel(r.model.slice(4)) : loadModel(file, r.model);
  if (r.optimize === undefined) return file ?? exportTflite(original);
  const o = r.optimize;
  const run = optimizeWithReport(original, o.passes.split(','), { kernels: o.kernels, cpu: o.cpu, runtime: o.runtime, arch: o.arch });
  if (run.bytes === null) throw new Error(`${r.model} --passes ${o.passes}: refused (${run.report.refused ?? ''})`);
  return run.bytes;
}

describe('declareBytes against the real TFLM + CMSIS-NN Cortex-M7 build', () => {
  it('holds files of every kind (models, optimized files with and without mcusim ops, unaligned starts)', () => {
    expect(DATA.runs.length).toBeGreaterThanOrEqual(20);
    expect(DATA.runs.some((r) => r.optimize !== undefined)).toBe(true);
    expect(DATA.runs.some((r) => r.startOffset !== 0)).toBe(true);
    for (const r of DATA.runs) expect(r.runs.some((x) => x.ok) && r.runs.some((x) => !x.ok), r.model).toBe(true);
  });

  for (const r of DATA.runs) {
    const needs = r.model.startsWith('zoo:') ? [] : [r.model];
    const title = `${r.optimize === undefined ? r.model : `${r.model} --passes ${r.optimize.passes}`} at +${r.startOffset}`;
    itWithData(needs, `${title}: the same N accepted and refused${r.startOffset === 0 ? ', declareBytes the smallest accepted' : ''}`, () => {
      const bytes = fileOf(r);
      expect(sha(bytes), 'the file regenerates as recorded (re-record the evidence if the optimizer changed it)').toBe(r.sha256);
      const model = loadModel(bytes);
      const requests = computeModelBufferRequests(model, REGISTRY);
      const plan = { plannedBytes: planGreedy(requests).peakBytes, bufferCount: requests.length };
      const generated = model.graph.ops.some((op) => runsGeneratedKernel(op, REGISTRY));
      const events = modelArenaEvents(model.graph, CORTEX_M, readOfflinePlan(model), REGISTRY, generated ? 'generated' : 'stock');
      for (const x of r.runs) expect(replayArena(events, plan, x.n, r.startOffset) === null, `N = ${x.n}`).toBe(x.ok);
      if (r.startOffset !== 0) return;
      const smallest = Math.min(...r.runs.filter((x) => x.ok).map((x) => x.n));
      const largestRefused = Math.max(...r.runs.filter((x) => !x.ok).map((x) => x.n));
      expect(largestRefused).toBe(smallest - 1);
      const arena = runtimeArena(model.graph, plan, CORTEX_M, 'tflm', { offlineOffsets: readOfflinePlan(model), registry: REGISTRY });
      expect(arena.declareBytes).toBe(smallest);
    }, 600_000);
  }
});
