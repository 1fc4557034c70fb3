// Test helpers: tiny IR models built by hand, and a raw flatbuffer writer that can express what
// the IR cannot (unknown tensor types, unsupported builtins, several subgraphs, external buffers).
import { Builder } from 'flatbuffers';
import type { Offset } from 'flatbuffers';
import type { DType } from '../../../src/ir/dtype.ts';
import { ModelError } from '../../../src/ir/errors.ts';
import type { Model, Op, Quantization, Tensor } from '../../../src/ir/graph.ts';
import * as S from '../../../src/ir/tflite/schema-generated.ts';

import { ORACLE } from '../../oracle-paths.ts';
export { ORACLE };

export function tensor(name: string, dtype: DType, shape: readonly number[], extra: Partial<Tensor> = {}): Tensor {
  return { name, dtype, shape, quant: null, data: null, isVariable: false, ...extra };
}

export function quant(scale: number[], zeroPoint = scale.map(() => 0), quantizedDimension = 0): Quantization {
  return { scale: scale.map(Math.fround), zeroPoint, quantizedDimension };
}

/** Constant int32 tensor holding `values` (axis, shape, paddings...). */
export function int32Const(name: string, values: readonly number[], shape: readonly number[] = [values.length]): Tensor {
  const data = new Uint8Array(values.length * 4);
  const view = new DataView(data.buffer);
  values.forEach((v, i) => view.setInt32(i * 4, v, true));
  return tensor(name, 'int32', shape, { data });
}

export function filled(bytes: number, seed = 1): Uint8Array {
  const d = new Uint8Array(bytes);
  for (let i = 0; i < bytes; i++) d[i] = (i * 31 + seed * 7) & 0xff;
  return d;
}

export function makeModel(tensors: Tensor[], ops: Op[], inputs: number[], outputs: number[], extra: Partial<Model> = {}): Model {
  return { version: 3, description: '', graph: { name: 'main', tensors, ops, inputs, outputs }, metadata: [], signatureDefs: [], ...extra };
}

/** input [1,8,8,3] -> conv 3x3 SAME stride 1, 4 filters -> [1,8,8,4] (or `outShape`). */
export function convModel(outShape: readonly number[] = [1, 8, 8, 4]): Model {
  const q = quant([0.05], [-3]);
  return makeModel(
    [
      tensor('input', 'int8', [1, 8, 8, 3], { quant: q }),
      tensor('filter', 'int8', [4, 3, 3, 3], { quant: quant([0.01, 0.02, 0.03, 0.04]), data: filled(108) }),
      tensor('bias', 'int32', [4], { quant: quant([0.0005, 0.001, 0.0015, 0.002]), data: filled(16, 2) }),
      tensor('output', 'int8', outShape, { quant: quant([0.1], [5]) }),
    ],
    [
      {
        kind: 'conv2d',
        inputs: [0, 1, 2],
        outputs: [3],
        options: { padding: 'same', strideH: 1, strideW: 1, dilationH: 1, dilationW: 1, activation: 'relu' },
      },
    ],
    [0],
    [3],
  );
}

// ---- raw flatbuffer writer ----

export interface RawTensor {
  readonly type: number;
  readonly shape: readonly number[];
  readonly buffer?: number;
  readonly name?: string;
}
export interface RawOp {
  readonly opcode: number;
  readonly inputs: readonly number[];
  readonly outputs: readonly number[];
}
export interface RawSubgraph {
  readonly tensors: readonly RawTensor[];
  readonly ops: readonly RawOp[];
  readonly inputs: readonly number[];
  readonly outputs: readonly number[];
}
export interface RawBuffer {
  readonly data?: Uint8Array;
  readonly offset?: bigint;
  readonly size?: bigint;
}
export interface RawModel {
  readonly opcodes: readonly { readonly builtin: number; readonly deprecated?: number; readonly custom?: string }[];
  readonly subgraphs: readonly RawSubgraph[];
  readonly buffers: readonly RawBuffer[];
  /** Bytes appended after the flatbuffer (for Buffer.offset/size). */
  readonly tail?: Uint8Array;
}

function rawSubgraph(b: Builder, sg: RawSubgraph): Offset {
  const tensors = sg.tensors.map((t) => {
    const shape = S.Tensor.createShapeVector(b, [...t.shape]);
    const name = b.createString(t.name ?? 't');
    S.Tensor.startTensor(b);
    S.Tensor.addShape(b, shape);
    S.Tensor.addType(b, t.type);
    S.Tensor.addBuffer(b, t.buffer ?? 0);
    S.Tensor.addName(b, name);
    return S.Tensor.endTensor(b);
  });
  const ops = sg.ops.map((o) => {
    const inputs = S.Operator.createInputsVector(b, [...o.inputs]);
    const outputs = S.Operator.createOutputsVector(b, [...o.outputs]);
    S.Operator.startOperator(b);
    S.Operator.addOpcodeIndex(b, o.opcode);
    S.Operator.addInputs(b, inputs);
    S.Operator.addOutputs(b, outputs);
    return S.Operator.endOperator(b);
  });
  return S.SubGraph.createSubGraph(
    b,
    S.SubGraph.createTensorsVector(b, tensors),
    S.SubGraph.createInputsVector(b, [...sg.inputs]),
    S.SubGraph.createOutputsVector(b, [...sg.outputs]),
    S.SubGraph.createOperatorsVector(b, ops),
    0,
    -1,
  );
}

/** Writes `spec` as a TFL3 flatbuffer with the generated builders, without any checking. */
export function buildRaw(spec: RawModel): Uint8Array {
  const b = new Builder(1024);
  const buffers = spec.buffers.map((buf) => {
    const data = buf.data !== undefined ? S.Buffer.createDataVector(b, buf.data) : 0;
    return S.Buffer.createBuffer(b, data, buf.offset ?? 0n, buf.size ?? 0n);
  });
  const opcodes = spec.opcodes.map((c) =>
    S.OperatorCode.createOperatorCode(b, c.deprecated ?? Math.min(c.builtin, 127), c.custom !== undefined ? b.createString(c.custom) : 0, 1, c.builtin),
  );
  const subgraphs = spec.subgraphs.map((sg) => rawSubgraph(b, sg));
  const root = S.Model.createModel(
    b,
    3,
    S.Model.createOperatorCodesVector(b, opcodes),
    S.Model.createSubgraphsVector(b, subgraphs),
    0,
    S.Model.createBuffersVector(b, buffers),
    0,
    0,
    0,
    0,
    0,
  );
  b.finish(root, 'TFL3');
  const body = b.asUint8Array();
  const tail = spec.tail ?? new Uint8Array(0);
  const out = new Uint8Array(body.length + tail.length);
  out.set(body);
  out.set(tail, body.length);
  return out;
}

/** One ADD of two [1,4] int8 inputs: the smallest valid raw model. */
export function rawAddModel(overrides: Partial<RawModel> = {}): RawModel {
  return {
    opcodes: [{ builtin: S.BuiltinOperator.ADD }],
    subgraphs: [
      {
        tensors: [
          { type: S.TensorType.INT8, shape: [1, 4] },
          { type: S.TensorType.INT8, shape: [1, 4] },
          { type: S.TensorType.INT8, shape: [1, 4] },
        ],
        ops: [{ opcode: 0, inputs: [0, 1], outputs: [2] }],
        inputs: [0, 1],
        outputs: [2],
      },
    ],
    buffers: [{}],
    ...overrides,
  };
}

/** Error code of `fn`, or 'ok' when it does not throw; non-coded errors are rethrown. */
export function codeOf(fn: () => unknown): string {
  try {
    fn();
    return 'ok';
  } catch (e) {
    if (e instanceof ModelError) return e.code;
    throw e;
  }
}
