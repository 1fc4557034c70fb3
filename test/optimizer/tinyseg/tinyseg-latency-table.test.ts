// TinySeg Table 5 as one computation (tinysegLatencyTable) on zoo:tiny-unet: the 6 x 3 shape with
// remote async N/A, cells equal to the single-cell path (estimateLatency / estimateModelLatency) on
// the same step models, peaks per step, and the orderings of the paper's narrative that the model is
// robust to. Closeness to the paper's numbers is test/sim/latency-table5.test.ts's business.
import { describe, expect, it } from 'vitest';
import { buildZooModel } from '../../../src/ir/index.ts';
import { TABLE5_STEPS, TINYSEG_TABLE5_PAPER_MS, estimateModelLatency, greedyPeakBytes, runTinySeg, tinysegLatencyTable } from '../../../src/optimizer/index.ts';
import { STORAGE_KINDS, estimateLatency, niclaVision } from '../../../src/sim/index.ts';

const unet = buildZooModel('tiny-unet');
const lines: string[] = [];
const table = tinysegLatencyTable(unet, { target: niclaVision, log: (l) => lines.push(l) });
const row = (step: string) => {
  const r = table.rows.find((x) => x.step === step);
  if (r === undefined) throw new Error(`no row ${step}`);
  return r;
};
const cell = (step: string, storage: 'internal' | 'external' | 'remote'): number => row(step).ms[storage] ?? Number.NaN;

describe('tinysegLatencyTable on zoo:tiny-unet', () => {
  it('has the paper shape: 6 steps x internal / external / remote, remote async N/A', () => {
    expect(table.rows.map((r) => r.step)).toEqual(TABLE5_STEPS);
    expect(table.rows.map((r) => r.label)).toEqual(['Original model', '+ Temp. tensor quant.', '+ Tensor spilling', '+ Fused fetching', '+ Tensor compression', '+ Async. block operation']);
    for (const r of table.rows) {
      expect(Object.keys(r.ms).sort()).toEqual([...STORAGE_KINDS].sort());
      for (const s of STORAGE_KINDS) {
        if (r.step === 'asyncErase' && s === 'remote') expect(r.ms[s]).toBeNull();
        else expect(r.ms[s], `${r.step}/${s}`).toBeGreaterThan(0);
      }
    }
    expect(Object.keys(TINYSEG_TABLE5_PAPER_MS)).toEqual(TABLE5_STEPS);
    expect(lines).toHaveLength(6);
    expect(table).toEqual(expect.objectContaining({ target: 'nicla-vision', library: 'cmsis-nn', scratchFree: true }));
  });

  it('times the original as estimateLatency does, the same in every column', () => {
    const r = row('original');
    expect(r.storageIndependent).toBe(true);
    expect(row('tempQuant').storageIndependent).toBe(true);
    for (const s of STORAGE_KINDS) expect(r.ms[s]).toBe(estimateLatency(unet.graph, { target: niclaVision, storage: s }).totalMs);
    expect(r.peakBytes).toBe(greedyPeakBytes(unet.graph));
  });

  it('times the final model as the single-cell path does (`mcusim latency` on the tinyseg output)', () => {
    const final = runTinySeg(unet, { flags: {} }).model;
    expect(row('fusedFetching').storageIndependent).toBe(false);
    expect(cell('fusedFetching', 'internal')).toBe(estimateModelLatency(final, { target: niclaVision, storage: 'internal' }).totalMs);
    expect(cell('compression', 'external')).toBe(estimateModelLatency(final, { target: niclaVision, storage: 'external', compress: true }).totalMs);
    expect(cell('asyncErase', 'internal')).toBe(estimateModelLatency(final, { target: niclaVision, storage: 'internal', compress: true, asyncErase: true }).totalMs);
    for (const step of ['fusedFetching', 'compression', 'asyncErase']) expect(row(step).peakBytes).toBe(greedyPeakBytes(final.graph));
  });

  it('reports each step model\'s peak, never rising along the pass', () => {
    const peaks = table.rows.map((r) => r.peakBytes);
    for (let i = 1; i < peaks.length; i++) expect(peaks[i], table.rows[i]?.step).toBeLessThanOrEqual(peaks[i - 1] ?? 0);
    expect(row('spilling').peakBytes).toBeLessThan(row('tempQuant').peakBytes);
  });

  it('orders the cells as the paper\'s narrative: spilling costs, async erase recovers', () => {
    for (const s of STORAGE_KINDS) expect(cell('spilling', s), s).toBeGreaterThan(cell('original', s));
    for (const s of ['internal', 'external'] as const) expect(cell('asyncErase', s), s).toBeLessThan(cell('compression', s));
    // The final model's only slot is read by FetchingConv2D, which decodes it row by row into its
    // window: compression shrinks what is programmed and read, as in the paper.
    for (const s of STORAGE_KINDS) expect(cell('compression', s), s).toBeLessThan(cell('fusedFetching', s));
  });

  it('passes scratchFree=false through to the scratch step (the paper\'s int16 step alone)', () => {
    const paperOnly = tinysegLatencyTable(unet, { target: niclaVision, scratchFree: false });
    expect(paperOnly.scratchFree).toBe(false);
    const tq = runTinySeg(unet, { flags: { spillPercent: 0, scratchFree: false } }).model;
    expect(paperOnly.rows[1]?.peakBytes).toBe(greedyPeakBytes(tq.graph));
    const sp = runTinySeg(unet, { flags: { fusedFetching: false, scratchFree: false } }).model;
    expect(paperOnly.rows[2]?.peakBytes).toBe(greedyPeakBytes(sp.graph));
  });
});
