// TFLite schema enums <-> IR values: tensor types, fused activations, padding, FC weight format.
// Mirrors tflite::ConvertTensorType / ConvertActivation / ConvertPadding
// (tensorflow/lite/core/api/flatbuffer_conversions.cc); unknown codes decode to null.
import type { DType } from '../dtype.ts';
import type { Activation, FullyConnectedOptions, Padding } from '../graph.ts';
import { ActivationFunctionType, FullyConnectedOptionsWeightsFormat, Padding as FbPadding, TensorType } from './schema-generated.ts';

const DTYPE_TO_TENSOR_TYPE: Readonly<Record<DType, TensorType>> = {
  float32: TensorType.FLOAT32,
  float16: TensorType.FLOAT16,
  float64: TensorType.FLOAT64,
  int8: TensorType.INT8,
  uint8: TensorType.UINT8,
  int16: TensorType.INT16,
  uint16: TensorType.UINT16,
  int32: TensorType.INT32,
  uint32: TensorType.UINT32,
  int64: TensorType.INT64,
  uint64: TensorType.UINT64,
  bool: TensorType.BOOL,
};
const TENSOR_TYPE_TO_DTYPE: ReadonlyMap<number, DType> = new Map(
  Object.entries(DTYPE_TO_TENSOR_TYPE).map(([d, t]) => [t, d as DType]),
);

const ACTIVATION_TO_CODE: Readonly<Record<Activation, ActivationFunctionType>> = {
  none: ActivationFunctionType.NONE,
  relu: ActivationFunctionType.RELU,
  reluN1To1: ActivationFunctionType.RELU_N1_TO_1,
  relu6: ActivationFunctionType.RELU6,
  tanh: ActivationFunctionType.TANH,
  signBit: ActivationFunctionType.SIGN_BIT,
};
const CODE_TO_ACTIVATION: ReadonlyMap<number, Activation> = new Map(
  Object.entries(ACTIVATION_TO_CODE).map(([a, c]) => [c, a as Activation]),
);

type WeightsFormat = FullyConnectedOptions['weightsFormat'];
const WEIGHTS_FORMAT_TO_CODE: Readonly<Record<WeightsFormat, FullyConnectedOptionsWeightsFormat>> = {
  default: FullyConnectedOptionsWeightsFormat.DEFAULT,
  shuffled4x16int8: FullyConnectedOptionsWeightsFormat.SHUFFLED4x16INT8,
};

export function dtypeFromTensorType(code: number): DType | null {
  return TENSOR_TYPE_TO_DTYPE.get(code) ?? null;
}
export function tensorTypeFromDtype(dtype: DType): TensorType {
  return DTYPE_TO_TENSOR_TYPE[dtype];
}
/** The schema's name for a tensor type code, for messages. */
export function tensorTypeName(code: number): string {
  return TensorType[code] ?? `unknown type ${code}`;
}

export function activationFromCode(code: number): Activation | null {
  return CODE_TO_ACTIVATION.get(code) ?? null;
}
export function activationToCode(a: Activation): ActivationFunctionType {
  return ACTIVATION_TO_CODE[a];
}

export function paddingFromCode(code: number): Padding | null {
  return code === FbPadding.SAME ? 'same' : code === FbPadding.VALID ? 'valid' : null;
}
export function paddingToCode(p: Padding): FbPadding {
  return p === 'same' ? FbPadding.SAME : FbPadding.VALID;
}

export function weightsFormatFromCode(code: number): WeightsFormat | null {
  return code === FullyConnectedOptionsWeightsFormat.DEFAULT
    ? 'default'
    : code === FullyConnectedOptionsWeightsFormat.SHUFFLED4x16INT8
      ? 'shuffled4x16int8'
      : null;
}
export function weightsFormatToCode(f: WeightsFormat): FullyConnectedOptionsWeightsFormat {
  return WEIGHTS_FORMAT_TO_CODE[f];
}
