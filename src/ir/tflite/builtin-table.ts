// The one table mapping TFLite BuiltinOperator codes <-> IR op kinds, with the typed read and
// write of each kind's BuiltinOptions table (as tflite::ParseOpData does in
// tensorflow/lite/core/api/flatbuffer_conversions.cc). No builtin numbers live past this file.
import type { Builder, Offset } from 'flatbuffers';
import { ModelError } from '../errors.ts';
import type { Activation, BuiltinKind, Conv2dOptions, OpOptionsMap } from '../graph.ts';
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
const Code = S.BuiltinOperator;
const OptionsType = S.BuiltinOptions;

function invalid(message: string): ModelError {
  return new ModelError('E_MODEL_INVALID', message);
}
/** The op's options table when present; null when the op carries none. */
function optionsOf<T>(op: S.Operator, table: T): T | null {
  return op.builtinOptionsType() === S.BuiltinOptions.NONE ? null : (op.builtinOptions(table) as T | null);
}
const noOptions = (): Readonly<Record<string, never>> => ({});
const writeNothing = (): Offset => 0;

/**
 * A kind whose options are one BuiltinOptions table `Table`: `read` gets the table, or null when
 * absent (each field then takes its schema default).
 */
function withOptions<K extends BuiltinKind, T>(
  kind: K,
  code: S.BuiltinOperator,
  version: number,
  optionsType: S.BuiltinOptions,
  Table: new () => T,
  read: (t: T | null, charge: (units: number) => void) => OpOptionsMap[K],
  write: (b: Builder, options: OpOptionsMap[K]) => Offset,
): BuiltinEntry<K> {
  return { kind, code, version, optionsType, read: (op, charge) => read(optionsOf(op, new Table()), charge), write };
}

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

/** A kind written as a CUSTOM op (TinySeg's, MergeAccumulators) with its option bytes. */
function customKind<K extends BuiltinKind>(
  kind: K,
  customCode: string,
  decode: (b: Uint8Array, site: CustomOpSite) => DecodedCustomOp<OpOptionsMap[K]>,
  encode: (o: OpOptionsMap[K], site: CustomOpSite) => EncodedCustomOp,
): BuiltinEntry<K> {
  const read = (): OpOptionsMap[K] => {
    throw invalid(`${customCode} is a custom op; it has no builtin options`);
  };
  return { kind, code: S.BuiltinOperator.CUSTOM, version: 1, optionsType: S.BuiltinOptions.NONE, read, write: writeNothing, custom: { code: customCode, decode, encode } };
}

function fusedActivation(t: { fusedActivationFunction(): number } | null): Activation {
  const code = t?.fusedActivationFunction() ?? 0;
  const a = activationFromCode(code);
  if (a === null) throw invalid(`unknown fused activation code ${code}`);
  return a;
}

/** The fields Conv2D, DepthwiseConv2D, TransposeConv and Pool2D options tables share. */
interface WindowTable {
  padding(): number;
  strideH(): number;
  strideW(): number;
  fusedActivationFunction(): number;
}
type WindowOptions = Pick<Conv2dOptions, 'padding' | 'strideH' | 'strideW' | 'activation'>;

/**
 * Padding and strides, the kind's `own` fields, then the fused activation. The order is fixed
 * because a corrupt table reports the first bad field it meets.
 */
function readWindow<T extends WindowTable, E extends object>(t: T | null, own: (t: T | null) => E): WindowOptions & E {
  const code = t?.padding() ?? 0;
  const padding = paddingFromCode(code);
  if (padding === null) throw invalid(`unknown padding code ${code}`);
  return { padding, strideH: t?.strideH() ?? 0, strideW: t?.strideW() ?? 0, ...own(t), activation: fusedActivation(t) };
}
const dilations = (t: S.Conv2DOptions | S.DepthwiseConv2DOptions | null): Pick<Conv2dOptions, 'dilationH' | 'dilationW'> => ({
  dilationH: t?.dilationHFactor() ?? 1,
  dilationW: t?.dilationWFactor() ?? 1,
});
const noOwnFields = (): object => ({});

function pool<K extends 'maxPool2d' | 'averagePool2d'>(kind: K, code: S.BuiltinOperator): BuiltinEntry<K> {
  return withOptions(
    kind,
    code,
    2,
    OptionsType.Pool2DOptions,
    S.Pool2DOptions,
    (t) => readWindow(t, (p) => ({ filterH: p?.filterHeight() ?? 0, filterW: p?.filterWidth() ?? 0 })),
    (b, o) => S.Pool2DOptions.createPool2DOptions(b, paddingToCode(o.padding), o.strideW, o.strideH, o.filterW, o.filterH, activationToCode(o.activation)),
  );
}

export const BUILTIN_TABLE: BuiltinTable = {
  spill: customKind('spill', TINYSEG_CUSTOM_CODES.spill, decodeSpillOptions, encodeSpillOptions),
  fetching: customKind('fetching', TINYSEG_CUSTOM_CODES.fetching, decodeFetchingOptions, encodeFetchingOptions),
  fetchingConv2d: customKind('fetchingConv2d', TINYSEG_CUSTOM_CODES.fetchingConv2d, decodeFetchingConv2dOptions, encodeFetchingConv2dOptions),
  merge: customKind(
    'merge',
    MERGE_CUSTOM_CODE,
    (bytes, site) => ({ inputs: [...site.inputs], options: decodeMergeOptions(bytes) }),
    (o, site) => ({ inputs: [...site.inputs], bytes: encodeMergeOptions(o) }),
  ),
  conv2d: withOptions(
    'conv2d',
    Code.CONV_2D,
    3,
    OptionsType.Conv2DOptions,
    S.Conv2DOptions,
    (t) => readWindow(t, dilations),
    (b, o) =>
      S.Conv2DOptions.createConv2DOptions(b, paddingToCode(o.padding), o.strideW, o.strideH, activationToCode(o.activation), o.dilationW, o.dilationH, S.TensorType.FLOAT32),
  ),
  depthwiseConv2d: withOptions(
    'depthwiseConv2d',
    Code.DEPTHWISE_CONV_2D,
    3,
    OptionsType.DepthwiseConv2DOptions,
    S.DepthwiseConv2DOptions,
    (t) => ({ ...readWindow(t, dilations), depthMultiplier: t?.depthMultiplier() ?? 0 }),
    (b, o) =>
      S.DepthwiseConv2DOptions.createDepthwiseConv2DOptions(b, paddingToCode(o.padding), o.strideW, o.strideH, o.depthMultiplier, activationToCode(o.activation), o.dilationW, o.dilationH),
  ),
  transposeConv: withOptions(
    'transposeConv',
    Code.TRANSPOSE_CONV,
    3,
    OptionsType.TransposeConvOptions,
    S.TransposeConvOptions,
    (t) => readWindow(t, noOwnFields),
    (b, o) => S.TransposeConvOptions.createTransposeConvOptions(b, paddingToCode(o.padding), o.strideW, o.strideH, activationToCode(o.activation), S.TensorType.FLOAT32),
  ),
  maxPool2d: pool('maxPool2d', Code.MAX_POOL_2D),
  averagePool2d: pool('averagePool2d', Code.AVERAGE_POOL_2D),
  concatenation: withOptions(
    'concatenation',
    Code.CONCATENATION,
    2,
    OptionsType.ConcatenationOptions,
    S.ConcatenationOptions,
    (t) => ({ axis: t?.axis() ?? 0, activation: fusedActivation(t) }),
    (b, o) => S.ConcatenationOptions.createConcatenationOptions(b, o.axis, activationToCode(o.activation)),
  ),
  fullyConnected: withOptions(
    'fullyConnected',
    Code.FULLY_CONNECTED,
    4,
    OptionsType.FullyConnectedOptions,
    S.FullyConnectedOptions,
    (t) => {
      const code = t?.weightsFormat() ?? 0;
      const weightsFormat = weightsFormatFromCode(code);
      if (weightsFormat === null) throw invalid(`unknown fully-connected weights format ${code}`);
      return { activation: fusedActivation(t), weightsFormat, keepNumDims: t?.keepNumDims() ?? false, asymmetricQuantizeInputs: t?.asymmetricQuantizeInputs() ?? false };
    },
    (b, o) =>
      S.FullyConnectedOptions.createFullyConnectedOptions(b, activationToCode(o.activation), weightsFormatToCode(o.weightsFormat), o.keepNumDims, o.asymmetricQuantizeInputs, S.TensorType.FLOAT32),
  ),
  softmax: withOptions('softmax', Code.SOFTMAX, 2, OptionsType.SoftmaxOptions, S.SoftmaxOptions, (t) => ({ beta: t?.beta() ?? 0 }), (b, o) => S.SoftmaxOptions.createSoftmaxOptions(b, o.beta)),
  add: withOptions(
    'add',
    Code.ADD,
    2,
    OptionsType.AddOptions,
    S.AddOptions,
    (t) => ({ activation: fusedActivation(t), potScaleInt16: t?.potScaleInt16() ?? true }),
    (b, o) => S.AddOptions.createAddOptions(b, activationToCode(o.activation), o.potScaleInt16),
  ),
  mul: withOptions('mul', Code.MUL, 2, OptionsType.MulOptions, S.MulOptions, (t) => ({ activation: fusedActivation(t) }), (b, o) => S.MulOptions.createMulOptions(b, activationToCode(o.activation))),
  pad: simple('pad', Code.PAD, 2, noOptions, OptionsType.PadOptions),
  reshape: withOptions(
    'reshape',
    Code.RESHAPE,
    1,
    OptionsType.ReshapeOptions,
    S.ReshapeOptions,
    (t, charge) => {
      const n = t?.newShapeLength() ?? 0;
      if (t === null || n === 0) return { newShape: null };
      charge(n);
      const newShape: number[] = [];
      for (let i = 0; i < n; i++) newShape.push(t.newShape(i) ?? 0);
      return { newShape };
    },
    (b, o) => {
      if (o.newShape === null || o.newShape.length === 0) return 0;
      return S.ReshapeOptions.createReshapeOptions(b, S.ReshapeOptions.createNewShapeVector(b, [...o.newShape]));
    },
  ),
  mean: withOptions('mean', Code.MEAN, 2, OptionsType.ReducerOptions, S.ReducerOptions, (t) => ({ keepDims: t?.keepDims() ?? false }), (b, o) => S.ReducerOptions.createReducerOptions(b, o.keepDims)),
  quantize: simple('quantize', Code.QUANTIZE, 2, noOptions, OptionsType.QuantizeOptions),
  dequantize: simple('dequantize', Code.DEQUANTIZE, 2, noOptions, OptionsType.DequantizeOptions),
  split: withOptions('split', Code.SPLIT, 2, OptionsType.SplitOptions, S.SplitOptions, (t) => ({ numSplits: t?.numSplits() ?? 0 }), (b, o) => S.SplitOptions.createSplitOptions(b, o.numSplits)),
  splitV: withOptions('splitV', Code.SPLIT_V, 2, OptionsType.SplitVOptions, S.SplitVOptions, (t) => ({ numSplits: t?.numSplits() ?? 0 }), (b, o) => S.SplitVOptions.createSplitVOptions(b, o.numSplits)),
  stridedSlice: withOptions(
    'stridedSlice',
    Code.STRIDED_SLICE,
    2,
    OptionsType.StridedSliceOptions,
    S.StridedSliceOptions,
    (t) => ({
      beginMask: t?.beginMask() ?? 0,
      endMask: t?.endMask() ?? 0,
      ellipsisMask: t?.ellipsisMask() ?? 0,
      newAxisMask: t?.newAxisMask() ?? 0,
      shrinkAxisMask: t?.shrinkAxisMask() ?? 0,
      offset: t?.offset() ?? false,
    }),
    (b, o) => S.StridedSliceOptions.createStridedSliceOptions(b, o.beginMask, o.endMask, o.ellipsisMask, o.newAxisMask, o.shrinkAxisMask, o.offset),
  ),
  logistic: simple('logistic', Code.LOGISTIC, 2, noOptions),
  relu: simple('relu', Code.RELU, 2, noOptions),
  relu6: simple('relu6', Code.RELU6, 2, noOptions),
  leakyRelu: withOptions('leakyRelu', Code.LEAKY_RELU, 2, OptionsType.LeakyReluOptions, S.LeakyReluOptions, (t) => ({ alpha: t?.alpha() ?? 0 }), (b, o) => S.LeakyReluOptions.createLeakyReluOptions(b, o.alpha)),
  transpose: simple('transpose', Code.TRANSPOSE, 2, noOptions, OptionsType.TransposeOptions),
  hardSwish: simple('hardSwish', Code.HARD_SWISH, 1, noOptions, OptionsType.HardSwishOptions),
  logSoftmax: simple('logSoftmax', Code.LOG_SOFTMAX, 2, noOptions, OptionsType.LogSoftmaxOptions),
  tanh: simple('tanh', Code.TANH, 2, noOptions),
  elu: simple('elu', Code.ELU, 1, noOptions),
  prelu: simple('prelu', Code.PRELU, 1, noOptions),
  l2Normalization: withOptions('l2Normalization', Code.L2_NORMALIZATION, 2, OptionsType.L2NormOptions, S.L2NormOptions, (t) => ({ activation: fusedActivation(t) }), (b, o) => S.L2NormOptions.createL2NormOptions(b, activationToCode(o.activation))),
  resizeNearestNeighbor: withOptions(
    'resizeNearestNeighbor',
    Code.RESIZE_NEAREST_NEIGHBOR,
    3,
    OptionsType.ResizeNearestNeighborOptions,
    S.ResizeNearestNeighborOptions,
    (t) => ({ alignCorners: t?.alignCorners() ?? false, halfPixelCenters: t?.halfPixelCenters() ?? false }),
    (b, o) => S.ResizeNearestNeighborOptions.createResizeNearestNeighborOptions(b, o.alignCorners, o.halfPixelCenters),
  ),
  resizeBilinear: withOptions(
    'resizeBilinear',
    Code.RESIZE_BILINEAR,
    3,
    OptionsType.ResizeBilinearOptions,
    S.ResizeBilinearOptions,
    (t) => ({ alignCorners: t?.alignCorners() ?? false, halfPixelCenters: t?.halfPixelCenters() ?? false }),
    (b, o) => S.ResizeBilinearOptions.createResizeBilinearOptions(b, 0, 0, o.alignCorners, o.halfPixelCenters),
  ),
};

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
