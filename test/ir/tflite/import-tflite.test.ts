// importTflite on hand-built and damaged files: every problem is a coded ModelError naming
// where it is, several problems are reported together, and hostile sizes are refused cheaply.
import { readFileSync } from 'node:fs';
import { Builder, ByteBuffer } from 'flatbuffers';
import { describe, expect, it } from 'vitest';
import { ModelError } from '../../../src/ir/errors.ts';
import type { Model } from '../../../src/ir/graph.ts';
import { encodeTflite, exportTflite } from '../../../src/ir/tflite/export-tflite.ts';
import { importTflite } from '../../../src/ir/tflite/import-tflite.ts';
import * as S from '../../../src/ir/tflite/schema-generated.ts';
import { buildRaw, codeOf, convModel, filled, makeModel, ORACLE, rawAddModel, tensor } from './fixtures.ts';
import { itWithData } from '../../oracle-paths.ts';

function errorOf(fn: () => unknown): ModelError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ModelError) return e;
    throw e;
  }
  throw new Error('expected a ModelError');
}

const simpleAdd = (): Uint8Array => new Uint8Array(readFileSync(`${ORACLE}/models/simple_add_model.tflite`));

/** Position of the uoffset stored in field `slot` (vtable offset) of the root table. */
function rootFieldPos(bytes: Uint8Array, slot: number): number {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
  const root = view.getUint32(0, true);
  const vtable = root - view.getInt32(root, true);
  return root + view.getUint16(vtable + slot, true);
}

describe('importTflite: file structure', () => {
  it('reads a hand-built raw model', () => {
    const m = importTflite(buildRaw(rawAddModel()));
    expect(m.graph.ops).toEqual([{ kind: 'add', inputs: [0, 1], outputs: [2], options: { activation: 'none', potScaleInt16: true } }]);
  });

  itWithData('models', 'refuses a wrong file identifier', () => {
    const bytes = simpleAdd();
    bytes[4] = 'X'.charCodeAt(0);
    expect(codeOf(() => importTflite(bytes))).toBe('E_MODEL_IDENTIFIER');
    expect(codeOf(() => importTflite(new TextEncoder().encode('not a model at all, no')))).toBe('E_MODEL_IDENTIFIER');
  });

  itWithData('models', 'refuses files shorter than the header', () => {
    for (const n of [0, 1, 4, 7]) expect(codeOf(() => importTflite(simpleAdd().subarray(0, n)))).toBe('E_MODEL_TRUNCATED');
  });

  itWithData('models', 'refuses every truncation of a model as truncated', () => {
    const bytes = simpleAdd();
    const codes = new Set<string>();
    for (let n = 8; n < bytes.length; n++) codes.add(codeOf(() => importTflite(bytes.subarray(0, n))));
    expect([...codes]).toEqual(['E_MODEL_TRUNCATED']);
  });

  itWithData('models', 'refuses corrupted offsets', () => {
    const negativeRoot = simpleAdd();
    new DataView(negativeRoot.buffer).setUint32(0, 0xfffffff0, true);
    expect(codeOf(() => importTflite(negativeRoot))).toBe('E_MODEL_OFFSET');

    const badVtable = simpleAdd();
    const view = new DataView(badVtable.buffer);
    const root = view.getUint32(0, true);
    view.setInt32(root, root + 1000, true); // vtable before the start of the file
    expect(codeOf(() => importTflite(badVtable))).toBe('E_MODEL_OFFSET');

    const badSubgraphs = simpleAdd();
    new DataView(badSubgraphs.buffer).setUint32(rootFieldPos(badSubgraphs, 8), 0x80000000, true);
    expect(codeOf(() => importTflite(badSubgraphs))).toBe('E_MODEL_OFFSET');

    const pastEnd = simpleAdd();
    new DataView(pastEnd.buffer).setUint32(rootFieldPos(pastEnd, 12), 0x100000, true);
    expect(codeOf(() => importTflite(pastEnd))).toBe('E_MODEL_TRUNCATED');
  });

  itWithData('models', 'refuses a vector whose length runs past the end of the file', () => {
    const bytes = simpleAdd();
    const view = new DataView(bytes.buffer);
    const field = rootFieldPos(bytes, 8);
    const vector = field + view.getUint32(field, true);
    view.setUint32(vector, 0x7ffffff0, true);
    expect(codeOf(() => importTflite(bytes))).toBe('E_MODEL_TRUNCATED');
  });

  it('stops objects shared through many offsets from multiplying the work', () => {
    const b = new Builder(1024);
    const shape = S.Tensor.createShapeVector(b, new Array<number>(20000).fill(1));
    S.Tensor.startTensor(b);
    S.Tensor.addShape(b, shape);
    S.Tensor.addType(b, S.TensorType.INT8);
    const t = S.Tensor.endTensor(b);
    const tensors = S.SubGraph.createTensorsVector(b, new Array<number>(5000).fill(t));
    const sg = S.SubGraph.createSubGraph(b, tensors, 0, 0, 0, 0, -1);
    const root = S.Model.createModel(b, 3, 0, S.Model.createSubgraphsVector(b, [sg]), 0, 0, 0, 0, 0, 0, 0);
    b.finish(root, 'TFL3');
    const t0 = performance.now();
    expect(codeOf(() => importTflite(b.asUint8Array()))).toBe('E_MODEL_CORRUPT');
    console.log(`shared-offset bomb (${b.asUint8Array().length} B, 10^8 virtual dims) refused in ${(performance.now() - t0).toFixed(1)} ms`);
  });

  it('requires exactly one subgraph', () => {
    const sg = rawAddModel().subgraphs[0]!;
    expect(codeOf(() => importTflite(buildRaw(rawAddModel({ subgraphs: [sg, sg] }))))).toBe('E_MODEL_SUBGRAPHS');
    expect(codeOf(() => importTflite(buildRaw(rawAddModel({ subgraphs: [] }))))).toBe('E_MODEL_SUBGRAPHS');
  });
});

describe('importTflite: tensors', () => {
  it('refuses a 2^40-byte tensor without allocating it', () => {
    const raw = rawAddModel();
    const sg = raw.subgraphs[0]!;
    const huge = { type: S.TensorType.INT8, shape: [1 << 20, 1 << 20] };
    const bytes = buildRaw({ ...raw, subgraphs: [{ ...sg, tensors: [huge, huge, huge] }] });
    const before = process.memoryUsage().arrayBuffers;
    const t0 = performance.now();
    const err = errorOf(() => importTflite(bytes));
    const ms = performance.now() - t0;
    expect(err.code).toBe('E_MODEL_TENSOR_SIZE');
    expect(err.issues.map((i) => i.tensorIndex)).toEqual([0, 1, 2]);
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(1 << 20);
    console.log(`2^40-byte tensors refused in ${ms.toFixed(2)} ms`);
  });

  it('refuses a huge constant even when its buffer is tiny', () => {
    const raw = rawAddModel({ buffers: [{}, { data: filled(16) }] });
    const sg = raw.subgraphs[0]!;
    const tensors = [sg.tensors[0]!, { type: S.TensorType.FLOAT32, shape: [1 << 16, 1 << 16, 1 << 16], buffer: 1 }, sg.tensors[2]!];
    expect(codeOf(() => importTflite(buildRaw({ ...raw, subgraphs: [{ ...sg, tensors }] })))).toBe('E_MODEL_TENSOR_SIZE');
  });

  it('refuses constant data whose length differs from the shape', () => {
    const raw = rawAddModel({ buffers: [{}, { data: filled(3) }] });
    const sg = raw.subgraphs[0]!;
    const tensors = [sg.tensors[0]!, { type: S.TensorType.INT8, shape: [1, 4], buffer: 1 }, sg.tensors[2]!];
    const err = errorOf(() => importTflite(buildRaw({ ...raw, subgraphs: [{ ...sg, tensors, inputs: [0] }] })));
    expect(err.code).toBe('E_MODEL_TENSOR_SIZE');
    expect(err.issues[0]?.tensorIndex).toBe(1);
  });

  it('refuses unsupported and unknown tensor types, naming the tensor', () => {
    for (const type of [S.TensorType.STRING, S.TensorType.COMPLEX64, S.TensorType.INT4, S.TensorType.RESOURCE, S.TensorType.VARIANT, 99]) {
      const raw = rawAddModel();
      const sg = raw.subgraphs[0]!;
      const tensors = [sg.tensors[0]!, { type, shape: [1, 4], name: 'weird' }, sg.tensors[2]!];
      const err = errorOf(() => importTflite(buildRaw({ ...raw, subgraphs: [{ ...sg, tensors }] })));
      expect(err.code).toBe('E_MODEL_DTYPE');
      expect(err.issues[0]).toMatchObject({ tensorIndex: 1, tensorName: 'weird' });
    }
  });

  it('reads per-channel scales and zero points whole (negative, large, float bits kept) and names an out-of-range zero point', () => {
    const scales = [0.01, 1e-30, 3.4e38, 1 / 3].map(Math.fround);
    const zps = [-128, 127, -(2 ** 40), 2 ** 53 - 1];
    const m = convModel();
    const filter = { ...m.graph.tensors[1]!, quant: { scale: scales, zeroPoint: zps, quantizedDimension: 0 } };
    const tensors = [...m.graph.tensors];
    tensors[1] = filter;
    const model = { ...m, graph: { ...m.graph, tensors } };
    const q = importTflite(encodeTflite(model)).graph.tensors[1]?.quant;
    expect(q?.scale).toEqual(scales);
    expect(q?.zeroPoint).toEqual(zps);
    const bad = { ...model, graph: { ...model.graph, tensors: tensors.map((t, i) => (i === 1 ? { ...filter, quant: { ...filter.quant, zeroPoint: [0, 2 ** 60, -(2 ** 60), 1] } } : t)) } };
    const e = errorOf(() => importTflite(encodeTflite(bad)));
    expect(e.message).toContain(`zero point ${2n ** 60n} is out of range`);
    expect(e.message).toContain(`zero point ${-(2n ** 60n)} is out of range`);
    expect(e.message).toContain("tensor 1 'filter'");
  });

  it('refuses dynamic (-1) dims', () => {
    const raw = rawAddModel();
    const sg = raw.subgraphs[0]!;
    const tensors = sg.tensors.map((t) => ({ ...t, shape: [-1, 4] }));
    expect(codeOf(() => importTflite(buildRaw({ ...raw, subgraphs: [{ ...sg, tensors }] })))).toBe('E_MODEL_SHAPE');
  });

  it('reads buffer data stored after the flatbuffer (offset/size), with range checks', () => {
    const tail = new Uint8Array([1, 2, 3, 4]);
    const at = (offset: bigint, extra: Uint8Array | undefined) => {
      const raw = rawAddModel({ buffers: [{}, { offset, size: 4n }], ...(extra ? { tail: extra } : {}) });
      const sg = raw.subgraphs[0]!;
      return { ...raw, subgraphs: [{ ...sg, tensors: [sg.tensors[0]!, { ...sg.tensors[1]!, buffer: 1 }, sg.tensors[2]!], inputs: [0] }] };
    };
    // The flatbuffer's length does not depend on the offset value, so measure it first.
    const bodyLength = buildRaw(at(2n, undefined)).length;
    const withConst = at(BigInt(bodyLength), tail);
    const m = importTflite(buildRaw(withConst));
    expect([...(m.graph.tensors[1]?.data ?? [])]).toEqual([1, 2, 3, 4]);

    const beyond = at(BigInt(bodyLength + 2), tail);
    expect(codeOf(() => importTflite(buildRaw(beyond)))).toBe('E_MODEL_TRUNCATED');
  });
});

describe('importTflite: operators', () => {
  it('refuses unsupported builtins, naming the op index and builtin', () => {
    const raw = rawAddModel({ opcodes: [{ builtin: S.BuiltinOperator.LSH_PROJECTION }] });
    const err = errorOf(() => importTflite(buildRaw(raw)));
    expect(err.code).toBe('E_MODEL_UNSUPPORTED_OP');
    expect(err.issues[0]).toMatchObject({ opIndex: 0, opKind: 'LSH_PROJECTION' });
    const big = errorOf(() => importTflite(buildRaw(rawAddModel({ opcodes: [{ builtin: S.BuiltinOperator.GELU, deprecated: 127 }] }))));
    expect(big.issues[0]).toMatchObject({ opIndex: 0, opKind: 'GELU' });
  });

  it('reads the opcode as max(builtin_code, deprecated_builtin_code)', () => {
    const old = importTflite(buildRaw(rawAddModel({ opcodes: [{ builtin: 0, deprecated: S.BuiltinOperator.MUL }] })));
    expect(old.graph.ops[0]?.kind).toBe('mul');
    const modern = importTflite(buildRaw(rawAddModel({ opcodes: [{ builtin: S.BuiltinOperator.MUL, deprecated: 0 }] })));
    expect(modern.graph.ops[0]?.kind).toBe('mul');
  });

  it('refuses an opcode index out of range and a tensor index out of range', () => {
    const raw = rawAddModel();
    const sg = raw.subgraphs[0]!;
    expect(codeOf(() => importTflite(buildRaw({ ...raw, subgraphs: [{ ...sg, ops: [{ opcode: 3, inputs: [0, 1], outputs: [2] }] }] })))).toBe(
      'E_MODEL_INVALID',
    );
    const err = errorOf(() => importTflite(buildRaw({ ...raw, subgraphs: [{ ...sg, ops: [{ opcode: 0, inputs: [0, 7], outputs: [2] }] }] })));
    expect(err.code).toBe('E_MODEL_INVALID');
    expect(err.issues[0]).toMatchObject({ opIndex: 0, opKind: 'add' });
  });

  it('reports a cycle', () => {
    const cyclic: Model = makeModel(
      [tensor('x', 'int8', [1, 4]), tensor('a', 'int8', [1, 4]), tensor('b', 'int8', [1, 4])],
      [
        { kind: 'add', inputs: [0, 2], outputs: [1], options: { activation: 'none', potScaleInt16: true } },
        { kind: 'relu', inputs: [1], outputs: [2], options: {} },
      ],
      [0],
      [2],
    );
    const err = errorOf(() => importTflite(encodeTflite(cyclic)));
    expect(err.code).toBe('E_MODEL_CYCLE');
    expect(err.issues[0]).toMatchObject({ opIndex: 0, opKind: 'add', tensorIndex: 2, tensorName: 'b' });
  });

  it('reports an inconsistent conv output shape with op and tensor', () => {
    const err = errorOf(() => importTflite(encodeTflite(convModel([1, 8, 8, 5]))));
    expect(err.code).toBe('E_MODEL_SHAPE');
    expect(err.issues[0]).toMatchObject({ opIndex: 0, opKind: 'conv2d', tensorIndex: 3, tensorName: 'output' });
  });

  it('reports several problems in one error', () => {
    const raw = rawAddModel({ opcodes: [{ builtin: S.BuiltinOperator.ADD }, { builtin: S.BuiltinOperator.LSH_PROJECTION }] });
    const sg = raw.subgraphs[0]!;
    const tensors = [sg.tensors[0]!, { type: S.TensorType.STRING, shape: [1, 4] }, { type: S.TensorType.INT8, shape: [1 << 30, 1 << 30] }];
    const ops = [...sg.ops, { opcode: 1, inputs: [2], outputs: [2] }];
    const err = errorOf(() => importTflite(buildRaw({ ...raw, subgraphs: [{ ...sg, tensors, ops }] })));
    expect(new Set(err.issues.map((i) => i.code))).toEqual(new Set(['E_MODEL_DTYPE', 'E_MODEL_TENSOR_SIZE', 'E_MODEL_UNSUPPORTED_OP']));
    expect(err.issues.find((i) => i.code === 'E_MODEL_UNSUPPORTED_OP')).toMatchObject({ opIndex: 1, opKind: 'LSH_PROJECTION' });
  });

  it('round-trips custom ops with their option bytes', () => {
    const base = makeModel(
      [tensor('x', 'int8', [1, 4]), tensor('y', 'int8', [1, 4])],
      [{ kind: 'custom', customCode: 'VendorOp', customOptions: new Uint8Array([7, 1, 2, 3]), inputs: [0], outputs: [1] }],
      [0],
      [1],
    );
    const bytes = exportTflite(base);
    const m = importTflite(bytes);
    expect(m.graph.ops[0]).toEqual(base.graph.ops[0]);
    const fb = S.Model.getRootAsModel(new ByteBuffer(bytes));
    expect(fb.operatorCodes(0)?.builtinCode()).toBe(S.BuiltinOperator.CUSTOM);
    expect(fb.operatorCodes(0)?.customCode()).toBe('VendorOp');
    expect(fb.subgraphs(0)?.operators(0)?.customOptionsFormat()).toBe(S.CustomOptionsFormat.FLEXBUFFERS);
  });
});
