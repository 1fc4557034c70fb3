// Custom-option bytes of MergeAccumulators, the FDT Fan-In partition + Merge op (fused depthwise
// tiling paper §3, Fig. 2: partial sums recombined and the activation applied once). Strict
// decoding: a wrong length, a nonzero reserved byte or a value out of range is E_MODEL_INVALID.
//
//   MergeAccumulators (20 bytes, little-endian)
//     [0] u8 base (0 CONV_2D, 1 FULLY_CONNECTED)  [1] u8 padding (0 SAME, 1 VALID)
//     [2] u8 fused activation (TFLite ActivationFunctionType)  [3] reserved, zero
//     [4..7] int32 strideH [8..11] strideW [12..15] dilationH [16..19] dilationW, each in [1, 65535]
import { ModelError } from '../errors.ts';
import type { MergeOptions } from '../graph.ts';
import { activationFromCode, activationToCode } from './enums.ts';

export const MERGE_CUSTOM_CODE = 'MergeAccumulators';
const BYTES = 20;
const MAX_STRIDE = 65535;

function bad(message: string): ModelError {
  return new ModelError('E_MODEL_INVALID', `custom op ${MERGE_CUSTOM_CODE}: ${message}`);
}

export function decodeMergeOptions(bytes: Uint8Array): MergeOptions {
  if (!(bytes instanceof Uint8Array) || bytes.length !== BYTES) throw bad(`custom options must be ${BYTES} bytes, got ${bytes?.length ?? 0}`);
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const base = dv.getUint8(0);
  const pad = dv.getUint8(1);
  const activation = activationFromCode(dv.getUint8(2));
  if (base > 1) throw bad(`unknown base op code ${base}`);
  if (pad > 1) throw bad(`unknown padding code ${pad}`);
  if (activation === null) throw bad(`unknown activation code ${dv.getUint8(2)}`);
  if (dv.getUint8(3) !== 0) throw bad('reserved byte 3 must be zero');
  const s = (o: number, name: string): number => {
    const v = dv.getInt32(o, true);
    if (v < 1 || v > MAX_STRIDE) throw bad(`${name} ${v} outside [1, ${MAX_STRIDE}]`);
    return v;
  };
  return {
    base: base === 0 ? 'conv2d' : 'fullyConnected',
    padding: pad === 0 ? 'same' : 'valid',
    activation,
    strideH: s(4, 'strideH'),
    strideW: s(8, 'strideW'),
    dilationH: s(12, 'dilationH'),
    dilationW: s(16, 'dilationW'),
  };
}

export function encodeMergeOptions(o: MergeOptions): Uint8Array {
  const out = new Uint8Array(BYTES);
  const dv = new DataView(out.buffer);
  dv.setUint8(0, o.base === 'conv2d' ? 0 : 1);
  dv.setUint8(1, o.padding === 'same' ? 0 : 1);
  dv.setUint8(2, activationToCode(o.activation));
  [o.strideH, o.strideW, o.dilationH, o.dilationW].forEach((v, i) => dv.setInt32(4 + 4 * i, v, true));
  return out;
}
