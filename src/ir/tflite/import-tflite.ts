// TFLite flatbuffer -> IR Model. Every read goes through CheckedByteBuffer, so corrupt files give
// coded ModelErrors; per-tensor and per-op problems are collected and reported together, then
// validateModel checks the graph. Mirrors what TFLM's MicroAllocator reads from a model
// (micro_allocator.cc: tensors, buffers, quantization; flatbuffer_conversions.cc: op options).
import { MAX_TENSOR_BYTES } from '../dtype.ts';
import type { DType } from '../dtype.ts';
import { applyScratchModeMetadata } from '../custom-ops.ts';
import { ModelError } from '../errors.ts';
import type { Issue } from '../errors.ts';
import type { BuiltinKind, BuiltinOp, MetadataEntry, Model, Op, Quantization, SignatureDef, SignatureTensor, Tensor } from '../graph.ts';
import { checkedByteSize, createIssueSink, tensorIssues, validateModel } from '../validate.ts';
import type { IssueSink } from '../validate.ts';
import { BUILTIN_TABLE, builtinCodeName, kindOfBuiltinCode, kindOfCustomCode, readBuiltinOptions } from './builtin-table.ts';
import { CheckedByteBuffer } from './checked-byte-buffer.ts';
import { dtypeFromTensorType, tensorTypeName } from './enums.ts';
import * as S from './schema-generated.ts';

const FILE_IDENTIFIER = 'TFL3';
/** Root uoffset + file identifier. */
const MIN_FILE_BYTES = 8;
/** Buffer.offset / custom options offset values <= 1 are placeholders, not file offsets (TFLite). */
const MIN_EXTERNAL_OFFSET = 1n;
/** Budget units charged per table visited: about the time of 16 element reads (fields, objects, checks). */
const TABLE_UNITS = 16;

interface OpcodeInfo {
  readonly code: number;
  readonly customCode: string;
}

/** Reads (and caches, so shared buffers are copied once) the data of buffer `index`. */
class BufferReader {
  private readonly cache = new Map<number, Uint8Array | null>();
  private readonly count: number;
  constructor(
    private readonly model: S.Model,
    private readonly bb: CheckedByteBuffer,
  ) {
    this.count = model.buffersLength();
  }

  has(index: number): boolean {
    return index < this.count;
  }

  /** Buffer bytes, or null for an empty buffer (activation tensors). */
  data(index: number): Uint8Array | null {
    const cached = this.cache.get(index);
    if (cached !== undefined) return cached;
    const buffer = this.model.buffers(index);
    let data: Uint8Array | null = null;
    this.bb.charge(TABLE_UNITS);
    if (buffer !== null && buffer.dataLength() > 0) {
      this.bb.chargeCopy(buffer.dataLength());
      data = copyOf(buffer.dataArray());
    } else if (buffer !== null) {
      data = readExternal(this.bb, buffer.offset(), buffer.size(), `buffer ${index}`);
    }
    this.cache.set(index, data);
    return data;
  }
}

/** A copy that never aliases the input file (constants must not change if the caller reuses it). */
function copyOf(view: Uint8Array | null): Uint8Array | null {
  return view === null ? null : new Uint8Array(view);
}

/** Bytes stored after the flatbuffer at [offset, offset + size), as large models do; null if unused. */
function readExternal(bb: CheckedByteBuffer, offset: bigint, size: bigint, what: string): Uint8Array | null {
  if (offset <= MIN_EXTERNAL_OFFSET || size === 0n) return null;
  if (offset + size > BigInt(bb.capacity())) {
    throw new ModelError('E_MODEL_TRUNCATED', `${what} data at [${offset}, +${size}) lies beyond the end of the ${bb.capacity()}-byte file`);
  }
  return bb.copyRange(Number(offset), Number(size), `${what} data`);
}

/** Reads a scalar vector through its generated element accessor, charging one unit per element. */
function readInts(bb: CheckedByteBuffer, length: number, at: (i: number) => number | null): number[] {
  bb.charge(length);
  const out: number[] = [];
  for (let i = 0; i < length; i++) out.push(at(i) ?? 0);
  return out;
}

function str(s: string | Uint8Array | null): string {
  return typeof s === 'string' ? s : '';
}

/** QuantizationParameters' vtable offsets of scale and zero_point (schema fields 2 and 3), as
 * schema-generated.ts reads them; flatbuffers never moves an existing field. */
const QUANT_SCALE_FIELD = 8;
const QUANT_ZERO_POINT_FIELD = 10;

function readQuantization(bb: CheckedByteBuffer, q: S.QuantizationParameters | null, issue: (message: string) => void): Quantization | null {
  if (q === null) return null;
  // Whole vectors at once (a depthwise filter has one scale and zero point per channel).
  const sv = bb.scalarVector(q.bb_pos, QUANT_SCALE_FIELD, 4);
  if (sv === null || sv.length === 0) return null;
  bb.charge(sv.length);
  const scale = bb.float32s(sv.start, sv.length);
  const zv = bb.scalarVector(q.bb_pos, QUANT_ZERO_POINT_FIELD, 8);
  bb.charge(zv?.length ?? 0);
  const zeroPoint = zv === null ? [] : bb.int64sAsNumbers(zv.start, zv.length);
  // An unsafe value is NaN here; the message names it as the file holds it.
  if (zv !== null) zeroPoint.forEach((z, i) => Number.isNaN(z) && issue(`zero point ${bb.readInt64(zv.start + 8 * i)} is out of range`));
  return { scale, zeroPoint, quantizedDimension: q.quantizedDimension() };
}

function readTensor(t: S.Tensor, index: number, bb: CheckedByteBuffer, buffers: BufferReader, issues: IssueSink): Tensor {
  bb.charge(TABLE_UNITS);
  const name = str(t.name());
  const add = (code: Issue['code'], message: string): void => {
    issues.add({ code, message, tensorIndex: index, tensorName: name });
  };
  const typeCode = t.type();
  const decoded = dtypeFromTensorType(typeCode);
  if (decoded === null) add('E_MODEL_DTYPE', `unsupported tensor type ${tensorTypeName(typeCode)}`);
  const dtype: DType = decoded ?? 'int8';
  const shape = readInts(bb, t.shapeLength(), (i) => t.shape(i));
  if (t.sparsity() !== null) add('E_MODEL_INVALID', 'sparse tensors are not supported');
  const quant = readQuantization(bb, t.quantization(), (m) => add('E_MODEL_INVALID', m));
  const size = checkedByteSize(dtype, shape);
  let data: Uint8Array | null = null;
  const bufferIndex = t.buffer();
  if (!buffers.has(bufferIndex)) {
    add('E_MODEL_INVALID', `buffer index ${bufferIndex} is out of range`);
  } else if (size !== null && size <= MAX_TENSOR_BYTES && decoded !== null) {
    // Only a tensor with a sane size gets its data read; tensorIssues reports the others.
    data = buffers.data(bufferIndex);
  }
  const tensor: Tensor = { name, dtype, shape, quant, data, isVariable: t.isVariable() };
  if (decoded !== null) tensorIssues(tensor, index).forEach(issues.add);
  return tensor;
}

function makeBuiltinOp<K extends BuiltinKind>(kind: K, op: S.Operator, inputs: number[], outputs: number[], bb: CheckedByteBuffer): BuiltinOp {
  bb.charge(TABLE_UNITS);
  return { kind, inputs, outputs, options: readBuiltinOptions(kind, op, (units) => bb.charge(units)) } as BuiltinOp;
}

function readOp(op: S.Operator, index: number, opcodes: readonly OpcodeInfo[], tensors: readonly Tensor[], bb: CheckedByteBuffer, issues: IssueSink): Op | null {
  bb.charge(TABLE_UNITS);
  const opcodeIndex = op.opcodeIndex();
  const opcode = opcodes[opcodeIndex];
  if (opcode === undefined) {
    issues.add({ code: 'E_MODEL_INVALID', opIndex: index, message: `opcode index ${opcodeIndex} is out of range (${opcodes.length} opcodes)` });
    return null;
  }
  const inputs = readInts(bb, op.inputsLength(), (i) => op.inputs(i));
  const outputs = readInts(bb, op.outputsLength(), (i) => op.outputs(i));
  const kind = kindOfBuiltinCode(opcode.code);
  if (kind === null) {
    const name = builtinCodeName(opcode.code);
    issues.add({ code: 'E_MODEL_UNSUPPORTED_OP', opIndex: index, opKind: name, message: `unsupported builtin operator ${name}` });
    return null;
  }
  if (kind === 'custom') {
    if (opcode.customCode === '') issues.add({ code: 'E_MODEL_INVALID', opIndex: index, opKind: 'custom', message: 'custom op without a custom_code' });
    const n = op.customOptionsLength();
    bb.chargeCopy(n);
    const customOptions =
      n > 0
        ? (copyOf(op.customOptionsArray()) ?? new Uint8Array(0))
        : (readExternal(bb, op.largeCustomOptionsOffset(), op.largeCustomOptionsSize(), `op ${index} custom options`) ?? new Uint8Array(0));
    const known = kindOfCustomCode(opcode.customCode);
    if (known === null) return { kind, customCode: opcode.customCode, customOptions, inputs, outputs };
    try {
      // TinySeg's ops name tensors in their options and may list inputs differently (custom-ops.ts).
      const decoded = BUILTIN_TABLE[known].custom?.decode(customOptions, { inputs, outputs, tensors });
      return { kind: known, inputs: [...(decoded?.inputs ?? inputs)], outputs, options: decoded?.options } as BuiltinOp;
    } catch (e) {
      if (!(e instanceof ModelError)) throw e;
      issues.add({ code: e.code, opIndex: index, opKind: known, message: e.message });
      return null;
    }
  }
  try {
    return makeBuiltinOp(kind, op, inputs, outputs, bb);
  } catch (e) {
    if (!(e instanceof ModelError) || e.code !== 'E_MODEL_INVALID') throw e;
    issues.add({ code: e.code, opIndex: index, opKind: kind, message: e.message });
    return null;
  }
}

function readSignatureTensors(bb: CheckedByteBuffer, length: number, at: (i: number) => S.TensorMap | null): SignatureTensor[] {
  bb.charge(length * TABLE_UNITS);
  const out: SignatureTensor[] = [];
  for (let i = 0; i < length; i++) {
    const m = at(i);
    if (m !== null) out.push({ name: str(m.name()), tensorIndex: m.tensorIndex() });
  }
  return out;
}

function readBody(fb: S.Model, bb: CheckedByteBuffer): Model {
  const subgraphs = fb.subgraphsLength();
  if (subgraphs !== 1) throw new ModelError('E_MODEL_SUBGRAPHS', `model has ${subgraphs} subgraphs; mcusim supports exactly one`);
  const sg = fb.subgraphs(0);
  if (sg === null) throw new ModelError('E_MODEL_SUBGRAPHS', 'model has no subgraph');
  const issues = createIssueSink();
  const buffers = new BufferReader(fb, bb);

  const opcodes: OpcodeInfo[] = [];
  const nCodes = fb.operatorCodesLength();
  bb.charge(nCodes * TABLE_UNITS);
  for (let i = 0; i < nCodes; i++) {
    const c = fb.operatorCodes(i);
    opcodes.push({ code: Math.max(c?.builtinCode() ?? 0, c?.deprecatedBuiltinCode() ?? 0), customCode: str(c?.customCode() ?? null) });
  }

  const tensors: Tensor[] = [];
  const nTensors = sg.tensorsLength();
  for (let i = 0; i < nTensors; i++) {
    const t = sg.tensors(i);
    if (t !== null) tensors.push(readTensor(t, i, bb, buffers, issues));
  }

  const ops: Op[] = [];
  const nOps = sg.operatorsLength();
  for (let i = 0; i < nOps; i++) {
    const o = sg.operators(i);
    const op = o === null ? null : readOp(o, i, opcodes, tensors, bb, issues);
    if (op !== null) ops.push(op);
  }

  const metadata: MetadataEntry[] = [];
  const nMeta = fb.metadataLength();
  bb.charge(nMeta * TABLE_UNITS);
  for (let i = 0; i < nMeta; i++) {
    const m = fb.metadata(i);
    if (m === null) continue;
    const name = str(m.name());
    const index = m.buffer();
    if (!buffers.has(index)) {
      issues.add({ code: 'E_MODEL_METADATA', message: `metadata '${name}' refers to buffer ${index}, which does not exist` });
      continue;
    }
    metadata.push({ name, data: buffers.data(index) ?? new Uint8Array(0) });
  }

  const signatureDefs: SignatureDef[] = [];
  const nSig = fb.signatureDefsLength();
  bb.charge(nSig * TABLE_UNITS);
  for (let i = 0; i < nSig; i++) {
    const s = fb.signatureDefs(i);
    if (s === null) continue;
    signatureDefs.push({
      key: str(s.signatureKey()),
      subgraphIndex: s.subgraphIndex(),
      inputs: readSignatureTensors(bb, s.inputsLength(), (k) => s.inputs(k)),
      outputs: readSignatureTensors(bb, s.outputsLength(), (k) => s.outputs(k)),
    });
  }

  const graph = {
    name: str(sg.name()),
    tensors,
    ops,
    inputs: readInts(bb, sg.inputsLength(), (i) => sg.inputs(i)),
    outputs: readInts(bb, sg.outputsLength(), (i) => sg.outputs(i)),
  };
  const found = issues.issues();
  if (found.length > 0) throw ModelError.fromIssues(found);
  return { version: fb.version(), description: str(fb.description()), graph, metadata, signatureDefs };
}

/** Parses and validates a .tflite file; any problem is a ModelError with a stable code. */
export function importTflite(bytes: Uint8Array): Model {
  if (bytes.length < MIN_FILE_BYTES) throw new ModelError('E_MODEL_TRUNCATED', `file has ${bytes.length} bytes, too short for a TFLite model`);
  const id = String.fromCharCode(...bytes.subarray(4, 8));
  if (id !== FILE_IDENTIFIER) {
    throw new ModelError('E_MODEL_IDENTIFIER', `file identifier is ${JSON.stringify(id)}, expected "${FILE_IDENTIFIER}" (not a TFLite model)`);
  }
  const bb = new CheckedByteBuffer(bytes);
  const model = applyScratchModeMetadata(readBody(S.Model.getRootAsModel(bb), bb));
  validateModel(model);
  return model;
}
