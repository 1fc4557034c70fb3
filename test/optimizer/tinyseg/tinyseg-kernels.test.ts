// TinySeg planned for the chosen kernel library (issue 46 item 5): with the CMSIS-NN registry the
// pass's peaks are CMSIS-NN's plans (its transpose conv needs no int32 output scratch, so tiny-unet
// starts lower than with the reference kernels), its reported whole arena is what inspect computes
// for the result on that build, and the spill sweep plans every point for that library too.
import { describe, expect, it } from 'vitest';
import { buildZooModel } from '../../../src/ir/index.ts';
import { kernelRegistry } from '../../../src/kernels/index.ts';
import type { TinySegDetails } from '../../../src/optimizer/index.ts';
import { arenaTotals, currentPeakBytes, runTinySeg, sweepPartialSpill } from '../../../src/optimizer/index.ts';

const CMSIS = kernelRegistry('cmsis-nn', 'cortex-m7');

describe('tinyseg with the cmsis-nn kernels', () => {
  const model = buildZooModel('tiny-unet');

  it('plans with CMSIS-NN and reports the arena of that build', () => {
    const r = runTinySeg(model, { flags: {}, arch: 'cortex-m', registry: CMSIS });
    const ref = runTinySeg(model, { flags: {}, arch: 'cortex-m' });
    expect(r.report.peakBytesBefore).toBe(currentPeakBytes(model, CMSIS));
    expect(r.report.peakBytesBefore).toBeLessThan(ref.report.peakBytesBefore);
    expect(r.report.applied).toBe(true);
    expect(r.report.arena?.before).toEqual(arenaTotals(model, 'cortex-m', CMSIS));
    expect(r.report.arena?.after).toEqual(arenaTotals(r.model, 'cortex-m', CMSIS));
    const steps = (r.report.details as TinySegDetails).steps;
    expect(steps[steps.length - 1]?.peakBytes).toBe(r.report.peakBytesAfter);
    expect(r.report.peakBytesAfter).toBe(currentPeakBytes(r.model, CMSIS));
  }, 300_000);

  it('the spill sweep plans every point for the registry', () => {
    const s = sweepPartialSpill(model, { registry: CMSIS, steps: 1 });
    expect(s.library).toBe('cmsis-nn');
    expect(s.originalPeakBytes).toBe(currentPeakBytes(model, CMSIS));
    const full = runTinySeg(model, { flags: { spillPercent: 100 }, registry: CMSIS });
    expect(s.rows[1]?.peakBytes).toBe(full.report.peakBytesAfter);
    expect(sweepPartialSpill(model, { steps: 1 }).originalPeakBytes).toBe(currentPeakBytes(model));
  }, 300_000);
});
