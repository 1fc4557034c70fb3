// TinySeg storage kernels on hand-made graphs: Spill + Fetching (concatenation at any position),
// FetchingConv2D against Concatenation + Conv2D, the storage round trip (CRC, MFV), fault
// injection (flipped bit, programming a non-erased word) and C emission of the storage specs; the
// storage ops' bounded RAM: planned I/O buffers, MFV histogram and FetchingConv2D's row window, no
// simulated memory beside the arena, every streamed access traced against the plan; a compressed
// FetchingConv2D decodes its slot row by row into the window, each row and payload byte once.
import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import type { Graph, Model, Op, Tensor } from '../../src/ir/index.ts';
import { emitCKernel, MFV_HISTOGRAM_ENTRIES, STORAGE_IO_BYTES, storageUses } from '../../src/kernels/index.ts';
import { preparePlannedModel, runPlanned, tracerFor } from '../../src/optimizer/index.ts';
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
  const tr = tracerFor(pm);
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

describe('storage I/O through planned buffers (no staging)', () => {
  const fetchGraph = storageGraph([{ kind: 'fetching', inputs: [1], outputs: [2], options: { victim: 0, nth: 1, axis: 3 } }], [act('out', [1, 3, 3, 5])]);
  const fq = { scale: [0.02, 0.03], zeroPoint: [0, 0], quantizedDimension: 0 };
  const convGraph = storageGraph(
    [{ kind: 'fetchingConv2d', inputs: [1, 3, -1], outputs: [2], options: { padding: 'same', strideH: 1, strideW: 1, dilationH: 1, dilationW: 1, activation: 'none', victim: 0, nth: 0, axis: 3 } }],
    [{ ...act('y', [1, 3, 3, 2]), quant: { scale: [0.1], zeroPoint: [1], quantizedDimension: 0 } }, { name: 'f', dtype: 'int8', shape: [2, 3, 3, 5], quant: fq, data: weights('f2', 90), isVariable: false }],
  );
  /** `a` mostly one value (MFV pays off), `b` random. */
  const skewed = (seed: string): Uint8Array[] => {
    const rng = seedrandom(seed);
    return [Uint8Array.from({ length: 18 }, (_, i) => (i % 5 === 0 ? rng.int32() & 0xff : 0xf3)), Uint8Array.from({ length: 27 }, () => rng.int32() & 0xff)];
  };

  it('plans one I/O buffer per storage op, a histogram per spill and FetchingConv2D\'s row window; the arena is the whole RAM', () => {
    // convGraph: 3x3 filter over a 3x3 input with 2 spilled channels: a window of 3 rows x (3 x 2) B
    // = 18 B, requested in TFLM's 16-byte aligned units.
    for (const [name, g, window] of [['fetching', fetchGraph, []], ['fetchingConv2d', convGraph, ['1:32']]] as const) {
      const pm = preparePlannedModel(model(g));
      const scratch = pm.requests.filter((r) => r.tensor === null).map((r) => `${r.opIndex}:${r.sizeBytes}`);
      expect(scratch, name).toEqual([`0:${STORAGE_IO_BYTES}`, `0:${4 * MFV_HISTOGRAM_ENTRIES}`, `1:${STORAGE_IO_BYTES}`, ...window]);
      expect(pm.runtime.arena.sizeBytes, name).toBe(pm.arenaBytes);
      expect(pm.runtime.outsideArenaBytes, name).toBe(0);
      expect(pm.plan.peakBytes, `${name}: the I/O buffers are in the peak`).toBeGreaterThanOrEqual(STORAGE_IO_BYTES);
    }
  });

  for (const kind of ['internal', 'external', 'remote']) {
    for (const compress of [false, true]) {
      it(`${kind}${compress ? ', MFV' : ''}: Fetching and FetchingConv2D equal the reference, clean trace, round trip checked`, () => {
        for (const [name, g] of [['fetching', fetchGraph], ['fetchingConv2d', convGraph]] as const) {
          const inputs = skewed(`${kind}-${name}`);
          const want = runPlanned(preparePlannedModel(model(g)), { inputs }).outputs;
          const pm = preparePlannedModel(model(g), { storage: createStorage(getTarget('nicla-vision'), kind), compress });
          const tr = tracerFor(pm);
          const got = runPlanned(pm, { inputs, trace: tr.sink });
          tr.finish();
          expect(got.outputs, `${name}`).toEqual(want);
          expect(tr.violations(), name).toEqual([]);
          const store = pm.runtime.spillStore;
          expect(store?.violations, name).toEqual([]);
          const spill = store?.log.find((e) => e.direction === 'spill');
          const fetch = store?.log.find((e) => e.direction === 'fetch');
          // MFV applies to every slot: Fetching decodes into its output, FetchingConv2D into its row window.
          if (compress) expect(spill?.storedBytes, name).toBeLessThan(spill?.rawBytes ?? 0);
          else expect(spill?.storedBytes, name).toBe(spill?.rawBytes);
          if (name === 'fetchingConv2d') expect(fetch, name).toMatchObject({ rowsFilled: 3, payloadBytesRead: spill?.storedBytes });
          if (kind === 'remote' && name === 'fetching' && !compress) expect(store?.remoteReads, `${name}: kernel reads go through the I/O buffer`).toBeGreaterThan(0);
          if (kind === 'remote' && (compress || name === 'fetchingConv2d')) expect(fetch?.ioChunks, `${name}: the runtime's stream goes through the I/O buffer`).toBeGreaterThan(0);
        }
      });
    }
  }

  it('the streamed accesses are arena accesses the tracer checks against the plan', () => {
    const pm = preparePlannedModel(model(fetchGraph), { compress: true });
    // A tracer that knows no scratch buffers: the I/O buffer and histogram accesses fall outside the plan.
    const tr = new Tracer({ graph: pm.graph, tensorOffsets: pm.tensorOffsets, scratchOffsets: pm.scratchOffsets.map(() => []), arenaBytes: pm.arenaBytes });
    runPlanned(pm, { inputs: skewed('t'), trace: tr.sink });
    tr.finish();
    expect(tr.violations().length).toBeGreaterThan(0);
  });

  it('a storage access outside the slot, or a store, is a storage violation', () => {
    const pm = preparePlannedModel(model(fetchGraph));
    const store = pm.runtime.spillStore;
    if (store === null) throw new Error('no spill store');
    const id = pm.graph.tensors.length;
    const log = Int32Array.of((id << 4) | 1, 0, (id << 4) | 8 | 1, store.payloadAddrOf(1));
    store.traceFilter(() => undefined)(1, log, 2);
    expect(store.violations).toHaveLength(2);
  });

  it('the filter hands on the arena events in order, without the storage events', () => {
    const pm = preparePlannedModel(model(fetchGraph));
    const store = pm.runtime.spillStore;
    if (store === null) throw new Error('no spill store');
    const id = pm.graph.tensors.length;
    const at = store.payloadAddrOf(1);
    const got: number[][] = [];
    const filter = store.traceFilter((op, l, n) => got.push([op, ...l.subarray(0, 2 * n)]));
    // The fetch op (1): arena events around and between storage loads inside its slot.
    const log = Int32Array.of((0 << 4) | 1, 3, (id << 4) | 1, at, (id << 4) | 1, at + 1, (1 << 4) | 8 | 1, 5, (1 << 4) | 1, 5, (id << 4) | 1, at + 2, (2 << 4) | 1, 8);
    filter(1, log, 7);
    expect(got).toEqual([[1, (0 << 4) | 1, 3, (1 << 4) | 8 | 1, 5, (1 << 4) | 1, 5, (2 << 4) | 1, 8]]);
    // Another op's chunk goes on as it is.
    const plain = Int32Array.of((1 << 4) | 1, 7, (2 << 4) | 8 | 1, 9);
    filter(2, plain, 2);
    expect(got[1]).toEqual([2, ...plain]);
    expect(store.violations).toEqual([]);
  });
});

describe('FetchingConv2D row window (fused fetching over a compressed slot)', () => {
  // Spilled a [2,7,4,3] (two batches, mostly one value: MFV pays off), b [2,7,4,2]; 3x3 filter,
  // stride 2 and dilation 2: output rows read input rows 2 apart, windows of 5 rows, rows skipped.
  const fq = { scale: [0.02, 0.03, 0.01], zeroPoint: [0, 0, 0], quantizedDimension: 0 };
  const filter: Tensor = { name: 'f', dtype: 'int8', shape: [3, 3, 3, 5], quant: fq, data: weights('fw', 135), isVariable: false };
  const y: Tensor = { ...act('y', [2, 4, 2, 3]), quant: { scale: [0.1], zeroPoint: [-2], quantizedDimension: 0 } };
  const conv = { padding: 'same', strideH: 2, strideW: 2, dilationH: 2, dilationW: 1, activation: 'none' } as const;
  const fused: Graph = { name: 'g', tensors: [act('a', [2, 7, 4, 3]), act('b', [2, 7, 4, 2]), y, filter], inputs: [0, 1], outputs: [2],
    ops: [{ kind: 'spill', inputs: [0], outputs: [], options: { id: 0 } }, { kind: 'fetchingConv2d', inputs: [1, 3, -1], outputs: [2], options: { ...conv, victim: 0, nth: 1, axis: 3 } }] };
  const ref: Graph = { name: 'r', tensors: [act('a', [2, 7, 4, 3]), act('b', [2, 7, 4, 2]), y, filter, act('cat', [2, 7, 4, 5])], inputs: [0, 1], outputs: [2],
    ops: [{ kind: 'concatenation', inputs: [1, 0], outputs: [4], options: { axis: 3, activation: 'none' } }, { kind: 'conv2d', inputs: [4, 3, -1], outputs: [2], options: conv }] };
  const inputs = (seed: string): Uint8Array[] => {
    const rng = seedrandom(seed);
    return [Uint8Array.from({ length: 168 }, (_, i) => (i % 3 === 0 ? rng.int32() & 0xff : 0x11)), Uint8Array.from({ length: 112 }, () => rng.int32() & 0xff)];
  };

  for (const compress of [false, true]) {
    it(`${compress ? 'MFV' : 'raw'}: equals Concatenation + Conv2D, clean trace, each row filled once and each payload byte read once`, () => {
      for (const seed of ['w1', 'w2']) {
        const want = runPlanned(preparePlannedModel(model(ref)), { inputs: inputs(seed) }).outputs;
        const pm = preparePlannedModel(model(fused), { compress });
        const tr = tracerFor(pm);
        const got = runPlanned(pm, { inputs: inputs(seed), trace: tr.sink });
        tr.finish();
        expect(got.outputs, seed).toEqual(want);
        expect(tr.violations(), seed).toEqual([]);
        const store = pm.runtime.spillStore;
        expect(store?.violations).toEqual([]);
        const spill = store?.log.find((e) => e.direction === 'spill');
        const fetch = store?.log.find((e) => e.direction === 'fetch');
        if (compress) expect(spill?.storedBytes).toBeLessThan(spill?.rawBytes ?? 0);
        // 2 batches x 7 rows, each decoded once; the payload streamed once, never re-read.
        expect(fetch).toMatchObject({ rowsFilled: 14, payloadBytesRead: spill?.storedBytes });
        expect(pm.runtime.outsideArenaBytes).toBe(0);
      }
    });
  }

  it('the row window is a planned scratch buffer: a plan without it makes the tracer report the window accesses', () => {
    const pm = preparePlannedModel(model(fused), { compress: true });
    // (3-1)*2+1 = 5 rows of 4 x 3 B = 60 B, in 16-byte aligned units.
    const win = pm.requests.find((r) => r.tensor === null && r.opIndex === 1 && r.sizeBytes === 64);
    expect(win, 'the row window request').toBeDefined();
    expect(pm.scratchOffsets[1]).toHaveLength(2);
    const withoutWindow = pm.scratchOffsets.map((s, i) => (i === 1 ? s.slice(0, 1) : s));
    const tr = new Tracer({ graph: pm.graph, tensorOffsets: pm.tensorOffsets, scratchOffsets: withoutWindow, arenaBytes: pm.arenaBytes });
    runPlanned(pm, { inputs: inputs('w3'), trace: tr.sink });
    tr.finish();
    expect(tr.violations().length).toBeGreaterThan(0);
  });
});
