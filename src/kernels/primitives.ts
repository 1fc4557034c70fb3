// The closed set of numeric primitives a loop nest may call, each with its JS text, its C99 text
// and an abstract cost in integer operations. Semantics are TFLM's fixed-point helpers
// (tensorflow/lite/kernels/internal/common.h, gemmlowp fixedpoint.h): SaturatingRoundingDoubling-
// HighMul, RoundingDivideByPOT and the default double-rounding MultiplyByQuantizedMultiplier.
// The 32x32->64-bit product of SRDHM is computed exactly in doubles by splitting b into 16-bit halves.

import type { Primitive } from './primitive.ts';
import { GEMMLOWP_PRIMITIVES } from './primitives-gemmlowp.ts';
import { FLOAT_PRIMITIVES } from './primitives-float.ts';
import { MATH_PRIMITIVES } from './primitives-math.ts';
import { LUT16_PRIMITIVES } from './primitives-lut16.ts';

export type { Primitive } from './primitive.ts';

const table: readonly Primitive[] = [
  {
    name: 'min',
    arity: 2,
    deps: [],
    js: 'function p_min(a, b) { return a < b ? a : b; }',
    c: 'static inline int32_t mcu_min(int32_t a, int32_t b) { return a < b ? a : b; }',
    costOps: 1,
  },
  {
    name: 'max',
    arity: 2,
    deps: [],
    js: 'function p_max(a, b) { return a > b ? a : b; }',
    c: 'static inline int32_t mcu_max(int32_t a, int32_t b) { return a > b ? a : b; }',
    costOps: 1,
  },
  {
    name: 'clamp',
    arity: 3,
    deps: [],
    // std::max then std::min, as the reference kernels apply the activation range.
    js: 'function p_clamp(x, lo, hi) { x = x > lo ? x : lo; return x < hi ? x : hi; }',
    c: 'static inline int32_t mcu_clamp(int32_t x, int32_t lo, int32_t hi) { x = x > lo ? x : lo; return x < hi ? x : hi; }',
    costOps: 2,
  },
  {
    name: 'srdhm',
    arity: 2,
    deps: [],
    // (a*b + nudge) / 2^31 truncated, exact. S = a*b + nudge is an int64: its low 32 bits are exact
    // from Math.imul, and the double a*b + nudge is within 2^10 of S, so the high word h comes out
    // exact by rounding (S - lo) / 2^32. Then floor(S / 2^31) = 2h + bit 31 of lo, plus one toward
    // zero when S < 0 (h < 0) is not a multiple of 2^31. No division, no Math.floor of a quotient.
    js: `function p_srdhm(a, b) {
  if (a === -2147483648 && b === -2147483648) return 2147483647;
  const nudge = (a ^ b) < 0 && a !== 0 && b !== 0 ? -1073741823 : 1073741824;
  const lo = (Math.imul(a, b) + nudge) >>> 0;
  const h = Math.floor((a * b + nudge - lo) * 2.3283064365386963e-10 + 0.5);
  return (2 * h + (lo >>> 31) + (h < 0 && (lo & 0x7fffffff) !== 0 ? 1 : 0)) | 0;
}`,
    c: `static inline int32_t mcu_srdhm(int32_t a, int32_t b) {
  if (a == b && a == INT32_MIN) return INT32_MAX;
  const int64_t ab = (int64_t)a * (int64_t)b;
  const int32_t nudge = ab >= 0 ? (1 << 30) : (1 - (1 << 30));
  return (int32_t)((ab + nudge) / ((int64_t)1 << 31));
}`,
    costOps: 10,
  },
  {
    name: 'rdbpot',
    arity: 2,
    deps: [],
    js: `function p_rdbpot(x, e) {
  const mask = ((1 << e) - 1) | 0;
  const thr = (mask >> 1) + (x < 0 ? 1 : 0);
  return ((x >> e) + ((x & mask) > thr ? 1 : 0)) | 0;
}`,
    c: `static inline int32_t mcu_rdbpot(int32_t x, int32_t e) {
  const int32_t mask = (int32_t)(((int64_t)1 << e) - 1);
  const int32_t thr = (mask >> 1) + (x < 0 ? 1 : 0);
  return (x >> e) + ((x & mask) > thr ? 1 : 0);
}`,
    costOps: 6,
  },
  {
    name: 'shl',
    arity: 2,
    deps: [],
    // x * (1 << n) in wrapping int32, as TFLM writes left shifts of signed values.
    js: 'function p_shl(x, n) { return Math.imul(x, 1 << n); }',
    c: 'static inline int32_t mcu_shl(int32_t x, int32_t n) { return (int32_t)((uint32_t)x * ((uint32_t)1 << n)); }',
    costOps: 1,
  },
  {
    name: 'mbqm',
    arity: 3,
    deps: ['srdhm', 'rdbpot'],
    js: `function p_mbqm(x, m, s) {
  return p_rdbpot(p_srdhm(Math.imul(x, 1 << (s > 0 ? s : 0)), m), s > 0 ? 0 : -s);
}`,
    c: `static inline int32_t mcu_mbqm(int32_t x, int32_t m, int32_t s) {
  const int32_t ls = s > 0 ? s : 0;
  return mcu_rdbpot(mcu_srdhm((int32_t)((uint32_t)x * ((uint32_t)1 << ls)), m), s > 0 ? 0 : -s);
}`,
    costOps: 18,
  },
  {
    name: 'avgRound',
    arity: 2,
    deps: [],
    // TFLM AveragePool rounding: half away from zero with C truncating division; n >= 1 taps.
    js: 'function p_avgRound(a, n) { return (a > 0 ? (a + ((n / 2) | 0)) / n : (a - ((n / 2) | 0)) / n) | 0; }',
    c: 'static inline int32_t mcu_avgRound(int32_t a, int32_t n) { return a > 0 ? (a + n / 2) / n : (a - n / 2) / n; }',
    costOps: 4,
  },
  // float32 primitives (QUANTIZE / DEQUANTIZE). A float32 value is never held in a nest value
  // (C declares those int32_t): it flows from a float32 load straight into a primitive argument,
  // or from a primitive result straight into a float32 store. Scalars carry a float32 as its bit
  // pattern (int32); both lowerings decode it exactly. JS doubles round to float32 with
  // Math.fround, which equals C float arithmetic for one + - * / (the double result is exact
  // enough that rounding it once to float32 gives the correctly rounded float32 result).
  {
    name: 'f32FromBits',
    arity: 1,
    deps: [],
    js: `function p_f32FromBits(b) {
  const e = (b >>> 23) & 255, m = b & 8388607, s = b < 0 ? -1 : 1;
  if (e === 255) return m !== 0 ? NaN : s * Infinity;
  return e === 0 ? s * m * 2 ** -149 : s * (m + 8388608) * 2 ** (e - 150);
}`,
    c: 'static inline float mcu_f32FromBits(int32_t b) { union { int32_t i; float f; } u; u.i = b; return u.f; }',
    costOps: 1,
  },
  {
    name: 'quantizeF32',
    arity: 2,
    deps: ['f32FromBits'],
    // TFLM AffineQuantize: (int32_t)TfLiteRound(val / scale), float32 division, half away from
    // zero. Saturates at +-2^30 (C's out-of-range float->int cast is undefined; any such value
    // clamps to the same int8 anyway) and maps NaN to 0.
    js: `function p_quantizeF32(v, sb) {
  const q = Math.fround(v / p_f32FromBits(sb));
  if (q !== q) return 0;
  if (q >= 1073741824) return 1073741824;
  if (q <= -1073741824) return -1073741824;
  const t = Math.trunc(q), frac = q - t;
  return frac >= 0.5 ? t + 1 : frac <= -0.5 ? t - 1 : t;
}`,
    c: `static inline int32_t mcu_quantizeF32(float v, int32_t sb) {
  const float q = v / mcu_f32FromBits(sb);
  if (q != q) return 0;
  if (q >= 1073741824.0f) return 1073741824;
  if (q <= -1073741824.0f) return -1073741824;
  const int32_t t = (int32_t)q;
  const float frac = q - (float)t;
  return frac >= 0.5f ? t + 1 : frac <= -0.5f ? t - 1 : t;
}`,
    costOps: 12,
  },
  {
    name: 'dequantizeF32',
    arity: 2,
    deps: ['f32FromBits'],
    // TFLM Dequantize: static_cast<float>(double(scale) * (q - zp)); returns the double, the
    // float32 store rounds it (a Float32Array store in JS, a (float) cast in C).
    js: 'function p_dequantizeF32(x, sb) { return p_f32FromBits(sb) * x; }',
    c: 'static inline double mcu_dequantizeF32(int32_t x, int32_t sb) { return (double)mcu_f32FromBits(sb) * (double)x; }',
    costOps: 2,
  },
  ...GEMMLOWP_PRIMITIVES,
  ...MATH_PRIMITIVES,
  ...FLOAT_PRIMITIVES,
  ...LUT16_PRIMITIVES,
];

export const PRIMITIVES: Readonly<Record<string, Primitive>> = Object.fromEntries(table.map((p) => [p.name, p]));

/** The given primitives plus their dependencies, dependencies first, each once. */
export function primitiveClosure(names: Iterable<string>): Primitive[] {
  const out: Primitive[] = [];
  const seen = new globalThis.Set<string>();
  const visit = (n: string): void => {
    if (seen.has(n)) return;
    seen.add(n);
    const p = PRIMITIVES[n];
    if (p === undefined) return;
    for (const d of p.deps) visit(d);
    out.push(p);
  };
  for (const n of names) visit(n);
  return out;
}

type PrimFn = (...args: number[]) => number;

/** Callable JS implementations compiled from the same text the code generator inlines. */
export function primitiveFunctions(): Readonly<Record<string, PrimFn>> {
  const src = table.map((p) => p.js).join('\n');
  const body = `${src}\nreturn { ${table.map((p) => `${p.name}: p_${p.name}`).join(', ')} };`;
  return new Function(body)() as Record<string, PrimFn>;
}
