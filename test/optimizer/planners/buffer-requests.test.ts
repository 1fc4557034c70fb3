// computeBufferRequests on synthetic graphs: which tensors are planned, TFLM lifetimes,
// scratch requests (MEAN, TRANSPOSE_CONV), offline offsets and coded errors.
import { describe, expect, it } from 'vitest';
import { ModelError, withOfflinePlan } from '../../../src/ir/index.ts';
import type { Model, Op, Tensor } from '../../../src/ir/index.ts';
import { scratchRequests } from '../../../src/kernels/index.ts';
import { computeBufferRequests, computeModelBufferRequests } from '../../../src/optimizer/index.ts';
import { act, constant, graphOf } from '../helpers.ts';

const conv = (inputs: number[], outputs: number[]): Op => ({
  kind: 'conv2d',
  inputs,
  outputs,
  options: { padding: 'same', strideH: 1, strideW: 1, dilationH: 1, dilationW: 1, activation: 'none' },
});
const add = (inputs: number[], outputs: number[]): Op => ({ kind: 'add', inputs, outputs, options: { activation: 'none', potScaleInt16: false } });

const quantized = (t: Tensor): Tensor => ({ ...t, quant: { scale: [Math.fround(0.05)], zeroPoint: [0], quantizedDimension: 0 } });
const int32s = (name: string, values: number[]): Tensor => ({ ...constant(name, [values.length], 'int32'), data: new Uint8Array(Int32Array.from(values).buffer) });

describe('computeBufferRequests', () => {
  // t0 input -> conv(w1, b2 omitted) -> t3 -> add(t3, t0) -> t4 (output); t5 zero-size, t6 variable
  const tensors = [
    act('in', [1, 4, 4, 3]),
    constant('w', [8, 3, 3, 3]),
    constant('b', [8], 'int32'),
    act('mid', [1, 4, 4, 8]),
    act('out', [1, 4, 4, 8]),
    act('empty', [0, 4]),
    { ...act('state', [1, 16]), isVariable: true },
  ];
  const graph = graphOf(tensors, [conv([0, 1, -1], [3]), add([3, 0], [4])], [0], [4]);

  it('lists non-constant, non-variable, non-empty tensors by index with 16-byte sizes', () => {
    const rs = computeBufferRequests(graph);
    expect(rs.map((r) => r.tensor)).toEqual([0, 3, 4]);
    expect(rs.map((r) => r.sizeBytes)).toEqual([48, 128, 128]);
    expect(rs.map((r) => r.id)).toEqual([0, 1, 2]);
  });

  it('uses allocation scope counts: inputs at 0, op i at i+1, outputs to the end', () => {
    const rs = computeBufferRequests(graph);
    expect(rs.map((r) => [r.firstStep, r.lastStep])).toEqual([
      [0, 2],
      [1, 2],
      [2, 2],
    ]);
  });

  it('restarts a graph output at the op that produces it (UpdateFirstCreated), and keeps it to the end', () => {
    const g = graphOf([act('in', [4]), act('out', [4]), act('tail', [4])], [add([0, 0], [1]), add([0, 0], [2])], [0], [1, 2]);
    const rs = computeBufferRequests(g);
    expect(rs.map((r) => [r.firstStep, r.lastStep])).toEqual([
      [0, 2],
      [1, 2],
      [2, 2],
    ]);
  });

  it('appends scratch buffers in op order with the requesting op scope', () => {
    // Kernel-valid ops (planning prepares the ops that request scratch, as TFLM's Prepare does).
    const mean: Op = { kind: 'mean', inputs: [0, 1], outputs: [2], options: { keepDims: true } };
    const tconv: Op = {
      kind: 'transposeConv',
      inputs: [3, 4, 2, -1],
      outputs: [5],
      options: { padding: 'same', strideH: 2, strideW: 2, activation: 'none' },
    };
    const g = graphOf(
      [
        quantized(act('in', [1, 7, 7, 1280])),
        int32s('axis', [1, 2]),
        quantized(act('m', [1, 1, 1, 1280])),
        int32s('shape', [1, 2, 2, 4]),
        { ...constant('f', [4, 2, 2, 1280]), quant: { scale: [0.01, 0.01, 0.01, 0.01], zeroPoint: [0, 0, 0, 0], quantizedDimension: 0 } },
        quantized(act('up', [1, 2, 2, 4])),
      ],
      [mean, tconv],
      [0],
      [5],
    );
    // mobilenet_v2's MEAN (oracle meta.json: 5120, 16, 16 after 16-byte rounding) and an int8
    // transposeConv: output elements x 4.
    expect(scratchRequests(g, 0)).toEqual([5120, 16, 8]);
    expect(scratchRequests(g, 1)).toEqual([64]);
    const scratch = computeBufferRequests(g).filter((r) => r.tensor === null);
    expect(scratch.map((r) => [r.scratchIndex, r.opIndex, r.sizeBytes, r.firstStep, r.lastStep])).toEqual([
      [0, 0, 5120, 1, 1],
      [1, 0, 16, 1, 1],
      [2, 0, 16, 1, 1],
      [3, 1, 64, 2, 2],
    ]);
  });

  it('takes offline offsets from OfflineMemoryAllocation metadata (-1 = online)', () => {
    const base: Model = { version: 3, description: '', graph, metadata: [], signatureDefs: [] };
    const model = withOfflinePlan(base, [256, -1, -1, 0, -1, -1, -1]);
    expect(computeModelBufferRequests(model).map((r) => r.offlineOffsetBytes)).toEqual([256, 0, null]);
    expect(() => computeBufferRequests(graph, { offlineOffsets: [1, 2] })).toThrow(ModelError);
  });

  it('reports dangling tensor indices as a ModelError with every issue', () => {
    const g = graphOf([act('in', [4])], [add([0, 7], [9])], [0], [9]);
    try {
      computeBufferRequests(g);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ModelError);
      expect((e as ModelError).code).toBe('E_MODEL_INVALID');
      expect((e as ModelError).issues).toHaveLength(3);
    }
  });
});
