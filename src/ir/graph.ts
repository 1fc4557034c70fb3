// The graph IR: tensors, ops as a discriminated union on `kind` with typed options, and the
// model around one subgraph. Everything is readonly data; passes build new graphs.
import type { DType } from './dtype.ts';
import { InternalError } from './errors.ts';

export type Activation = 'none' | 'relu' | 'reluN1To1' | 'relu6' | 'tanh' | 'signBit';
export type Padding = 'same' | 'valid';

export interface Quantization {
  /** float32-exact scales, one per channel along quantizedDimension (or one per tensor). */
  readonly scale: readonly number[];
  readonly zeroPoint: readonly number[];
  readonly quantizedDimension: number;
}

export interface Tensor {
  readonly name: string;
  readonly dtype: DType;
  readonly shape: readonly number[];
  readonly quant: Quantization | null;
  /** Constant bytes (little-endian, row-major) for weights; null for activations. */
  readonly data: Uint8Array | null;
  readonly isVariable: boolean;
}

export interface Conv2dOptions {
  readonly padding: Padding;
  readonly strideH: number;
  readonly strideW: number;
  readonly dilationH: number;
  readonly dilationW: number;
  readonly activation: Activation;
}
export interface DepthwiseConv2dOptions extends Conv2dOptions {
  readonly depthMultiplier: number;
}
export interface TransposeConvOptions {
  readonly padding: Padding;
  readonly strideH: number;
  readonly strideW: number;
  readonly activation: Activation;
  /** TinySeg §5.3: int16 accumulator scratch, set only where a bound proves the sums fit. */
  readonly scratchInt16?: boolean;
  /** mcusim extension: gather form without the int32 scratch (same sums, bit-exact). */
  readonly scratchFree?: boolean;
}
export interface Pool2dOptions {
  readonly padding: Padding;
  readonly strideH: number;
  readonly strideW: number;
  readonly filterH: number;
  readonly filterW: number;
  readonly activation: Activation;
}
export interface ConcatenationOptions {
  readonly axis: number;
  readonly activation: Activation;
}
export interface FullyConnectedOptions {
  readonly activation: Activation;
  readonly weightsFormat: 'default' | 'shuffled4x16int8';
  readonly keepNumDims: boolean;
  readonly asymmetricQuantizeInputs: boolean;
}
export interface SoftmaxOptions {
  readonly beta: number;
}
export interface AddOptions {
  readonly activation: Activation;
  readonly potScaleInt16: boolean;
}
export interface ActivationOptions {
  readonly activation: Activation;
}
export interface ReshapeOptions {
  /** The shape from ReshapeOptions.new_shape, or null when the model gives it only as a tensor. */
  readonly newShape: readonly number[] | null;
}
export interface ReducerOptions {
  readonly keepDims: boolean;
}
export interface SplitOptions {
  readonly numSplits: number;
}
export interface StridedSliceOptions {
  readonly beginMask: number;
  readonly endMask: number;
  readonly ellipsisMask: number;
  readonly newAxisMask: number;
  readonly shrinkAxisMask: number;
  readonly offset: boolean;
}
export interface LeakyReluOptions {
  readonly alpha: number;
}
/**
 * TinySeg Spill (Table 1): writes its one input to storage slot `id`; no outputs. The slot is a
 * tensor index, the spilled tensor's, as in TinySeg's runtime (custom-ops.ts).
 */
export interface SpillOptions {
  readonly id: number;
}
/**
 * TinySeg Fetching (Table 1): fetches slot `victim` (the spilled tensor's index, whose shape is the
 * fetched part's) and concatenates it, at position `nth`, with the op's inputs along `axis` (no
 * inputs: the fetched tensor itself).
 */
export interface FetchingOptions {
  readonly victim: number;
  readonly nth: number;
  readonly axis: number;
}
/** Fetching fused with a Conv2D: inputs [concat inputs..., filter, bias|-1]. */
export interface FetchingConv2dOptions extends Conv2dOptions, FetchingOptions {}
/**
 * FDT Fan-In partition + Merge (fused depthwise tiling, custom op MergeAccumulators): the
 * `base` op (conv2d / fullyConnected geometry below) applied to one input-channel partition,
 * added to the int32 accumulator input (if any). Inputs [x, filter, bias|-1, accIn|-1]; an int32
 * output keeps the raw sum, an int8 output adds bias, requantizes and clamps once like `base`.
 */
export interface MergeOptions extends Conv2dOptions {
  readonly base: 'conv2d' | 'fullyConnected';
}
/** RESIZE_BILINEAR / RESIZE_NEAREST_NEIGHBOR flags (new_height/new_width are deprecated: the size input rules). */
export interface ResizeOptions {
  readonly alignCorners: boolean;
  readonly halfPixelCenters: boolean;
}
export type NoOptions = Readonly<Record<string, never>>;

/** Options type per builtin op kind. Adding an op kind starts here. */
export interface OpOptionsMap {
  conv2d: Conv2dOptions;
  depthwiseConv2d: DepthwiseConv2dOptions;
  transposeConv: TransposeConvOptions;
  maxPool2d: Pool2dOptions;
  averagePool2d: Pool2dOptions;
  concatenation: ConcatenationOptions;
  fullyConnected: FullyConnectedOptions;
  softmax: SoftmaxOptions;
  add: AddOptions;
  mul: ActivationOptions;
  pad: NoOptions;
  reshape: ReshapeOptions;
  mean: ReducerOptions;
  quantize: NoOptions;
  dequantize: NoOptions;
  split: SplitOptions;
  splitV: SplitOptions;
  stridedSlice: StridedSliceOptions;
  logistic: NoOptions;
  relu: NoOptions;
  relu6: NoOptions;
  leakyRelu: LeakyReluOptions;
  transpose: NoOptions;
  spill: SpillOptions;
  fetching: FetchingOptions;
  fetchingConv2d: FetchingConv2dOptions;
  merge: MergeOptions;
  hardSwish: NoOptions;
  logSoftmax: NoOptions;
  tanh: NoOptions;
  elu: NoOptions;
  prelu: NoOptions;
  l2Normalization: ActivationOptions;
  resizeNearestNeighbor: ResizeOptions;
  resizeBilinear: ResizeOptions;
}
export type BuiltinKind = keyof OpOptionsMap;

interface OpNode<K extends BuiltinKind> {
  readonly kind: K;
  /** Tensor indices; -1 marks an omitted optional input (e.g. no bias). */
  readonly inputs: readonly number[];
  readonly outputs: readonly number[];
  readonly options: OpOptionsMap[K];
}
export type BuiltinOp = { [K in BuiltinKind]: OpNode<K> }[BuiltinKind];

/** An op mcusim does not interpret: kept with its name and raw option bytes. */
export interface CustomOp {
  readonly kind: 'custom';
  readonly customCode: string;
  readonly customOptions: Uint8Array;
  readonly inputs: readonly number[];
  readonly outputs: readonly number[];
}

export type Op = BuiltinOp | CustomOp;
export type OpKind = Op['kind'];
export type OpOf<K extends OpKind> = Extract<Op, { kind: K }>;

export interface Graph {
  readonly name: string;
  readonly tensors: readonly Tensor[];
  readonly ops: readonly Op[];
  readonly inputs: readonly number[];
  readonly outputs: readonly number[];
}

export interface MetadataEntry {
  readonly name: string;
  readonly data: Uint8Array;
}

export interface SignatureTensor {
  readonly name: string;
  readonly tensorIndex: number;
}
export interface SignatureDef {
  readonly key: string;
  readonly subgraphIndex: number;
  readonly inputs: readonly SignatureTensor[];
  readonly outputs: readonly SignatureTensor[];
}

export interface Model {
  readonly version: number;
  readonly description: string;
  readonly graph: Graph;
  readonly metadata: readonly MetadataEntry[];
  readonly signatureDefs: readonly SignatureDef[];
}

export function assertNever(x: never, what = 'value'): never {
  throw new InternalError(`unhandled ${what}: ${JSON.stringify(x)}`);
}
