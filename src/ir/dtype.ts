// Tensor element types and their byte sizes; the TFLite TensorType codes live in the importer.

export type DType =
  | 'float32'
  | 'float16'
  | 'float64'
  | 'int8'
  | 'uint8'
  | 'int16'
  | 'uint16'
  | 'int32'
  | 'uint32'
  | 'int64'
  | 'uint64'
  | 'bool';

export const DTYPE_BYTES: Readonly<Record<DType, number>> = {
  float32: 4,
  float16: 2,
  float64: 8,
  int8: 1,
  uint8: 1,
  int16: 2,
  uint16: 2,
  int32: 4,
  uint32: 4,
  int64: 8,
  uint64: 8,
  bool: 1,
};

/** Largest tensor byte size mcusim accepts (TFLM stores sizes in int32/size_t on a 32-bit MCU). */
export const MAX_TENSOR_BYTES = 2 ** 31 - 1;

export function elementCount(shape: readonly number[]): number {
  let n = 1;
  for (const d of shape) n *= d;
  return n;
}

export function byteSize(dtype: DType, shape: readonly number[]): number {
  return elementCount(shape) * DTYPE_BYTES[dtype];
}
