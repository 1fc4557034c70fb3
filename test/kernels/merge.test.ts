// MergeAccumulators (FDT Fan-In + Merge): chained int32 partial sums over input-channel
// partitions reproduce conv2d / fullyConnected byte for byte; option bytes round-trip and reject
// malformed input with coded errors; the shape rule and the kernel constraints catch bad wiring.
import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import { GraphBuilder, ModelError, exportTflite, findModelIssues, importTflite } from '../../src/ir/index.ts';
import type { Model } from '../../src/ir/index.ts';
import { decodeMergeOptions, encodeMergeOptions } from '../../src/ir/tflite/merge-options.ts';
import { applyFdt, preparePlannedModel, runPlanned } from '../../src/optimizer/index.ts';

function sameOutputs(a: Model, b: Model, seeds: readonly number[]): boolean {
  const pa = preparePlannedModel(a);
  const pb = preparePlannedModel(b);
  return seeds.every((seed) => {
    const oa = runPlanned(pa, { seed }).outputs;
    const ob = runPlanned(pb, { seed }).outputs;
    return oa.length === ob.length && oa.every((o, i) => Buffer.from(o).equals(Buffer.from(ob[i] as Uint8Array)));
  });
}

/** input -> conv (Fan-Out) -> dw (PART) -> conv | FC (Fan-In). */
function fanInModel(seed: string, fc: boolean, perChannel: boolean): Model {
  const b = new GraphBuilder(seed);
  let x = b.input('in', [1, 6, 5, 3], { scale: 0.05, zeroPoint: -7 });
  x = b.conv2d(x, { name: 'c1', outChannels: 8, kernel: 3, activation: 'relu' });
  x = b.depthwiseConv2d(x, { name: 'dw', kernel: 3, stride: 2, activation: 'relu6' });
  if (fc) {
    x = b.reshape('flat', x, [x.shape[1]! * x.shape[2]!, 8]);
    x = b.fullyConnected(x, { name: 'fc', units: 5, perChannel, activation: 'relu' });
  } else {
    x = b.conv2d(x, { name: 'c2', outChannels: 6, kernel: [2, 3], stride: 1, padding: 'same', activation: 'relu' });
  }
  return b.build('merge test', [x]);
}

describe('merge kernel', () => {
  for (const [label, fc, pc] of [['conv2d', false, true], ['fullyConnected per-tensor', true, false], ['fullyConnected per-channel', true, true]] as const) {
    it(`chained partial sums equal the untiled ${label}`, () => {
      const m = fanInModel(`merge-${label}`, fc, pc);
      const fanIn = fc ? 3 : 2;
      const part = fc ? [1, 2] : [1];
      for (const n of [2, 3, 8]) {
        const tiled = applyFdt(m, { fanOut: 0, part, fanIn, partitions: n });
        expect(tiled.graph.ops.filter((o) => o.kind === 'merge')).toHaveLength(n);
        expect(findModelIssues(tiled)).toEqual([]);
        expect(sameOutputs(m, tiled, [1, 2, 3])).toBe(true);
      }
    });
  }

  it('round-trips through TFLite as the MergeAccumulators custom op', () => {
    const m = fanInModel('merge-rt', false, true);
    const tiled = applyFdt(m, { fanOut: 0, part: [1], fanIn: 2, partitions: 3 });
    const back = importTflite(exportTflite(tiled));
    expect(back.graph.ops.map((o) => o.kind)).toEqual(tiled.graph.ops.map((o) => o.kind));
    expect(sameOutputs(m, back, [4])).toBe(true);
  });

  it('encodes and decodes option bytes, rejecting malformed ones with E_MODEL_INVALID', () => {
    const rng = seedrandom('merge-options');
    for (let i = 0; i < 20; i++) {
      const o = {
        base: rng() < 0.5 ? ('conv2d' as const) : ('fullyConnected' as const),
        padding: rng() < 0.5 ? ('same' as const) : ('valid' as const),
        activation: (['none', 'relu', 'relu6', 'reluN1To1'] as const)[Math.floor(rng() * 4)] ?? 'none',
        strideH: 1 + Math.floor(rng() * 4), strideW: 1 + Math.floor(rng() * 4), dilationH: 1 + Math.floor(rng() * 3), dilationW: 1,
      };
      expect(decodeMergeOptions(encodeMergeOptions(o))).toEqual(o);
    }
    const good = encodeMergeOptions({ base: 'conv2d', padding: 'same', activation: 'none', strideH: 1, strideW: 1, dilationH: 1, dilationW: 1 });
    const bad = (mut: (b: Uint8Array) => Uint8Array): string | undefined => {
      try {
        decodeMergeOptions(mut(good.slice()));
        return undefined;
      } catch (e) {
        return e instanceof ModelError ? e.code : 'other';
      }
    };
    expect(bad((b) => b.subarray(0, 19))).toBe('E_MODEL_INVALID');
    expect(bad((b) => ((b[0] = 2), b))).toBe('E_MODEL_INVALID');
    expect(bad((b) => ((b[3] = 1), b))).toBe('E_MODEL_INVALID');
    expect(bad((b) => ((b[2] = 99), b))).toBe('E_MODEL_INVALID');
    expect(bad((b) => (new DataView(b.buffer).setInt32(4, 0, true), b))).toBe('E_MODEL_INVALID');
  });

  it('validation reports an accumulator of the wrong shape', () => {
    const m = fanInModel('merge-bad', false, true);
    const tiled = applyFdt(m, { fanOut: 0, part: [1], fanIn: 2, partitions: 2 });
    const i = tiled.graph.ops.findIndex((o) => o.kind === 'merge' && (o.inputs[3] ?? -1) >= 0);
    const acc = tiled.graph.ops[i]!.inputs[3]!;
    const tensors = tiled.graph.tensors.map((t, k) => (k === acc ? { ...t, shape: [1, 1, 1, 1] } : t));
    const broken: Model = { ...tiled, graph: { ...tiled.graph, tensors } };
    expect(findModelIssues(broken).map((x) => x.code)).toContain('E_MODEL_SHAPE');
    expect(() => preparePlannedModel(broken)).toThrow(ModelError);
  });
});
