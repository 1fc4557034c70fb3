// The TinySeg pass on the zoo: cold ranges (Algorithm 2), the step report of Figure 11, spilling
// and fused fetching of Tiny U-Net with identical outputs and a clean trace after a TFLite round
// trip, partial spilling (Figure 14), a model spilling cannot help, hostile custom options.
import { describe, expect, it } from 'vitest';
import type { Model } from '../../src/ir/index.ts';
import { buildZooModel, decodeFetchingConv2dOptions, decodeFetchingOptions, decodeSpillOptions, encodeFetchingConv2dOptions, exportTflite, importTflite } from '../../src/ir/index.ts';
import type { TinySegDetails } from '../../src/optimizer/index.ts';
import { computeColdRanges, getPass, preparePlannedModel, quantizeScratch, runPlanned, runTinySeg } from '../../src/optimizer/index.ts';

const unet = buildZooModel('tiny-unet');
const details = (d: unknown): TinySegDetails => d as TinySegDetails;

/** Outputs after a TFLite round trip equal the original's. Untraced: a traced full-size U-Net run
 *  takes tens of seconds on CI; test/kernels/spill.test.ts traces the storage ops themselves. */
function sameOutputs(original: Model, optimized: Model, seed: number): void {
  const b = preparePlannedModel(importTflite(exportTflite(optimized)));
  expect(runPlanned(b, { seed }).outputs, `seed ${seed}`).toEqual(runPlanned(preparePlannedModel(original), { seed }).outputs);
  expect(b.runtime.spillStore?.violations, `seed ${seed}`).toEqual([]);
  expect(b.runtime.spillStore?.log.map((e) => e.direction)).toEqual(['spill', 'fetch']);
}

describe('cold ranges (Algorithm 2)', () => {
  it('finds the skip connection of Tiny U-Net as the longest cold range', () => {
    const cr = computeColdRanges(unet.graph);
    const skip = unet.graph.tensors.findIndex((t) => t.name === 'inc/conv2');
    expect(cr[skip]).toEqual({ start: 2, end: 20, last: 20 });
    const once = unet.graph.tensors.findIndex((t) => t.name === 'inc/conv1');
    expect(cr[once]).toEqual({ start: 0, end: 1, last: 1 });
  });
});

describe('tinyseg pass', () => {
  it('is registered and reports the peak after each step in the paper order', () => {
    const r = getPass('tinyseg').run(unet, { flags: {} });
    const d = details(r.report.details);
    expect(d.steps.map((s) => s.step)).toEqual(['scratch quantization', 'spilling', 'fused fetching']);
    expect(r.report.peakBytesBefore).toBe(307200);
    expect(d.spills.map((s) => s.tensor)).toEqual(['inc/conv2']);
    expect(d.steps[1]?.peakBytes).toBe(230400);
    expect(r.report.peakBytesAfter).toBeLessThanOrEqual(230400);
    expect(r.model.graph.ops.some((o) => o.kind === 'fetchingConv2d')).toBe(true);
    // The seeded weights give no int16 proof: kept and reported.
    expect(d.scratchBounds.every((b) => !b.fits && (b.boundAbs ?? 0) > 32767)).toBe(true);
    sameOutputs(unet, r.model, 1);
  });

  it('partially spills to meet a target and for --spill-percent', () => {
    const t = runTinySeg(unet, { flags: {}, targetBytes: 250000 });
    expect(details(t.report.details).spills[0]?.channels).toBe(6);
    expect(t.report.peakBytesAfter).toBe(249600);
    const p = runTinySeg(unet, { flags: { spillPercent: 50 } });
    expect(details(p.report.details).spills[0]).toMatchObject({ channels: 4, ofChannels: 8 });
    expect(p.report.peakBytesAfter).toBe(268800);
    sameOutputs(unet, p.model, 3);
  });

  it('leaves a model that spilling cannot help unchanged, and says so', () => {
    const m = buildZooModel('mobilenet-v1-0.25-128');
    const r = runTinySeg(m, { flags: {} });
    expect(r.report.applied).toBe(false);
    expect(r.model).toBe(m);
    expect(r.report.notes.join('\n')).toMatch(/cannot reduce/);
  });

  it('quantizes TransposeConv scratch to int16 only under a proven bound, bit-exact', () => {
    // Tiny weights make the bound fit: |w| <= 1 on every tap.
    const small: Model = { ...unet, graph: { ...unet.graph, tensors: unet.graph.tensors.map((t) =>
      t.name.endsWith('up/filter') || (t.data !== null && t.dtype === 'int8' && unet.graph.ops.some((o) => o.kind === 'transposeConv' && unet.graph.tensors[o.inputs[1] ?? -1] === t))
        ? { ...t, data: t.data!.map((v) => (v % 3 === 0 ? 0 : v % 3 === 1 ? 1 : 255)) } : t) } };
    const q = quantizeScratch(small.graph);
    expect(q.bounds.every((b) => b.fits)).toBe(true);
    const r = runTinySeg(small, { flags: {} });
    expect(details(r.report.details).steps[0]?.peakBytes).toBeLessThan(307200);
    expect(r.model.metadata.some((m) => m.name === 'TinySegScratchInt16')).toBe(true);
    const back = importTflite(exportTflite(r.model));
    expect(back.graph.ops.filter((o) => o.kind === 'transposeConv' && o.options.scratchInt16 === true)).toHaveLength(3);
    sameOutputs(small, r.model, 5);
  });
});

describe('TinySeg custom options', () => {
  const MODEL_INVALID = expect.objectContaining({ code: 'E_MODEL_INVALID' });
  it('refuses hostile option bytes', () => {
    expect(() => decodeSpillOptions(new Uint8Array(3))).toThrowError(MODEL_INVALID);
    expect(() => decodeSpillOptions(Uint8Array.of(0xff, 0xff, 0xff, 0xff))).toThrowError(MODEL_INVALID);
    expect(() => decodeFetchingOptions(Uint8Array.of(0, 0, 0, 0, 99, 0, 0, 0, 3, 0, 0, 0))).toThrowError(MODEL_INVALID);
    expect(() => decodeFetchingOptions(Uint8Array.of(0, 0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0))).toThrowError(MODEL_INVALID);
    const good = encodeFetchingConv2dOptions({ victim: 1, nth: 0, axis: 3, padding: 'same', activation: 'relu', strideH: 1, strideW: 1, dilationH: 1, dilationW: 1 });
    expect(decodeFetchingConv2dOptions(good)).toMatchObject({ victim: 1, activation: 'relu', padding: 'same' });
    for (const [at, v] of [[12, 2], [13, 9], [14, 1], [16, 0]] as const) {
      const bad = good.slice();
      bad[at] = v;
      if (at === 16) bad.fill(0, 16, 20);
      expect(() => decodeFetchingConv2dOptions(bad), `byte ${at}`).toThrowError(MODEL_INVALID);
    }
  });

  it('a TFLite file with bad Spill options is a model error', () => {
    const r = runTinySeg(unet, { flags: {} });
    const ops = r.model.graph.ops.map((o) => (o.kind === 'spill' ? { kind: 'custom' as const, customCode: 'Spill', customOptions: new Uint8Array(5), inputs: o.inputs, outputs: o.outputs } : o));
    const bytes = exportTflite({ ...r.model, graph: { ...r.model.graph, ops } });
    expect(() => importTflite(bytes)).toThrowError(expect.objectContaining({ code: 'E_MODEL_INVALID' }));
  });
});
