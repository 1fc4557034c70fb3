// IR Model -> TFLite flatbuffer, laid out as the TFLite converter does: buffer 0 empty, one
// 16-byte-aligned buffer per constant (shared data objects share a buffer), metadata buffers,
// deduplicated operator codes with builtin_code and deprecated_builtin_code (clamped to
// PLACEHOLDER_FOR_GREATER_OP_CODES), custom options as FLEXBUFFERS, schema version 3, "TFL3".
// Deterministic: the same model always gives the same bytes.
import { Builder } from 'flatbuffers';
import type { Offset } from 'flatbuffers';
import { withScratchModeMetadata } from '../custom-ops.ts';
import { ModelError } from '../errors.ts';
import type { BuiltinKind, BuiltinOp, Model, Op, OpOptionsMap, Quantization, SignatureTensor, Tensor } from '../graph.ts';
import { validateModel } from '../validate.ts';
import { BUILTIN_TABLE, CUSTOM_CODE } from './builtin-table.ts';
import type { BuiltinEntry } from './builtin-table.ts';
import { tensorTypeFromDtype } from './enums.ts';
import * as S from './schema-generated.ts';

const FILE_IDENTIFIER = 'TFL3';
/** deprecated_builtin_code is an int8; larger codes store PLACEHOLDER_FOR_GREATER_OP_CODES. */
const MAX_DEPRECATED_CODE = S.BuiltinOperator.PLACEHOLDER_FOR_GREATER_OP_CODES;
/** Alignment of buffer data, as the converter's `force_align: 16` on Buffer.data. */
const DATA_ALIGNMENT = 16;
/** A flatbuffer addresses at most 2 GiB; leave room for the tables around the data. */
const MAX_FLATBUFFER_DATA_BYTES = 2 ** 31 - 2 ** 24;
const CUSTOM_OP_VERSION = 1;

interface OpcodeKey {
  readonly code: number;
  readonly version: number;
  readonly customCode: string;
}

function alignedBytes(b: Builder, data: Uint8Array): Offset {
  b.prep(DATA_ALIGNMENT, data.length);
  return b.createByteVector(data);
}

function writeBuffer(b: Builder, data: Uint8Array | null): Offset {
  const vector = data !== null && data.length > 0 ? alignedBytes(b, data) : 0;
  S.Buffer.startBuffer(b);
  if (vector !== 0) S.Buffer.addData(b, vector);
  return S.Buffer.endBuffer(b);
}

function writeQuantization(b: Builder, q: Quantization): Offset {
  const scale = S.QuantizationParameters.createScaleVector(b, [...q.scale]);
  const zeroPoint = S.QuantizationParameters.createZeroPointVector(b, q.zeroPoint.map((z) => BigInt(z)));
  return S.QuantizationParameters.createQuantizationParameters(b, 0, 0, scale, zeroPoint, S.QuantizationDetails.NONE, 0, q.quantizedDimension);
}

function writeTensor(b: Builder, t: Tensor, bufferIndex: number): Offset {
  const shape = S.Tensor.createShapeVector(b, [...t.shape]);
  const name = b.createString(t.name);
  const quant = t.quant !== null ? writeQuantization(b, t.quant) : 0;
  S.Tensor.startTensor(b);
  S.Tensor.addShape(b, shape);
  S.Tensor.addType(b, tensorTypeFromDtype(t.dtype));
  S.Tensor.addBuffer(b, bufferIndex);
  S.Tensor.addName(b, name);
  if (quant !== 0) S.Tensor.addQuantization(b, quant);
  S.Tensor.addIsVariable(b, t.isVariable);
  S.Tensor.addHasRank(b, true);
  return S.Tensor.endTensor(b);
}

function opcodeKey(op: Op): OpcodeKey {
  if (op.kind === 'custom') return { code: CUSTOM_CODE, version: CUSTOM_OP_VERSION, customCode: op.customCode };
  const entry = BUILTIN_TABLE[op.kind];
  return { code: entry.code, version: entry.version, customCode: entry.custom?.code ?? '' };
}

function writeOptions<K extends BuiltinKind>(b: Builder, kind: K, options: OpOptionsMap[K]): { type: S.BuiltinOptions; offset: Offset } {
  const entry: BuiltinEntry<K> = BUILTIN_TABLE[kind];
  const offset = entry.write(b, options);
  return { type: offset === 0 ? S.BuiltinOptions.NONE : entry.optionsType, offset };
}

function writeOp(b: Builder, op: Op, opcodeIndex: number, tensors: readonly Tensor[]): Offset {
  const entry = op.kind === 'custom' ? undefined : (BUILTIN_TABLE[op.kind] as BuiltinEntry<BuiltinKind>);
  // TinySeg's ops name tensors in their option bytes and may list inputs differently (custom-ops.ts).
  const encoded = entry?.custom?.encode((op as BuiltinOp).options, { inputs: op.inputs, outputs: op.outputs, tensors });
  const customBytes = op.kind === 'custom' ? op.customOptions : encoded?.bytes;
  const inputs = S.Operator.createInputsVector(b, [...(encoded?.inputs ?? op.inputs)]);
  const outputs = S.Operator.createOutputsVector(b, [...op.outputs]);
  const custom = customBytes !== undefined ? b.createByteVector(customBytes) : 0;
  const options = op.kind === 'custom' ? { type: S.BuiltinOptions.NONE, offset: 0 } : writeOptions(b, op.kind, (op as BuiltinOp).options);
  return S.Operator.createOperator(
    b,
    opcodeIndex,
    inputs,
    outputs,
    options.type,
    options.offset,
    custom,
    S.CustomOptionsFormat.FLEXBUFFERS,
    0,
    0,
    0n,
    0n,
    S.BuiltinOptions2.NONE,
    0,
    -1,
  );
}

function writeTensorMaps(b: Builder, maps: readonly SignatureTensor[]): Offset[] {
  return maps.map((m) => S.TensorMap.createTensorMap(b, b.createString(m.name), m.tensorIndex));
}

/** Serializes without validating (tests use it to build broken models); prefer exportTflite. */
export function encodeTflite(model: Model): Uint8Array {
  const g = model.graph;
  let dataBytes = 0;
  for (const t of g.tensors) dataBytes += (t.data?.length ?? 0) + DATA_ALIGNMENT;
  for (const m of model.metadata) dataBytes += m.data.length + DATA_ALIGNMENT;
  if (dataBytes > MAX_FLATBUFFER_DATA_BYTES) {
    throw new ModelError('E_MODEL_TENSOR_SIZE', `model holds ${dataBytes} bytes of data, more than one flatbuffer can address`);
  }
  const b = new Builder(dataBytes + 1024 + 256 * (g.tensors.length + g.ops.length));

  // Buffers first, so the data sits at the end of the file as in converter output.
  const buffers: Offset[] = [writeBuffer(b, null)];
  const bufferOfData = new Map<Uint8Array, number>();
  const tensorBuffer = g.tensors.map((t) => {
    if (t.data === null || t.data.length === 0) return 0;
    let index = bufferOfData.get(t.data);
    if (index === undefined) {
      index = buffers.length;
      buffers.push(writeBuffer(b, t.data));
      bufferOfData.set(t.data, index);
    }
    return index;
  });
  const metadataBuffer = model.metadata.map((m) => {
    buffers.push(writeBuffer(b, m.data));
    return buffers.length - 1;
  });

  const opcodes: OpcodeKey[] = [];
  const opcodeIndex = new Map<string, number>();
  const opOpcode = g.ops.map((op) => {
    const key = opcodeKey(op);
    const id = `${key.code}:${key.customCode}`;
    let index = opcodeIndex.get(id);
    if (index === undefined) {
      index = opcodes.length;
      opcodes.push(key);
      opcodeIndex.set(id, index);
    }
    return index;
  });

  const tensors = g.tensors.map((t, i) => writeTensor(b, t, tensorBuffer[i] ?? 0));
  const ops = g.ops.map((op, i) => writeOp(b, op, opOpcode[i] ?? 0, g.tensors));
  const subgraph = S.SubGraph.createSubGraph(
    b,
    S.SubGraph.createTensorsVector(b, tensors),
    S.SubGraph.createInputsVector(b, [...g.inputs]),
    S.SubGraph.createOutputsVector(b, [...g.outputs]),
    S.SubGraph.createOperatorsVector(b, ops),
    b.createString(g.name),
    -1,
  );
  const opcodeTables = opcodes.map((c) =>
    S.OperatorCode.createOperatorCode(b, Math.min(c.code, MAX_DEPRECATED_CODE), c.customCode !== '' ? b.createString(c.customCode) : 0, c.version, c.code),
  );
  const metadata = model.metadata.map((m, i) => S.Metadata.createMetadata(b, b.createString(m.name), metadataBuffer[i] ?? 0));
  const signatureDefs = model.signatureDefs.map((s) =>
    S.SignatureDef.createSignatureDef(
      b,
      S.SignatureDef.createInputsVector(b, writeTensorMaps(b, s.inputs)),
      S.SignatureDef.createOutputsVector(b, writeTensorMaps(b, s.outputs)),
      b.createString(s.key),
      0,
      s.subgraphIndex,
    ),
  );

  const root = S.Model.createModel(
    b,
    model.version,
    S.Model.createOperatorCodesVector(b, opcodeTables),
    S.Model.createSubgraphsVector(b, [subgraph]),
    model.description !== '' ? b.createString(model.description) : 0,
    S.Model.createBuffersVector(b, buffers),
    0,
    metadata.length > 0 ? S.Model.createMetadataVector(b, metadata) : 0,
    signatureDefs.length > 0 ? S.Model.createSignatureDefsVector(b, signatureDefs) : 0,
    0,
    0,
  );
  b.finish(root, FILE_IDENTIFIER);
  return b.asUint8Array().slice();
}

/** Validates `model` and writes it as a .tflite flatbuffer that TFLM can load. */
export function exportTflite(model: Model): Uint8Array {
  validateModel(model);
  // Scratch-mode metadata names op indices: rewritten from the ops' flags so that passes which
  // insert or remove ops after the one that set them cannot leave it stale.
  return encodeTflite(withScratchModeMetadata(model));
}
