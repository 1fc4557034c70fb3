// C structs as data: a field list in declaration order, from which sim/tflm-arena computes sizeof
// and alignof under each TFLM build's ABI. Used to describe what TFLM kernels keep in the arena.

/**
 * A C scalar. `enum` is a plain C enum (TfLitePadding, TfLiteFusedActivation, TfLiteType...): 4 bytes
 * on the 64-bit host, 1 byte on arm-none-eabi (AAPCS short enums, the GCC default there; every
 * TFLite enum fits a byte). `ptr` is any pointer; `size_t` follows the pointer width.
 */
export type CScalar = 'bool' | 'int8' | 'uint8' | 'int16' | 'uint16' | 'int32' | 'int64' | 'float' | 'double' | 'enum' | 'ptr' | 'size_t';

export interface CStruct {
  readonly name: string;
  /** Fields in declaration order: a scalar, a nested struct, or an array `{ of, count }`. */
  readonly fields: readonly (readonly [string, CFieldType])[];
}
export type CFieldType = CScalar | CStruct | { readonly of: CScalar | CStruct; readonly count: number };

export const cStruct = (name: string, fields: readonly (readonly [string, CFieldType])[]): CStruct => ({ name, fields });
export const cArray = (of: CScalar | CStruct, count: number): CFieldType => ({ of, count });
