// The TinySeg Figure 14 sweep (sweepPartialSpill) on Tiny U-Net in 25% steps: 0% is the scratch-step
// model, peak falls and latency rises with the spilled share, 100% is the tinyseg pass at
// spillPercent 100; a model spilling cannot help repeats its 0% row; the SVG plot's elements.
import { describe, expect, it } from 'vitest';
import { McusimError, buildZooModel } from '../../../src/ir/index.ts';
import type { SpillSweepRow, TinySegDetails } from '../../../src/optimizer/index.ts';
import { renderSpillSweepSvg, runTinySeg, sweepPartialSpill, sweepPercents } from '../../../src/optimizer/index.ts';
import { DEFAULT_TARGET_NAME, estimateLatency, getTarget } from '../../../src/sim/index.ts';

const unet = buildZooModel('tiny-unet');
const progress: number[] = [];
const sweep = sweepPartialSpill(unet, { steps: 4, onProgress: (row, i, n) => progress.push(row.requestedPercent, i, n) });

function codeOf(f: () => unknown): string | undefined {
  try {
    f();
  } catch (e) {
    return e instanceof McusimError ? e.code : 'raw';
  }
  return undefined;
}

describe('sweepPercents', () => {
  it('splits 0..100 into equal steps and rejects bad step counts with E_USAGE', () => {
    expect(sweepPercents()).toEqual([0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100]);
    expect(sweepPercents(4)).toEqual([0, 25, 50, 75, 100]);
    expect(sweepPercents(3)).toEqual([0, 33.33, 66.67, 100]);
    for (const bad of [0, -1, 2.5, 101, Number.NaN]) expect(codeOf(() => sweepPercents(bad)), String(bad)).toBe('E_USAGE');
  });
});

describe('sweepPartialSpill on zoo:tiny-unet (internal storage, 25% steps)', () => {
  const rows = sweep.rows;
  const at = (p: number): SpillSweepRow => {
    const r = rows.find((row) => row.requestedPercent === p);
    if (r === undefined) throw new Error(`no ${p}% row`);
    return r;
  };

  it('reports one row per percentage in order, with progress after each', () => {
    expect(rows.map((r) => r.requestedPercent)).toEqual([0, 25, 50, 75, 100]);
    expect(progress).toEqual([0, 0, 5, 25, 1, 5, 50, 2, 5, 75, 3, 5, 100, 4, 5]);
    expect(sweep).toMatchObject({ storage: 'internal', asyncErase: false, compress: false, spillingHelps: true, notes: [] });
  });

  it('0% is the scratch-step model: no spill, its TFLM-greedy peak, latency without storage traffic', () => {
    const scratchStep = (runTinySeg(unet, { flags: {} }).report.details as TinySegDetails).steps[0];
    expect(at(0)).toMatchObject({ victim: null, spilledChannels: 0, spilledBytes: 0, sameAsPercent: null, peakBytes: scratchStep?.peakBytes });
    expect(at(0).breakdown).toMatchObject({ spillMs: 0, fetchMs: 0, codecMs: 0, stallMs: 0 });
  });

  it('spills whole channels of one victim; peak never rises and latency never falls as the share grows', () => {
    for (const p of [25, 50, 75, 100]) {
      const r = at(p);
      expect(r.victim).toBe('inc/conv2');
      expect(r.spilledChannels / r.victimChannels).toBeCloseTo(r.actualPercent / 100, 4);
    }
    for (let i = 1; i < rows.length; i++) {
      const [a, b] = [rows[i - 1], rows[i]];
      expect(b?.peakBytes).toBeLessThanOrEqual(a?.peakBytes ?? 0);
      expect(b?.latencyMs).toBeGreaterThanOrEqual(a?.latencyMs ?? 0);
      expect(b?.spilledBytes).toBeGreaterThan(a?.spilledBytes ?? 0);
    }
    expect(at(100).peakBytes).toBeLessThan(at(0).peakBytes);
  });

  it('the 100% row is the tinyseg pass with spillPercent 100 and its latency estimate', () => {
    const full = runTinySeg(unet, { flags: { spillPercent: 100 } });
    const spill = (full.report.details as TinySegDetails).spills[0];
    const latency = estimateLatency(full.model.graph, { target: getTarget(DEFAULT_TARGET_NAME), storage: 'internal' });
    expect(at(100)).toMatchObject({
      peakBytes: full.report.peakBytesAfter, victim: spill?.tensor, spilledChannels: spill?.channels, victimChannels: spill?.ofChannels,
      actualPercent: 100, spilledBytes: spill?.bytes, latencyMs: latency.totalMs, breakdown: latency.breakdown,
    });
  });
});

describe('sweepPartialSpill on a model spilling cannot help', () => {
  it('repeats the 0% row at every percentage, naming it, and keeps the pass notes', () => {
    const r = sweepPartialSpill(buildZooModel('mobilenet-v1-0.25-128'), { steps: 2 });
    expect(r.spillingHelps).toBe(false);
    expect(r.notes.join('\n')).toMatch(/cannot reduce/);
    expect(r.rows.map((row) => row.sameAsPercent)).toEqual([null, 0, 0]);
    expect(new Set(r.rows.map((row) => `${row.peakBytes}/${row.latencyMs}`)).size).toBe(1);
  });
});

describe('renderSpillSweepSvg', () => {
  it('draws bars, a latency line with markers, both axes with units, a legend and a titled model', () => {
    const svg = renderSpillSweepSvg(sweep, { modelLabel: 'zoo:tiny-unet' });
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"[\s\S]*<\/svg>\n$/);
    expect(svg.match(/<rect class="bar"/g)).toHaveLength(5);
    expect(svg.match(/<circle class="marker"/g)).toHaveLength(5);
    expect(svg.match(/<polyline class="latency" points="([^"]*)"/)?.[1]?.split(' ')).toHaveLength(5);
    expect(svg).toMatch(/class="title"[^>]*>Partial spilling: zoo:tiny-unet \(internal storage, sync erase\)</);
    expect(svg).toMatch(/>0 KB</);
    expect(svg).toMatch(/>\d+ ms</);
    expect(svg).toMatch(/>100%</);
    expect(svg).toMatch(/class="legend"[\s\S]*peak memory[\s\S]*latency/);
    expect(svg).not.toMatch(/NaN|undefined/);
  });

  it('keeps every bar value clear of the latency marker at its percentage (the text box never meets the circle)', () => {
    // Latency in ms = peak in KB: both axes get the same ticks, so each marker sits on its bar's top,
    // right where the value above the bar would go.
    const rows = sweep.rows.map((r) => ({ ...r, latencyMs: r.peakBytes / 1024 }));
    const svg = renderSpillSweepSvg({ ...sweep, rows }, { modelLabel: 'marker on label' });
    const markers = [...svg.matchAll(/<circle class="marker" cx="([\d.]+)" cy="([\d.]+)"/g)].map((m) => ({ x: Number(m[1]), y: Number(m[2]) }));
    const values = [...svg.matchAll(/<text x="([\d.]+)" y="([\d.]+)" font-size="10" text-anchor="middle" fill="#2f4f75"/g)].map((m) => ({ x: Number(m[1]), y: Number(m[2]) }));
    expect(values).toHaveLength(markers.length);
    for (const v of values) {
      const m = markers.find((k) => Math.abs(k.x - v.x) < 0.5)!;
      // Text spans [baseline - 10, baseline + 2]; the marker [cy - 5, cy + 5].
      expect(v.y - 10 > m.y + 5 || v.y + 2 < m.y - 5, `value at ${v.x},${v.y} vs marker at ${m.y}`).toBe(true);
    }
  });
});
