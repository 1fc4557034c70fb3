// TinySeg's custom-op codecs (src/ir/custom-ops.ts) on a hand-made graph: the exact option bytes of
// TinySeg's runtime (spill.cpp, fetching.cpp, fused_conv.cpp), decode(encode(x)) = x, negative axes
// normalised, refusals of what the layout cannot carry, and hostile bytes and tensor indices (always
// a ModelError with a code, never a raw TypeError / RangeError; seeded fuzz).
import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import type { CustomOpSite, FetchingConv2dOptions, Tensor } from '../../src/ir/index.ts';
import {
  decodeFetchingConv2dOptions, decodeFetchingOptions, decodeSpillOptions, encodeFetchingConv2dOptions, encodeFetchingOptions, encodeSpillOptions, ModelError,
  remapOpTensors, TINYSEG_CUSTOM_CODES,
} from '../../src/ir/index.ts';

const q = { scale: [0.05], zeroPoint: [3], quantizedDimension: 0 };
const t = (name: string, shape: number[], dtype: Tensor['dtype'] = 'int8'): Tensor => ({ name, dtype, shape, quant: q, data: null, isVariable: false });
// 0 a (spilled), 1 b, 2 concat [a|b], 3 filter over 5 channels, 4 bias, 5 conv output, 6 a's fetched copy.
const tensors: Tensor[] = [t('a', [1, 3, 3, 2]), t('b', [1, 3, 3, 3]), t('ab', [1, 3, 3, 5]), t('filter', [4, 1, 1, 5]), t('bias', [4], 'int32'), t('y', [1, 3, 3, 4]), t('a/fetched', [1, 3, 3, 2])];
const site = (inputs: number[], outputs: number[]): CustomOpSite => ({ inputs, outputs, tensors });
const conv: FetchingConv2dOptions = { padding: 'valid', activation: 'relu6', strideW: 2, strideH: 1, dilationW: 1, dilationH: 3, victim: 0, nth: 0, axis: 3 };

const INVALID = expect.objectContaining({ code: 'E_MODEL_INVALID' });
const UNSUPPORTED = expect.objectContaining({ code: 'E_MODEL_UNSUPPORTED_OP' });

describe('TinySeg option layouts', () => {
  it('uses the custom codes TinySeg registers (application.ino)', () => {
    expect(TINYSEG_CUSTOM_CODES).toEqual({ spill: 'Spill', fetching: 'Fetching', fetchingConv2d: 'FusedConv2D' });
  });

  it('writes Spill as [spill_id] and reads it back', () => {
    const e = encodeSpillOptions({ id: 0 }, site([0], []));
    expect([...e.bytes]).toEqual([0]);
    expect(decodeSpillOptions(e.bytes, site([0], []))).toEqual({ inputs: [0], options: { id: 0 } });
  });

  it('writes Fetching as [axis, pos, tensor_id], a negative axis normalised', () => {
    const e = encodeFetchingOptions({ victim: 0, nth: 1, axis: -1 }, site([1], [2]));
    expect([...e.bytes]).toEqual([3, 1, 0]);
    expect(decodeFetchingOptions(e.bytes, site([1], [2]))).toEqual({ inputs: [1], options: { victim: 0, nth: 1, axis: 3 } });
    // A plain fetch (no inputs) as TinySeg's graph transformer writes it: [3, 0, id].
    expect([...encodeFetchingOptions({ victim: 0, nth: 0, axis: 3 }, site([], [6])).bytes]).toEqual([3, 0, 0]);
  });

  it('writes FusedConv2D as 9 bytes, w before h, and drops the -1 bias slot', () => {
    const e = encodeFetchingConv2dOptions(conv, site([1, 3, -1], [5]));
    expect([...e.bytes]).toEqual([1, 2, 1, 3, 1, 3, 3, 0, 0]);
    expect(e.inputs).toEqual([1, 3]);
    expect(decodeFetchingConv2dOptions(e.bytes, site([...e.inputs], [5]))).toEqual({ inputs: [1, 3, -1], options: conv });
    const withBias = encodeFetchingConv2dOptions({ ...conv, nth: 1, axis: -1 }, site([1, 3, 4], [5]));
    expect(withBias.inputs).toEqual([1, 3, 4]);
    expect(decodeFetchingConv2dOptions(withBias.bytes, site([1, 3, 4], [5]))).toEqual({ inputs: [1, 3, 4], options: { ...conv, nth: 1 } });
    // TFLite's omitted optional input (-1) in the file also means no bias.
    expect(decodeFetchingConv2dOptions(e.bytes, site([1, 3, -1], [5])).inputs).toEqual([1, 3, -1]);
  });

  it('remaps slots with the tensors they name', () => {
    const op = remapOpTensors({ kind: 'fetching', inputs: [1, -1], outputs: [2], options: { victim: 0, nth: 0, axis: 3 } }, (i) => i + 10);
    expect(op).toMatchObject({ inputs: [11, -1], outputs: [12], options: { victim: 10 } });
    expect(remapOpTensors({ kind: 'spill', inputs: [0], outputs: [], options: { id: 0 } }, (i) => i + 7)).toMatchObject({ inputs: [7], options: { id: 7 } });
  });
});

describe('encoding refuses what the layout cannot carry', () => {
  it('refuses slots that are not u8 tensor indices naming the spilled part', () => {
    expect(() => encodeSpillOptions({ id: 300 }, site([0], []))).toThrowError(UNSUPPORTED);
    expect(() => encodeSpillOptions({ id: 1 }, site([0], []))).toThrowError(UNSUPPORTED);
    expect(() => encodeFetchingOptions({ victim: 256, nth: 0, axis: 3 }, site([1], [2]))).toThrowError(UNSUPPORTED);
    expect(() => encodeFetchingOptions({ victim: 1, nth: 0, axis: 3 }, site([1], [2]))).toThrowError(UNSUPPORTED);
    expect(() => encodeFetchingConv2dOptions({ ...conv, victim: 1 }, site([1, 3, -1], [5]))).toThrowError(UNSUPPORTED);
  });

  it('refuses strides and dilations outside [1, 255], axis != 3 and misplaced or too many parts', () => {
    for (const bad of [{ strideW: 256 }, { strideH: 0 }, { dilationW: 300 }, { dilationH: 0 }, { axis: 2 }, { nth: 2 }]) {
      expect(() => encodeFetchingConv2dOptions({ ...conv, ...bad }, site([1, 3, -1], [5])), JSON.stringify(bad)).toThrowError(UNSUPPORTED);
    }
    expect(() => encodeFetchingOptions({ victim: 0, nth: 2, axis: 3 }, site([1], [2]))).toThrowError(UNSUPPORTED);
    expect(() => encodeFetchingOptions({ victim: 0, nth: 0, axis: 3 }, site(Array<number>(10).fill(1), [2]))).toThrowError(UNSUPPORTED);
    expect(() => encodeFetchingConv2dOptions(conv, site([1, 3, 3], [5]))).toThrowError(UNSUPPORTED);
  });
});

describe('decoding is strict and hostile-safe', () => {
  it('refuses wrong lengths and out-of-range values', () => {
    expect(() => decodeSpillOptions(new Uint8Array(0), site([0], []))).toThrowError(INVALID);
    expect(() => decodeSpillOptions(new Uint8Array(4), site([0], []))).toThrowError(INVALID);
    expect(() => decodeFetchingOptions(Uint8Array.of(3, 0), site([1], [2]))).toThrowError(INVALID);
    expect(() => decodeFetchingOptions(Uint8Array.of(4, 0, 0), site([1], [2]))).toThrowError(INVALID);
    expect(() => decodeFetchingOptions(Uint8Array.of(3, 2, 0), site([1], [2]))).toThrowError(INVALID);
    // Two fetched parts is TinySeg's merged Fetching: valid there, one per op here.
    expect(() => decodeFetchingOptions(Uint8Array.of(3, 0, 0, 1, 6), site([], [2]))).toThrowError(UNSUPPORTED);
    const good = encodeFetchingConv2dOptions(conv, site([1, 3, -1], [5])).bytes;
    for (const [at, v] of [[0, 2], [1, 0], [2, 0], [3, 9], [4, 0], [5, 0], [6, 2], [7, 2]] as const) {
      const bad = good.slice();
      bad[at] = v;
      expect(() => decodeFetchingConv2dOptions(bad, site([1, 3], [5])), `byte ${at}`).toThrowError(INVALID);
    }
    expect(() => decodeFetchingConv2dOptions(Uint8Array.of(...good, 1, 6), site([1, 3], [5]))).toThrowError(INVALID);
  });

  it('refuses tensor ids naming a missing tensor or one that does not fit the op', () => {
    expect(() => decodeSpillOptions(Uint8Array.of(200), site([0], []))).toThrowError(INVALID);
    expect(() => decodeSpillOptions(Uint8Array.of(1), site([0], []))).toThrowError(INVALID);
    expect(() => decodeFetchingOptions(Uint8Array.of(3, 0, 200), site([1], [2]))).toThrowError(INVALID);
    expect(() => decodeFetchingOptions(Uint8Array.of(3, 0, 1), site([1], [2]))).toThrowError(INVALID);
    expect(() => decodeFetchingOptions(Uint8Array.of(2, 0, 0), site([1], [2]))).toThrowError(INVALID);
    expect(() => decodeFetchingConv2dOptions(Uint8Array.of(1, 1, 1, 0, 1, 1, 3, 0, 1), site([1, 3], [5]))).toThrowError(INVALID);
    expect(() => decodeFetchingConv2dOptions(Uint8Array.of(1, 1, 1, 0, 1, 1, 3, 0, 250), site([1, 3], [5]))).toThrowError(INVALID);
    expect(() => decodeFetchingOptions(Uint8Array.of(3, 0, 0), site([-7, 1e9], [2]))).toThrowError(INVALID);
    expect(() => decodeFetchingConv2dOptions(Uint8Array.of(1, 1, 1, 0, 1, 1, 3, 0, 0), site([], [5]))).toThrowError(INVALID);
  });

  it('gives only coded ModelErrors on random bytes and tensor indices (seeded)', () => {
    const seed = 'custom-ops-fuzz';
    const rng = seedrandom(seed);
    const pick = (): number => [-1, -9, 1e9, 0, 1, 2, 3, 4, 5, 6, 7][Math.floor(rng() * 11)] ?? 0;
    const decoders = [decodeSpillOptions, decodeFetchingOptions, decodeFetchingConv2dOptions];
    let decoded = 0;
    for (let i = 0; i < 3000; i++) {
      const bytes = Uint8Array.from({ length: Math.floor(rng() * 12) }, () => (rng() < 0.7 ? Math.floor(rng() * 8) : Math.floor(rng() * 256)));
      const s = site(Array.from({ length: Math.floor(rng() * 5) }, pick), Array.from({ length: Math.floor(rng() * 2) + (rng() < 0.9 ? 1 : 0) }, pick));
      const decode = decoders[i % 3]!;
      try {
        decode(bytes, s);
        decoded++;
      } catch (e) {
        expect(e, `seed ${seed}, case ${i}`).toBeInstanceOf(ModelError);
        expect(['E_MODEL_INVALID', 'E_MODEL_UNSUPPORTED_OP'], `seed ${seed}, case ${i}`).toContain((e as ModelError).code);
      }
    }
    expect(decoded).toBeGreaterThan(0);
  });
});
