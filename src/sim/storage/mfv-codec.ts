// TinySeg's dynamic tensor compression (§5.1, Figure 9): the most frequent byte value
// (representative), a bitmap with one bit per element set where the element differs from it,
// then those other values in order. Layout: [rep][bitmap: ceil(n/8) bytes, LSB-first][others].
// TinySeg's runtime interleaves one mask byte after each 8-element group's values; the size is
// the same (plus our 1-byte representative, which the runtime keeps in RAM instead).

import type { CoreProfile, TargetProfile } from '../targets/index.ts';
import { cyclesToUs, spillPart } from '../targets/index.ts';
import { storageError } from './storage-device.ts';

/** Most frequent value; ties go to the smallest value (as TinySeg's find_max_value). */
export function mostFrequentByte(bytes: Uint8Array): number {
  const counts = new Uint32Array(256);
  for (let i = 0; i < bytes.length; i++) counts[bytes[i] ?? 0]! += 1;
  let best = 0;
  for (let v = 1; v < 256; v++) if ((counts[v] ?? 0) > (counts[best] ?? 0)) best = v;
  return best;
}

export function mfvEncodedBytes(length: number, others: number): number {
  return 1 + Math.ceil(length / 8) + others;
}

export function compressMfv(bytes: Uint8Array): Uint8Array {
  if (!(bytes instanceof Uint8Array)) throw storageError('compressMfv: input must be a Uint8Array');
  const rep = mostFrequentByte(bytes);
  let others = 0;
  for (let i = 0; i < bytes.length; i++) if (bytes[i] !== rep) others++;
  const bitmapBytes = Math.ceil(bytes.length / 8);
  const out = new Uint8Array(mfvEncodedBytes(bytes.length, others));
  out[0] = rep;
  let next = 1 + bitmapBytes;
  for (let i = 0; i < bytes.length; i++) {
    const v = bytes[i] ?? 0;
    if (v !== rep) {
      out[1 + (i >>> 3)]! |= 1 << (i & 7);
      out[next++] = v;
    }
  }
  return out;
}

/** Inverse of compressMfv; any inconsistent stream is an E_STORAGE error, never a partial result. */
export function decompressMfv(encoded: Uint8Array, length: number): Uint8Array {
  if (!(encoded instanceof Uint8Array)) throw storageError('decompressMfv: input must be a Uint8Array');
  if (!Number.isSafeInteger(length) || length < 0) throw storageError(`decompressMfv: invalid length ${String(length)}`);
  const bitmapBytes = Math.ceil(length / 8);
  if (encoded.length < 1 + bitmapBytes) {
    throw storageError(`MFV stream of ${encoded.length} bytes too short for ${length} elements`);
  }
  if (length % 8 !== 0 && (encoded[bitmapBytes] ?? 0) >> length % 8 !== 0) {
    throw storageError('MFV stream marks elements past the end of the tensor');
  }
  let others = 0;
  for (let b = 1; b <= bitmapBytes; b++) others += popcount8(encoded[b] ?? 0);
  if (encoded.length !== mfvEncodedBytes(length, others)) {
    throw storageError(`MFV stream has ${encoded.length} bytes, bitmap implies ${mfvEncodedBytes(length, others)}`);
  }
  const rep = encoded[0] ?? 0;
  const out = new Uint8Array(length).fill(rep);
  let next = 1 + bitmapBytes;
  for (let i = 0; i < length; i++) {
    if (((encoded[1 + (i >>> 3)] ?? 0) >> (i & 7)) & 1) out[i] = encoded[next++] ?? 0;
  }
  return out;
}

function popcount8(v: number): number {
  let n = 0;
  for (let x = v; x !== 0; x &= x - 1) n++;
  return n;
}

export type CodecDirection = 'compress' | 'decompress';

/** Cycles of one codec pass over `rawBytes` tensor bytes, from the profile's per-byte costs. */
export function mfvCodecCycles(target: TargetProfile, direction: CodecDirection, rawBytes: number): number {
  const c = spillPart(target, 'codec', '--compress');
  return direction === 'compress'
    ? rawBytes * (c.histogramCyclesPerByte + c.encodeCyclesPerByte) + c.histogramScanCycles
    : rawBytes * c.decodeCyclesPerByte;
}

/**
 * Modeled codec time in us. TinySeg's dual-core runtime runs transfer_out/in (and so the
 * codec) on the second core via RPC, so the caller picks the core.
 */
export function mfvCodecTimeUs(
  target: TargetProfile,
  direction: CodecDirection,
  rawBytes: number,
  core: CoreProfile = target.mainCore,
): number {
  return cyclesToUs(core, mfvCodecCycles(target, direction, rawBytes));
}
