// `auto` planned for the chosen kernel library (issue 46 item 5): its pipelines run with the
// caller's registry, so its dmo is CMSIS-NN's (smaller safe overlaps on mobilenet-v1-0.25-128 than
// the reference order's: a different candidate, and never the reference plan that CMSIS-NN's order
// breaks), and the whole arena it reports is what inspect computes for its result on that build.
import { describe, expect, it } from 'vitest';
import { buildZooModel } from '../../src/ir/index.ts';
import { kernelRegistry } from '../../src/kernels/index.ts';
import type { AutoDetails } from '../../src/optimizer/index.ts';
import { arenaTotals, autoPass, dmoPass } from '../../src/optimizer/index.ts';

const CMSIS = kernelRegistry('cmsis-nn', 'cortex-m7');

describe('auto with the cmsis-nn kernels', () => {
  it('runs dmo with CMSIS-NN O_s and reports that build\'s arena', () => {
    const model = buildZooModel('mobilenet-v1-0.25-128');
    const r = autoPass.run(model, { flags: { 'auto-budget-ms': 8000 }, arch: 'cortex-m', registry: CMSIS });
    const details = r.report.details as AutoDetails;
    const dmo = details.candidates.find((c) => c.passes === 'dmo');
    const cmsisDmo = dmoPass.run(model, { flags: {}, arch: 'cortex-m', registry: CMSIS }).report;
    const refDmo = dmoPass.run(model, { flags: {}, arch: 'cortex-m' }).report;
    expect(cmsisDmo.peakBytesAfter).not.toBe(refDmo.peakBytesAfter);
    expect(dmo?.peakBytes).toBe(cmsisDmo.peakBytesAfter);
    expect(dmo?.totalBytes).toBe(cmsisDmo.arena?.after.totalBytes);
    expect(r.report.arena?.before).toEqual(arenaTotals(model, 'cortex-m', CMSIS));
    expect(r.report.arena?.after).toEqual(arenaTotals(r.model, 'cortex-m', CMSIS));
  }, 300_000);
});
