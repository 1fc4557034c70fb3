// The TinySeg pass on every shared (oracle) and zoo model, not only U-Nets: it either lowers the
// peak and the optimized model runs bit-exact with a clean storage log, or it says why spilling
// cannot help and returns the model unchanged (issue 5: "works on any shared or zoo model").
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Model } from '../../../src/ir/index.ts';
import { buildZooModel, exportTflite, importTflite, listZooModels } from '../../../src/ir/index.ts';
import { preparePlannedModel, runPlanned, runTinySeg } from '../../../src/optimizer/index.ts';
import { describeWithData } from '../../oracle-paths.ts';
import { ORACLE_MODELS, oracleModelNames } from '../helpers.ts';

type Case = readonly [string, () => Model];
const SHARED: readonly Case[] = oracleModelNames().map((n) => [n, () => importTflite(readFileSync(`${ORACLE_MODELS}/${n}.tflite`))] as const);
const ZOO: readonly Case[] = listZooModels().map((z) => [`zoo:${z.name}`, () => buildZooModel(z.name)] as const);

function tinysegCase([name, load]: Case): void {
  it(`${name}: lowers the peak bit-exactly or leaves the model unchanged and says so`, () => {
    const model = load();
    const r = runTinySeg(model, { flags: {} });
    console.log(`${name}: tinyseg ${r.report.peakBytesBefore} -> ${r.report.peakBytesAfter} B (${r.report.applied ? 'applied' : 'unchanged'})`);
    if (!r.report.applied) {
      expect(r.model).toBe(model);
      expect(r.report.peakBytesAfter).toBe(r.report.peakBytesBefore);
      expect(r.report.notes.join('\n')).toMatch(/unchanged/);
      return;
    }
    expect(r.report.peakBytesAfter).toBeLessThan(r.report.peakBytesBefore);
    const optimized = preparePlannedModel(importTflite(exportTflite(r.model)));
    expect(optimized.plan.peakBytes).toBe(r.report.peakBytesAfter);
    const seed = 1;
    expect(runPlanned(optimized, { seed }).outputs, `seed ${seed}`).toEqual(runPlanned(preparePlannedModel(model), { seed }).outputs);
    expect(optimized.runtime.spillStore?.violations ?? [], `seed ${seed}`).toEqual([]);
  });
}

describe('tinyseg on every shared and zoo model', () => {
  it('finds the models', () => expect([...SHARED, ...ZOO].length).toBeGreaterThan(5));
  for (const c of ZOO) tinysegCase(c);
  describeWithData('models', 'shared (oracle) models', () => {
    for (const c of SHARED) tinysegCase(c);
  });
});
