// The fdt / ffmt / tiling passes (fused tiling paper §4, Fig. 3, Table 2): registered in the
// pipeline, shrink the layout where the paper's blocks apply, never add MACs with FDT, report each
// applied configuration, and keep outputs bit-identical (runPlanned against the original).
import { describe, expect, it } from 'vitest';
import { McusimError, buildZooModel } from '../../../src/ir/index.ts';
import type { Model } from '../../../src/ir/index.ts';
import type { ArenaTotals } from '../../../src/optimizer/index.ts';
import { PASSES, arenaTotals, graphMacs, preparePlannedModel, runPipeline, runPlanned } from '../../../src/optimizer/index.ts';

function sameOutputs(a: Model, b: Model, seeds: readonly number[]): boolean {
  const pa = preparePlannedModel(a);
  const pb = preparePlannedModel(b);
  return seeds.every((seed) => {
    const oa = runPlanned(pa, { seed }).outputs;
    const ob = runPlanned(pb, { seed }).outputs;
    return oa.every((o, i) => Buffer.from(o).equals(Buffer.from(ob[i] as Uint8Array)));
  });
}

interface Row {
  readonly method: string;
  readonly peakBytesBefore: number;
  readonly peakBytesAfter: number;
  readonly macsBefore: number;
  readonly macsAfter: number;
  readonly totalBytesAfter: number;
}

describe('tiling passes', () => {
  it('registers fdt, ffmt and tiling', () => {
    expect(Object.keys(PASSES)).toEqual(expect.arrayContaining(['fdt', 'ffmt', 'tiling']));
  });

  it('fdt shrinks cifar10-cnn without adding MACs and stays bit-exact', () => {
    const m = buildZooModel('cifar10-cnn');
    const { model, reports } = runPipeline(m, ['fdt'], { flags: { 'time-budget-ms': 2500 } });
    const r = reports[0]!;
    expect(r.applied).toBe(true);
    expect(r.peakBytesAfter).toBeLessThan(r.peakBytesBefore);
    expect(preparePlannedModel(model).plan.peakBytes).toBe(r.peakBytesAfter);
    expect(graphMacs(model.graph)).toBe(graphMacs(m.graph));
    const table = (r.details as { table: Row[] }).table;
    expect(table.map((row) => row.method)).toEqual(['fdt']);
    expect(table[0]!.macsAfter).toBe(table[0]!.macsBefore);
    expect(sameOutputs(m, model, [1, 2, 3])).toBe(true);
  });

  it('tiling reports FDT and FFMT side by side and keeps the smallest whole arena', () => {
    const m = buildZooModel('cifar10-cnn');
    const { model, reports } = runPipeline(m, ['tiling'], { flags: { 'time-budget-ms': 1500 } });
    const d = reports[0]!.details as { table: Row[]; chosen: string; totalsBefore: ArenaTotals; totalsAfter: ArenaTotals };
    const table = d.table;
    expect(table.map((row) => row.method)).toEqual(['fdt', 'ffmt', 'fdt+ffmt']);
    // The chosen search is the one with the smallest total (planned + persistent), not the smallest plan.
    const chosen = table.find((row) => row.method === d.chosen)!;
    expect(chosen.totalBytesAfter).toBe(Math.min(...table.map((row) => row.totalBytesAfter)));
    expect(reports[0]!.peakBytesAfter).toBeLessThanOrEqual(chosen.peakBytesAfter);
    expect(arenaTotals(model).totalBytes).toBe(d.totalsAfter.totalBytes);
    expect(d.totalsAfter.totalBytes).toBeLessThan(d.totalsBefore.totalBytes);
    expect(table.find((row) => row.method === 'fdt')!.macsAfter).toBe(table[0]!.macsBefore);
    expect(sameOutputs(m, model, [1, 2])).toBe(true);
  });

  it('fdt on ds-cnn-kws never grows the layout or the MACs and stays bit-exact', () => {
    const m = buildZooModel('ds-cnn-kws');
    const { model, reports } = runPipeline(m, ['fdt'], { flags: { 'time-budget-ms': 3000 } });
    expect(reports[0]!.peakBytesAfter).toBeLessThanOrEqual(reports[0]!.peakBytesBefore);
    expect(graphMacs(model.graph)).toBe(graphMacs(m.graph));
    expect(sameOutputs(m, model, [1])).toBe(true);
  });

  it('rejects a bad time budget with a UsageError', () => {
    const m = buildZooModel('ds-cnn-kws');
    let code: string | undefined;
    try {
      runPipeline(m, ['fdt'], { flags: { 'time-budget-ms': 'soon' } });
    } catch (e) {
      code = e instanceof McusimError ? e.code : 'raw';
    }
    expect(code).toBe('E_USAGE');
  });
});
