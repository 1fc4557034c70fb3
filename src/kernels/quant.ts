// Prepare-time quantization helpers (floats allowed here only): TFLM's QuantizeMultiplier
// (quantization_util.cc), QuantizeMultiplierSmallerThanOneExp and CalculateActivationRangeQuantized
// (kernel_util.cc). Scales are float32 values already rounded with Math.fround.
import type { Activation } from '../ir/index.ts';
import { InternalError } from '../ir/index.ts';

export interface QuantizedMultiplier {
  readonly multiplier: number;
  readonly shift: number;
}

/** std::frexp for finite x: x = q * 2^e with 0.5 <= |q| < 1 (q = 0, e = 0 for x = 0). */
export function frexp(x: number): { readonly q: number; readonly e: number } {
  if (x === 0 || !Number.isFinite(x)) return { q: x, e: 0 };
  const a = Math.abs(x);
  let e = Math.max(-1073, Math.floor(Math.log2(a)) + 1);
  let q = a * 2 ** -e;
  while (q >= 1) (q /= 2), e++;
  while (q < 0.5) (q *= 2), e--;
  return { q: x < 0 ? -q : q, e };
}

/** TfLiteRound / std::round: half away from zero. */
export function roundHalfAway(x: number): number {
  return x < 0 ? -Math.round(-x) : Math.round(x);
}

/** QuantizeMultiplier(double): q in Q31 and a power-of-two exponent. */
export function quantizeMultiplier(real: number): QuantizedMultiplier {
  if (real === 0) return { multiplier: 0, shift: 0 };
  const f = frexp(real);
  let q = roundHalfAway(f.q * 2 ** 31);
  let shift = f.e;
  if (q > 2 ** 31) throw new InternalError(`quantizeMultiplier: ${real} out of range`);
  if (q === 2 ** 31) (q /= 2), shift++;
  if (q > 2 ** 31 - 1) throw new InternalError(`quantizeMultiplier: ${real} out of range`);
  if (shift < -31) (shift = 0), (q = 0);
  return { multiplier: q, shift };
}

/** QuantizeMultiplierSmallerThanOneExp: as quantizeMultiplier, requires real < 1 (shift <= 0). */
export function quantizeMultiplierSmallerThanOne(real: number): QuantizedMultiplier {
  const r = quantizeMultiplier(real);
  if (r.shift > 0) throw new InternalError(`multiplier ${real} is not smaller than one`);
  return r;
}

/** zp + (int)round(f / scale), the division in float32 (CalculateActivationRangeQuantized). */
export function quantizeFloat32(f: number, scale: number, zeroPoint: number): number {
  return zeroPoint + roundHalfAway(Math.fround(Math.fround(f) / Math.fround(scale)));
}

/** Quantized [min, max] of a fused activation for an int8 (or other) output. */
export function activationRange(act: Activation, scale: number, zeroPoint: number, qmin = -128, qmax = 127): { readonly min: number; readonly max: number } {
  const q = (f: number): number => quantizeFloat32(f, scale, zeroPoint);
  switch (act) {
    case 'none':
      return { min: qmin, max: qmax };
    case 'relu':
      return { min: Math.max(qmin, q(0)), max: qmax };
    case 'relu6':
      return { min: Math.max(qmin, q(0)), max: Math.min(qmax, q(6)) };
    case 'reluN1To1':
      return { min: Math.max(qmin, q(-1)), max: Math.min(qmax, q(1)) };
    case 'tanh':
    case 'signBit':
      throw new InternalError(`fused activation ${act} has no quantized range`);
  }
}
