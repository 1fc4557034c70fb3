// The one table mapping TFLite BuiltinOperator codes <-> IR op kinds, with the typed read and
// write of each kind's BuiltinOptions table (as tflite::ParseOpData does in
// tensorflow/lite/core/api/flatbuffer_conversions.cc). No builtin numbers live past this file.
import type { Builder, Offset } from 'flatbuffers';
import { ModelError } from '../errors.ts';
import type { Activation, BuiltinKind, OpOptionsMap, Padding } from '../graph.ts';
import { activationFromCode, activationToCode, paddingFromCode, paddingToCode, weightsFormatFromCode, weightsFormatToCode } from './enums.ts';
import * as S from './schema-generated.ts';
import { decodeMergeOptions, encodeMergeOptions, MERGE_CUSTOM_CODE } from './merge-options.ts';
import { decodeFetchingConv2dOptions, decodeFetchingOptions, decodeSpillOptions, encodeFetchingConv2dOptions, encodeFetchingOptions, encodeSpillOptions, TINYSEG_CUSTOM_CODES } from '../custom-ops.ts';
import type { CustomOpSite, DecodedCustomOp, EncodedCustomOp } from '../custom-ops.ts';

export interface BuiltinEntry<K extends BuiltinKind> {
  readonly kind: K;
  readonly code: S.BuiltinOperator;
  /** OperatorCode.version written on export: the TFLite op version that covers int8 kernels. */
  readonly version: number;
  /** BuiltinOptions union member carrying this kind's options; NONE when it has none. */
  readonly optionsType: S.BuiltinOptions;
  /**
   * Decodes the options of `op` (whose options type is checked); absent tables give schema
   * defaults. `charge` accounts for vector elements read (the importer's work budget).
   */
  readonly read: (op: S.Operator, charge: (units: number) => void) => OpOptionsMap[K];
  /** Writes the options table, or returns 0 when the op needs none. */
  readonly write: (b: Builder, options: OpOptionsMap[K]) => Offset;
  /**
   * Kinds stored as TFLite CUSTOM ops (TinySeg, MergeAccumulators): custom code, and the option
   * bytes and file inputs of an op (custom-ops.ts), which may differ from the IR's.
   */
  readonly custom?: {
    readonly code: string;
    readonly decode: (bytes: Uint8Array, site: CustomOpSite) => DecodedCustomOp<OpOptionsMap[K]>;
    readonly encode: (o: OpOptionsMap[K], site: CustomOpSite) => EncodedCustomOp;
  };
}

type BuiltinTable = { readonly [K in BuiltinKind]: BuiltinEntry<K> };

function invalid(message: string): ModelError {
  return new ModelError('E_MODEL_INVALID', message);
}
function activation(code: number): Activation {
  const a = activationFromCode(code);
  if (a === null) throw invalid(`unknown fused activation code ${code}`);
  return a;
}
function padding(code: number): Padding {
  const p = paddingFromCode(code);
  if (p === null) throw invalid(`unknown padding code ${code}`);
  return p;
}
/** The op's options table when present; null when the op carries none. */
function optionsOf<T>(op: S.Operator, table: T): T | null {
  return op.builtinOptionsType() === S.BuiltinOptions.NONE ? null : (op.builtinOptions(table) as T | null);
}
const noOptions = (): Readonly<Record<string, never>> => ({});
const writeNothing = (): Offset => 0;

/** A kind without options: an (empty) options table of `optionsType` is accepted, none is written. */
function simple<K extends BuiltinKind>(
  kind: K,
  code: S.BuiltinOperator,
  version: number,
  read: () => OpOptionsMap[K],
  optionsType = S.BuiltinOptions.NONE,
): BuiltinEntry<K> {
  return { kind, code, version, optionsType, read, write: writeNothing };
}

/** A TinySeg kind, written as a CUSTOM op with its option bytes. */
function customKind<K extends 'spill' | 'fetching' | 'fetchingConv2d'>(
  kind: K,
  decode: (b: Uint8Array, site: CustomOpSite) => DecodedCustomOp<OpOptionsMap[K]>,
  encode: (o: OpOptionsMap[K], site: CustomOpSite) => EncodedCustomOp,
): BuiltinEntry<K> {
  const read = (): OpOptionsMap[K] => {
    throw invalid(`${TINYSEG_CUSTOM_CODES[kind]} is a custom op; it has no builtin options`);
  };
  return { kind, code: S.BuiltinOperator.CUSTOM, version: 1, optionsType: S.BuiltinOptions.NONE, read, write: writeNothing, custom: { code: TINYSEG_CUSTOM_CODES[kind], decode, encode } };
}

export const BUILTIN_TABLE: BuiltinTable = {
  spill: customKind('spill', decodeSpillOptions, encodeSpillOptions),
  fetching: customKind('fetching', decodeFetchingOptions, encodeFetchingOptions),
  fetchingConv2d: customKind('fetchingConv2d', decodeFetchingConv2dOptions, encodeFetchingConv2dOptions),
  merge: {
    kind: 'merge',
    code: S.BuiltinOperator.CUSTOM,
    version: 1,
    optionsType: S.BuiltinOptions.NONE,
    read: () => {
      throw invalid(`${MERGE_CUSTOM_CODE} is a custom op; it has no builtin options`);
    },
    write: writeNothing,
    custom: {
      code: MERGE_CUSTOM_CODE,
      decode: (bytes, site) => ({ inputs: [...site.inputs], options: decodeMergeOptions(bytes) }),
      encode: (o, site) => ({ inputs: [...site.inputs], bytes: encodeMergeOptions(o) }),
    },
  },
  conv2d: {
    kind: 'conv2d',
    code: S.BuiltinOperator.CONV_2D,
    version: 3,
    optionsType: S.BuiltinOptions.Conv2DOptions,
    read: (op) => {
      const t = optionsOf(op, new S.Conv2DOptions());
      return {
        padding: padding(t?.padding() ?? 0),
        strideH: t?.strideH() ?? 0,
        strideW: t?.strideW() ?? 0,
        dilationH: t?.dilationHFactor() ?? 1,
        dilationW: t?.dilationWFactor() ?? 1,
        activation: activation(t?.fusedActivationFunction() ?? 0),
      };
    },
    write: (b, o) =>
      S.Conv2DOptions.createConv2DOptions(b, paddingToCode(o.padding), o.strideW, o.strideH, activationToCode(o.activation), o.dilationW, o.dilationH, S.TensorType.FLOAT32),
  },
  depthwiseConv2d: {
    kind: 'depthwiseConv2d',
    code: S.BuiltinOperator.DEPTHWISE_CONV_2D,
    version: 3,
    optionsType: S.BuiltinOptions.DepthwiseConv2DOptions,
    read: (op) => {
      const t = optionsOf(op, new S.DepthwiseConv2DOptions());
      return {
        padding: padding(t?.padding() ?? 0),
        strideH: t?.strideH() ?? 0,
        strideW: t?.strideW() ?? 0,
        dilationH: t?.dilationHFactor() ?? 1,
        dilationW: t?.dilationWFactor() ?? 1,
        activation: activation(t?.fusedActivationFunction() ?? 0),
        depthMultiplier: t?.depthMultiplier() ?? 0,
      };
    },
    write: (b, o) =>
      S.DepthwiseConv2DOptions.createDepthwiseConv2DOptions(
        b,
        paddingToCode(o.padding),
        o.strideW,
        o.strideH,
        o.depthMultiplier,
        activationToCode(o.activation),
        o.dilationW,
        o.dilationH,
      ),
  },
  transposeConv: {
    kind: 'transposeConv',
    code: S.BuiltinOperator.TRANSPOSE_CONV,
    version: 3,
    optionsType: S.BuiltinOptions.TransposeConvOptions,
    read: (op) => {
      const t = optionsOf(op, new S.TransposeConvOptions());
      return {
        padding: padding(t?.padding() ?? 0),
        strideH: t?.strideH() ?? 0,
        strideW: t?.strideW() ?? 0,
        activation: activation(t?.fusedActivationFunction() ?? 0),
      };
    },
    write: (b, o) =>
      S.TransposeConvOptions.createTransposeConvOptions(b, paddingToCode(o.padding), o.strideW, o.strideH, activationToCode(o.activation), S.TensorType.FLOAT32),
  },
  maxPool2d: pool('maxPool2d', S.BuiltinOperator.MAX_POOL_2D),
  averagePool2d: pool('averagePool2d', S.BuiltinOperator.AVERAGE_POOL_2D),
  concatenation: {
    kind: 'concatenation',
    code: S.BuiltinOperator.CONCATENATION,
    version: 2,
    optionsType: S.BuiltinOptions.ConcatenationOptions,
    read: (op) => {
      const t = optionsOf(op, new S.ConcatenationOptions());
      return { axis: t?.axis() ?? 0, activation: activation(t?.fusedActivationFunction() ?? 0) };
    },
    write: (b, o) => S.ConcatenationOptions.createConcatenationOptions(b, o.axis, activationToCode(o.activation)),
  },
  fullyConnected: {
    kind: 'fullyConnected',
    code: S.BuiltinOperator.FULLY_CONNECTED,
    version: 4,
    optionsType: S.BuiltinOptions.FullyConnectedOptions,
    read: (op) => {
      const t = optionsOf(op, new S.FullyConnectedOptions());
      const code = t?.weightsFormat() ?? 0;
      const weightsFormat = weightsFormatFromCode(code);
      if (weightsFormat === null) throw invalid(`unknown fully-connected weights format ${code}`);
      return {
        activation: activation(t?.fusedActivationFunction() ?? 0),
        weightsFormat,
        keepNumDims: t?.keepNumDims() ?? false,
        asymmetricQuantizeInputs: t?.asymmetricQuantizeInputs() ?? false,
      };
    },
    write: (b, o) =>
      S.FullyConnectedOptions.createFullyConnectedOptions(
        b,
        activationToCode(o.activation),
        weightsFormatToCode(o.weightsFormat),
        o.keepNumDims,
        o.asymmetricQuantizeInputs,
        S.TensorType.FLOAT32,
      ),
  },
  softmax: {
    kind: 'softmax',
    code: S.BuiltinOperator.SOFTMAX,
    version: 2,
    optionsType: S.BuiltinOptions.SoftmaxOptions,
    read: (op) => ({ beta: optionsOf(op, new S.SoftmaxOptions())?.beta() ?? 0 }),
    write: (b, o) => S.SoftmaxOptions.createSoftmaxOptions(b, o.beta),
  },
  add: {
    kind: 'add',
    code: S.BuiltinOperator.ADD,
    version: 2,
    optionsType: S.BuiltinOptions.AddOptions,
    read: (op) => {
      const t = optionsOf(op, new S.AddOptions());
      return { activation: activation(t?.fusedActivationFunction() ?? 0), potScaleInt16: t?.potScaleInt16() ?? true };
    },
    write: (b, o) => S.AddOptions.createAddOptions(b, activationToCode(o.activation), o.potScaleInt16),
  },
  mul: {
    kind: 'mul',
    code: S.BuiltinOperator.MUL,
    version: 2,
    optionsType: S.BuiltinOptions.MulOptions,
    read: (op) => ({ activation: activation(optionsOf(op, new S.MulOptions())?.fusedActivationFunction() ?? 0) }),
    write: (b, o) => S.MulOptions.createMulOptions(b, activationToCode(o.activation)),
  },
  pad: simple('pad', S.BuiltinOperator.PAD, 2, noOptions, S.BuiltinOptions.PadOptions),
  reshape: {
    kind: 'reshape',
    code: S.BuiltinOperator.RESHAPE,
    version: 1,
    optionsType: S.BuiltinOptions.ReshapeOptions,
    read: (op, charge) => {
      const t = optionsOf(op, new S.ReshapeOptions());
      const n = t?.newShapeLength() ?? 0;
      if (t === null || n === 0) return { newShape: null };
      charge(n);
      const newShape: number[] = [];
      for (let i = 0; i < n; i++) newShape.push(t.newShape(i) ?? 0);
      return { newShape };
    },
    write: (b, o) => {
      if (o.newShape === null || o.newShape.length === 0) return 0;
      return S.ReshapeOptions.createReshapeOptions(b, S.ReshapeOptions.createNewShapeVector(b, [...o.newShape]));
    },
  },
  mean: {
    kind: 'mean',
    code: S.BuiltinOperator.MEAN,
    version: 2,
    optionsType: S.BuiltinOptions.ReducerOptions,
    read: (op) => ({ keepDims: optionsOf(op, new S.ReducerOptions())?.keepDims() ?? false }),
    write: (b, o) => S.ReducerOptions.createReducerOptions(b, o.keepDims),
  },
  quantize: simple('quantize', S.BuiltinOperator.QUANTIZE, 2, noOptions, S.BuiltinOptions.QuantizeOptions),
  dequantize: simple('dequantize', S.BuiltinOperator.DEQUANTIZE, 2, noOptions, S.BuiltinOptions.DequantizeOptions),
  split: {
    kind: 'split',
    code: S.BuiltinOperator.SPLIT,
    version: 2,
    optionsType: S.BuiltinOptions.SplitOptions,
    read: (op) => ({ numSplits: optionsOf(op, new S.SplitOptions())?.numSplits() ?? 0 }),
    write: (b, o) => S.SplitOptions.createSplitOptions(b, o.numSplits),
  },
  splitV: {
    kind: 'splitV',
    code: S.BuiltinOperator.SPLIT_V,
    version: 2,
    optionsType: S.BuiltinOptions.SplitVOptions,
    read: (op) => ({ numSplits: optionsOf(op, new S.SplitVOptions())?.numSplits() ?? 0 }),
    write: (b, o) => S.SplitVOptions.createSplitVOptions(b, o.numSplits),
  },
  stridedSlice: {
    kind: 'stridedSlice',
    code: S.BuiltinOperator.STRIDED_SLICE,
    version: 2,
    optionsType: S.BuiltinOptions.StridedSliceOptions,
    read: (op) => {
      const t = optionsOf(op, new S.StridedSliceOptions());
      return {
        beginMask: t?.beginMask() ?? 0,
        endMask: t?.endMask() ?? 0,
        ellipsisMask: t?.ellipsisMask() ?? 0,
        newAxisMask: t?.newAxisMask() ?? 0,
        shrinkAxisMask: t?.shrinkAxisMask() ?? 0,
        offset: t?.offset() ?? false,
      };
    },
    write: (b, o) =>
      S.StridedSliceOptions.createStridedSliceOptions(b, o.beginMask, o.endMask, o.ellipsisMask, o.newAxisMask, o.shrinkAxisMask, o.offset),
  },
  logistic: simple('logistic', S.BuiltinOperator.LOGISTIC, 2, noOptions),
  relu: simple('relu', S.BuiltinOperator.RELU, 2, noOptions),
  relu6: simple('relu6', S.BuiltinOperator.RELU6, 2, noOptions),
  leakyRelu: {
    kind: 'leakyRelu',
    code: S.BuiltinOperator.LEAKY_RELU,
    version: 2,
    optionsType: S.BuiltinOptions.LeakyReluOptions,
    read: (op) => ({ alpha: optionsOf(op, new S.LeakyReluOptions())?.alpha() ?? 0 }),
    write: (b, o) => S.LeakyReluOptions.createLeakyReluOptions(b, o.alpha),
  },
  transpose: simple('transpose', S.BuiltinOperator.TRANSPOSE, 2, noOptions, S.BuiltinOptions.TransposeOptions),
};

function pool<K extends 'maxPool2d' | 'averagePool2d'>(kind: K, code: S.BuiltinOperator): BuiltinEntry<K> {
  return {
    kind,
    code,
    version: 2,
    optionsType: S.BuiltinOptions.Pool2DOptions,
    read: (op) => {
      const t = optionsOf(op, new S.Pool2DOptions());
      return {
        padding: padding(t?.padding() ?? 0),
        strideH: t?.strideH() ?? 0,
        strideW: t?.strideW() ?? 0,
        filterH: t?.filterHeight() ?? 0,
        filterW: t?.filterWidth() ?? 0,
        activation: activation(t?.fusedActivationFunction() ?? 0),
      };
    },
    write: (b, o) =>
      S.Pool2DOptions.createPool2DOptions(b, paddingToCode(o.padding), o.strideW, o.strideH, o.filterW, o.filterH, activationToCode(o.activation)),
  };
}

const KIND_BY_CODE: ReadonlyMap<number, BuiltinKind> = new Map(
  (Object.keys(BUILTIN_TABLE) as BuiltinKind[]).filter((k) => BUILTIN_TABLE[k].custom === undefined).map((k) => [BUILTIN_TABLE[k].code, k]),
);

/** The IR kind of a custom code mcusim interprets (TinySeg's ops), else null. */
export function kindOfCustomCode(code: string): BuiltinKind | null {
  return (Object.keys(BUILTIN_TABLE) as BuiltinKind[]).find((k) => BUILTIN_TABLE[k].custom?.code === code) ?? null;
}

/** The IR kind of a builtin code, 'custom' for CUSTOM, or null when mcusim does not support it. */
export function kindOfBuiltinCode(code: number): BuiltinKind | 'custom' | null {
  if (code === S.BuiltinOperator.CUSTOM) return 'custom';
  return KIND_BY_CODE.get(code) ?? null;
}

/** The schema name of a builtin code (e.g. 'SVDF'), for messages. */
export function builtinCodeName(code: number): string {
  return S.BuiltinOperator[code] ?? `BUILTIN_${code}`;
}

export const CUSTOM_CODE: S.BuiltinOperator = S.BuiltinOperator.CUSTOM;

/** Reads op options for `kind`, refusing a BuiltinOptions table of another type. */
export function readBuiltinOptions<K extends BuiltinKind>(kind: K, op: S.Operator, charge: (units: number) => void): OpOptionsMap[K] {
  const entry: BuiltinEntry<K> = BUILTIN_TABLE[kind];
  const type = op.builtinOptionsType();
  if (type !== S.BuiltinOptions.NONE && type !== entry.optionsType) {
    throw invalid(`builtin options of type ${S.BuiltinOptions[type] ?? type} do not belong to ${builtinCodeName(entry.code)}`);
  }
  return entry.read(op, charge);
}
