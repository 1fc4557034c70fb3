// TinySeg storage kernels on hand-made graphs: Spill + Fetching (concatenation at any position),
// FetchingConv2D against Concatenation + Conv2D, the storage round trip (CRC, MFV), fault
// injection (flipped bit, programming a non-erased word) and C emission of the storage specs.
import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import type { Graph, Model, Op, Tensor } from '../../src/ir/index.ts';
import { emitCKernel, storageUses } from '../../src/kernels/index.ts';
import { preparePlannedModel, runPlanned } from '../../src/optimizer/index.ts';
import { createStorage, getTarget, spillBlock, Tracer } from '../../src/sim/index.ts';

const q = { scale: [0.05], zeroPoint: [3], quantizedDimension: 0 };
const act = (name: string, shape: number[]): Tensor => ({ name, dtype: 'int8', shape, quant: q, data: null, isVariable: false });
const model = (graph: Graph): Model => ({ version: 3, description: '', graph, metadata: [], signatureDefs: [] });

function weights(seed: string, n: number): Uint8Array {
  const rng = seedrandom(seed);
  return Uint8Array.from({ length: n }, () => rng.int32() & 0xff);
}

/** inputs a [1,3,3,2], b [1,3,3,3]; Spill(a), then `tail` ops. */
function storageGraph(tail: Op[], extra: Tensor[]): Graph {
  return { name: 'g', tensors: [act('a', [1, 3, 3, 2]), act('b', [1, 3, 3, 3]), ...extra], inputs: [0, 1], outputs: [2],
    ops: [{ kind: 'spill', inputs: [0], outputs: [], options: { id: 0 } }, ...tail] };
}

function runTraced(m: Model, seed: number) {
  const pm = preparePlannedModel(m);
  const tr = new Tracer({ graph: pm.graph, tensorOffsets: pm.tensorOffsets, scratchOffsets: pm.scratchOffsets, arenaBytes: pm.arenaBytes });
  const out = runPlanned(pm, { seed, trace: tr.sink });
  tr.finish();
  return { out, tr, pm };
}

describe('Fetching', () => {
  for (const nth of [0, 1]) {
    it(`concatenates the fetched tensor at position ${nth}, clean trace`, () => {
      const g = storageGraph([{ kind: 'fetching', inputs: [1], outputs: [2], options: { victim: 0, nth, axis: 3 } }], [act('out', [1, 3, 3, 5])]);
      const { out, tr, pm } = runTraced(model(g), 7);
      const [a, b] = out.inputs as [Uint8Array, Uint8Array];
      const expected = new Uint8Array(45);
      for (let p = 0; p < 9; p++) {
        const parts = nth === 0 ? [a.subarray(2 * p, 2 * p + 2), b.subarray(3 * p, 3 * p + 3)] : [b.subarray(3 * p, 3 * p + 3), a.subarray(2 * p, 2 * p + 2)];
        expected.set(parts[0]!, 5 * p);
        expected.set(parts[1]!, 5 * p + parts[0]!.length);
      }
      expect(out.outputs[0]).toEqual(expected);
      expect(tr.violations()).toEqual([]);
      expect(pm.runtime.spillStore?.violations).toEqual([]);
      expect(pm.runtime.spillStore?.log.map((e) => e.direction)).toEqual(['spill', 'fetch']);
    });
  }

  it('a fetch of a slot never spilled, or of another size, is a model error', () => {
    const bad = storageGraph([{ kind: 'fetching', inputs: [1], outputs: [2], options: { victim: 5, nth: 0, axis: 3 } }], [act('out', [1, 3, 3, 5])]);
    expect(() => storageUses(bad)).toThrowError(expect.objectContaining({ code: 'E_MODEL_INVALID' }));
    const wrong = storageGraph([{ kind: 'fetching', inputs: [1], outputs: [2], options: { victim: 0, nth: 0, axis: 3 } }], [act('out', [1, 3, 3, 6])]);
    expect(() => storageUses(wrong)).toThrowError(expect.objectContaining({ code: 'E_MODEL_INVALID' }));
  });
});

describe('FetchingConv2D', () => {
  const fq = { scale: [0.02, 0.03, 0.025, 0.01], zeroPoint: [0, 0, 0, 0], quantizedDimension: 0 };
  const filter: Tensor = { name: 'f', dtype: 'int8', shape: [4, 3, 3, 5], quant: fq, data: weights('f', 180), isVariable: false };
  const biasData = new Uint8Array(16);
  [100, -2000, 37, 5].forEach((v, i) => new DataView(biasData.buffer).setInt32(4 * i, v, true));
  const bias: Tensor = { name: 'bias', dtype: 'int32', shape: [4], quant: { scale: [0.001], zeroPoint: [0], quantizedDimension: 0 }, data: biasData, isVariable: false };
  const out: Tensor = { ...act('y', [1, 3, 3, 4]), quant: { scale: [0.1], zeroPoint: [-5], quantizedDimension: 0 } };
  const conv = { padding: 'same', strideH: 1, strideW: 1, dilationH: 1, dilationW: 1, activation: 'relu' } as const;

  it('equals Concatenation + Conv2D for the victim first and last', () => {
    for (const nth of [0, 1]) {
      const fused = storageGraph([{ kind: 'fetchingConv2d', inputs: [1, 3, 4], outputs: [2], options: { ...conv, victim: 0, nth, axis: 3 } }], [out, filter, bias]);
      const ref: Graph = { name: 'r', tensors: [act('a', [1, 3, 3, 2]), act('b', [1, 3, 3, 3]), out, filter, bias, act('cat', [1, 3, 3, 5])], inputs: [0, 1], outputs: [2],
        ops: [{ kind: 'concatenation', inputs: nth === 0 ? [0, 1] : [1, 0], outputs: [5], options: { axis: 3, activation: 'none' } }, { kind: 'conv2d', inputs: [5, 3, 4], outputs: [2], options: conv }] };
      for (const seed of [1, 2]) {
        const f = runTraced(model(fused), seed);
        const r = runPlanned(preparePlannedModel(model(ref)), { seed });
        expect(f.out.outputs[0], `nth ${nth} seed ${seed}`).toEqual(r.outputs[0]);
        expect(f.tr.violations()).toEqual([]);
      }
    }
  });

  it('emits C for Spill, Fetching and FetchingConv2D', () => {
    const g = storageGraph([{ kind: 'fetchingConv2d', inputs: [1, 3, 4], outputs: [2], options: { ...conv, victim: 0, nth: 0, axis: 3 } }], [out, filter, bias]);
    const pm = preparePlannedModel(model(g));
    for (const inst of pm.runtime.instances) expect(emitCKernel(inst)).toBeTruthy();
  });
});

describe('storage faults', () => {
  const g = storageGraph([{ kind: 'fetching', inputs: [1], outputs: [2], options: { victim: 0, nth: 0, axis: 3 } }], [act('out', [1, 3, 3, 5])]);

  it('a flipped bit in a spilled block is detected on fetch', () => {
    for (const kind of ['internal', 'external', 'remote']) {
      const device = createStorage(getTarget('nicla-vision'), kind);
      const pm = preparePlannedModel(model(g), { storage: device });
      const addr = pm.runtime.spillStore?.log[0]?.addr ?? 0;
      expect(() => runPlanned(pm, { seed: 3, onOp: (i) => i === 0 && device.flipBit(addr + 20, 2) }), kind).toThrowError(expect.objectContaining({ code: 'E_STORAGE' }));
    }
  });

  it('round-trips with MFV compression', () => {
    const pm = preparePlannedModel(model(g), { compress: true });
    const plain = runPlanned(preparePlannedModel(model(g)), { seed: 4 });
    expect(runPlanned(pm, { seed: 4 }).outputs).toEqual(plain.outputs);
    expect(pm.runtime.spillStore?.violations).toEqual([]);
  });

  it('programming a non-erased word is refused', () => {
    const device = createStorage(getTarget('nicla-vision'), 'internal');
    const payload = new Uint8Array(64).fill(7);
    spillBlock(device, { addr: 0, blockId: 1, payload });
    expect(() => spillBlock(device, { addr: 0, blockId: 1, payload, erase: 'none' })).toThrowError(expect.objectContaining({ code: 'E_STORAGE' }));
  });
});
