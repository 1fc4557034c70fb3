// Seeded int8 weights and int32 biases in TFLite's int8 scheme: weights symmetric (zero point 0,
// codes in [-127, 127]) with one scale per output channel or per tensor, biases int32 with
// scale input_scale * weight_scale[c] and zero point 0. Each constant gets its own seedrandom
// ARC4 stream keyed by model seed + tensor name, so a tensor's bytes never depend on build order.
import seedrandom from 'seedrandom';
import { InternalError } from '../errors.ts';

/** Standard deviation of q uniform on the 255 codes [-127, 127]: sqrt(127 * 128 / 3). */
export const INT8_WEIGHT_CODE_STD = Math.sqrt((127 * 128) / 3);

function makeRng(seed: string): seedrandom.PRNG {
  return seedrandom(seed);
}

/**
 * `count` int8 codes uniform on [-127, 127], four per 32-bit draw (`prng.int32()`: four ARC4 bytes,
 * the first most significant), taken from the least significant byte up; byte 255 is rejected, so
 * every code has probability exactly 1/255. The bytes come straight off the ARC4 stream, started
 * from the seeded generator's own state (seedrandom's `state` option), as `int32()` would give
 * them, in a quarter of the time (a zoo model's millions of weights are what every zoo command and
 * test pays first). Checked against `int32()` draws in test/ir/zoo/graph-builder.test.ts.
 */
export function uniformInt8Codes(seed: string, count: number): Int8Array {
  const state = seedrandom(seed, { state: true }).state();
  const out = new Int8Array(count);
  fillCodes(Uint8Array.from(state.S), state.i, state.j, out);
  return out;
}

/** The loop of uniformInt8Codes from ARC4 state (s, i, j), alone in its function: V8 optimizes a
 * small loop in a few milliseconds, where with the seeding around it the first model's codes
 * waited 50 ms for the optimizing compiler. */
function fillCodes(s: Uint8Array, i0: number, j0: number, out: Int8Array): void {
  let i = i0;
  let j = j0;
  let n = 0;
  while (n < out.length) {
    // One int32() draw: four bytes, the first most significant; codes from the least significant.
    let word = 0;
    for (let k = 0; k < 4; k++) {
      i = (i + 1) & 255;
      const t = s[i] as number;
      j = (j + t) & 255;
      const u = s[j] as number;
      s[i] = u;
      s[j] = t;
      word = (word << 8) | (s[(u + t) & 255] as number);
    }
    for (let k = 0; k < 4 && n < out.length; k++) {
      const b = word & 0xff;
      word >>>= 8;
      if (b !== 255) out[n++] = b - 127;
    }
  }
}

/**
 * Per-channel weight scales for a target real weight standard deviation. Each channel's scale is
 * jittered by sqrt(u), u uniform on [0.5, 1.5], so E[scale^2] matches the target exactly while the
 * channels differ (per-channel requantization gets exercised). Scales are float32-exact.
 */
export function weightScales(seed: string, channels: number, weightStd: number): number[] {
  if (!(weightStd > 0) || !Number.isFinite(weightStd)) throw new InternalError(`bad weight std ${weightStd} for ${seed}`);
  const prng = makeRng(seed);
  const base = weightStd / INT8_WEIGHT_CODE_STD;
  const scales: number[] = [];
  for (let c = 0; c < channels; c++) scales.push(Math.fround(base * Math.sqrt(0.5 + prng.double())));
  return scales;
}

/** `count` reals uniform on [-sqrt(3) std, sqrt(3) std] (standard deviation `std`). */
export function uniformReals(seed: string, count: number, std: number): Float64Array {
  const prng = makeRng(seed);
  const half = Math.sqrt(3) * std;
  const out = new Float64Array(count);
  for (let i = 0; i < count; i++) out[i] = (2 * prng.double() - 1) * half;
  return out;
}

/**
 * Int32 bias codes for real biases, with scale input_scale * weight_scale[c] rounded to float32
 * as the TFLite converter stores it. Codes saturate to the int32 range.
 */
export function quantizeBias(real: ArrayLike<number>, inputScale: number, weightScales: readonly number[]): { codes: Int32Array; scales: number[] } {
  const codes = new Int32Array(real.length);
  const scales: number[] = [];
  for (let c = 0; c < real.length; c++) {
    const scale = Math.fround(inputScale * (weightScales[c] as number));
    const q = Math.round((real[c] as number) / scale);
    codes[c] = Math.max(-(2 ** 31), Math.min(2 ** 31 - 1, q));
    scales.push(scale);
  }
  return { codes, scales };
}

/** Little-endian bytes of an int32 array (platform independent). */
export function int32Bytes(values: ArrayLike<number>): Uint8Array {
  const out = new Uint8Array(values.length * 4);
  const view = new DataView(out.buffer);
  for (let i = 0; i < values.length; i++) view.setInt32(i * 4, values[i] as number, true);
  return out;
}

/** The bytes of an int8 array, sharing its buffer. */
export function int8Bytes(values: Int8Array): Uint8Array {
  return new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
}
