// Every single pass on the real public models mcusim loads (issue 13): each either lowers the
// peak and the written model (validated by runPipeline, re-imported) runs bit-exact with a clean
// trace, or declines with a reason and returns the model unchanged. The full matrix (auto too,
// every real model, `mcusim verify --seeds 2`) is ../shared/acceptance/issue-9-real-models.
import { readFileSync } from 'node:fs';
import { beforeAll, expect, it } from 'vitest';
import { exportTflite, importTflite } from '../../src/ir/index.ts';
import type { Model } from '../../src/ir/index.ts';
import { preparePlannedModel, runPipeline, runPlanned, tracerFor } from '../../src/optimizer/index.ts';
import { ORACLE, describeWithData } from '../oracle-paths.ts';

const REAL = `${ORACLE}/models-real`;
// The smallest real models: a uint8-input DS-CNN (QUANTIZE uint8 -> int8) and a MobileNetV1 where FDT/FFMT apply.
const MODELS = ['mlperf_v01_aww_uint8in', 'mlperf_vww_96'];
const PASSES = ['dmo', 'replacement', 'ffmt', 'fdt', 'tinyseg'];

for (const name of MODELS) describeWithData('models-real', name, () => {
  let model: Model;
  let reference: readonly Uint8Array[];
  beforeAll(() => {
    model = importTflite(readFileSync(`${REAL}/${name}.tflite`));
    reference = runPlanned(preparePlannedModel(model), { seed: 1 }).outputs;
  });

  it.each(PASSES)('%s applies bit-exactly or declines with a reason', (pass) => {
    const r = runPipeline(model, [pass], { flags: {} });
    const report = r.reports[0]!;
    if (!report.applied) {
      expect(report.peakBytesAfter).toBe(report.peakBytesBefore);
      expect(report.notes.join('\n')).toMatch(/unchanged|no gain|declined/);
      return;
    }
    expect(report.peakBytesAfter).toBeLessThan(report.peakBytesBefore);
    const pm = preparePlannedModel(importTflite(exportTflite(r.model)));
    expect(pm.plan.peakBytes).toBe(report.peakBytesAfter);
    const tracer = tracerFor(pm);
    expect(runPlanned(pm, { seed: 1, trace: tracer.sink }).outputs).toEqual(reference);
    expect(tracer.violations()).toEqual([]);
  });
});
