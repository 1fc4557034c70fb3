// The TinySeg-optimized Tiny U-Net through a .tflite file in TinySeg's runtime layout: the IR round
// trips unchanged, Spill / Fetching / FusedConv2D carry the spilled tensor's index as TinySeg's
// graph transformer writes it, and a file whose option bytes are hostile or name the wrong tensor
// is a ModelError (E_MODEL_INVALID).
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Model, Op } from '../../../src/ir/index.ts';
import { buildZooModel, exportTflite, importTflite } from '../../../src/ir/index.ts';
import * as S from '../../../src/ir/tflite/schema-generated.ts';
import { ByteBuffer } from 'flatbuffers';
import { runPipeline } from '../../../src/optimizer/index.ts';

const optimized = runPipeline(buildZooModel('tiny-unet'), ['tinyseg'], { flags: {} }).model;

/** The model with byte arrays replaced by length and hash (fast deep equality). */
function digest(model: Model): unknown {
  return JSON.parse(JSON.stringify(model, (_k, v: unknown) => (v instanceof Uint8Array ? { bytes: v.length, sha1: createHash('sha1').update(v).digest('hex') } : v)));
}

/** The model with every op of `kind` replaced by a raw custom op carrying `bytes` (no shape checks on export). */
function withRawOptions(m: Model, kind: Op['kind'], code: string, bytes: Uint8Array): Model {
  const ops = m.graph.ops.map((o) => (o.kind === kind ? { kind: 'custom' as const, customCode: code, customOptions: bytes, inputs: o.inputs.filter((t) => t >= 0), outputs: o.outputs } : o));
  return { ...m, graph: { ...m.graph, ops } };
}

describe('TinySeg-optimized Tiny U-Net as a TinySeg runtime file', () => {
  it('round-trips export -> import to the identical IR, whole and partial spills', () => {
    const partial = runPipeline(buildZooModel('tiny-unet'), ['tinyseg'], { flags: { spillPercent: 50 } }).model;
    for (const m of [optimized, partial]) {
      expect(m.graph.ops.map((o) => o.kind)).toEqual(expect.arrayContaining(['spill', 'fetchingConv2d']));
      const back = importTflite(exportTflite(m));
      expect(digest(back)).toEqual(digest(m));
      expect(exportTflite(back)).toEqual(exportTflite(m));
    }
  });

  it('writes the custom codes and option bytes of TinySeg, slot = spilled tensor index', () => {
    const fb = S.Model.getRootAsModel(new ByteBuffer(exportTflite(optimized)));
    const sg = fb.subgraphs(0)!;
    const codes = Array.from({ length: fb.operatorCodesLength() }, (_, i) => fb.operatorCodes(i)?.customCode() ?? '');
    expect(codes).toEqual(expect.arrayContaining(['Spill', 'FusedConv2D']));
    const spill = optimized.graph.ops.find((o) => o.kind === 'spill');
    const fused = optimized.graph.ops.find((o) => o.kind === 'fetchingConv2d');
    expect(spill?.kind === 'spill' && spill.options.id).toBe(spill?.inputs[0]);
    for (let i = 0; i < sg.operatorsLength(); i++) {
      const op = sg.operators(i)!;
      const code = codes[op.opcodeIndex()];
      const bytes = [...(op.customOptionsArray() ?? [])];
      if (code === 'Spill') expect(bytes).toEqual([op.inputs(0)]);
      if (code === 'FusedConv2D') {
        expect(bytes).toHaveLength(9);
        expect(bytes.slice(6)).toEqual([3, fused?.kind === 'fetchingConv2d' ? fused.options.nth : -1, spill?.inputs[0]]);
        // The file lists parts, filter and bias without -1 slots, as TinySeg reads them.
        expect(op.inputsLength()).toBe(fused?.inputs.filter((t) => t >= 0).length);
      }
    }
  });

  it('refuses files whose options are hostile or name the wrong tensor', () => {
    const spilled = optimized.graph.ops.find((o) => o.kind === 'spill')?.inputs[0] ?? 0;
    const wrongTensor = (spilled + 1) & 0xff;
    for (const m of [
      withRawOptions(optimized, 'spill', 'Spill', new Uint8Array(5)),
      withRawOptions(optimized, 'spill', 'Spill', Uint8Array.of(wrongTensor)),
      withRawOptions(optimized, 'spill', 'Spill', Uint8Array.of(250)),
      withRawOptions(optimized, 'fetchingConv2d', 'FusedConv2D', Uint8Array.of(0, 1, 1, 1, 1, 1, 3, 0, wrongTensor)),
      withRawOptions(optimized, 'fetchingConv2d', 'FusedConv2D', Uint8Array.of(0, 1, 1, 1, 1, 1, 2, 0, spilled)),
      withRawOptions(optimized, 'fetchingConv2d', 'FusedConv2D', Uint8Array.of(0, 1, 1, 1, 1, 1, 3, 9, spilled)),
    ]) {
      const bytes = exportTflite(m);
      expect(() => importTflite(bytes)).toThrowError(expect.objectContaining({ code: 'E_MODEL_INVALID' }));
    }
  });
});
