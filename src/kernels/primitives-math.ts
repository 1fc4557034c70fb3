// Fixed-point helpers of TFLM's HARD_SWISH, TANH, LOG_SOFTMAX and L2_NORMALIZATION int8 kernels as
// nest primitives (JS text, C99 text, cost): gemmlowp's int16 SaturatingRoundingDoublingHighMul and
// RoundingDivideByPOT (whose mask is an int16: all ones from exponent 16 on), reference_ops::
// SaturatingLeftShift / SaturatingDoublingHighMul (hard_swish.h), gemmlowp::tanh with
// one_minus_x_over_one_plus_x_for_x_in_0_1, TFLM's log_x_for_x_greater_than_or_equal_to_1 and
// GetInvSqrtQuantizedMultiplierExp (kernels/internal/common.h), each bit-exact.
import type { Primitive } from './primitives.ts';

export const MATH_PRIMITIVES: readonly Primitive[] = [
  {
    name: 'wrap16',
    arity: 1,
    deps: [],
    // An int32 result stored into an int16_t (two's complement wrap).
    js: 'function p_wrap16(x) { return (x << 16) >> 16; }',
    c: 'static inline int32_t mcu_wrap16(int32_t x) { return (int32_t)(int16_t)(uint16_t)(uint32_t)x; }',
    costOps: 1,
  },
  {
    name: 'srdhm16',
    arity: 2,
    deps: [],
    // gemmlowp SaturatingRoundingDoublingHighMul(int16, int16): |a*b| < 2^30, exact in doubles.
    js: `function p_srdhm16(a, b) {
  if (a === -32768 && b === -32768) return 32767;
  const ab = a * b;
  return ((ab + (ab >= 0 ? 16384 : -16383)) / 32768) | 0;
}`,
    c: `static inline int32_t mcu_srdhm16(int32_t a, int32_t b) {
  if (a == -32768 && b == -32768) return 32767;
  const int32_t ab = a * b;
  return (int32_t)(int16_t)((ab + (ab >= 0 ? 16384 : -16383)) / 32768);
}`,
    costOps: 5,
  },
  {
    name: 'sdhm16',
    arity: 2,
    deps: [],
    // reference_ops::SaturatingDoublingHighMul: a*b / 2^15 truncated toward zero (no nudge).
    js: 'function p_sdhm16(a, b) { return a === -32768 && b === -32768 ? 32767 : ((a * b) / 32768) | 0; }',
    c: 'static inline int32_t mcu_sdhm16(int32_t a, int32_t b) { return a == -32768 && b == -32768 ? 32767 : (int32_t)(int16_t)((a * b) / 32768); }',
    costOps: 3,
  },
  {
    name: 'sls16',
    arity: 2,
    deps: [],
    // reference_ops::SaturatingLeftShift(int16, n >= 0): x * 2^n clamped to int16 (n capped at 31:
    // any non-zero value saturates from n = 16 on).
    js: `function p_sls16(x, n) {
  const r = x * 2 ** (n > 31 ? 31 : n);
  return r > 32767 ? 32767 : r < -32768 ? -32768 : r;
}`,
    c: `static inline int32_t mcu_sls16(int32_t x, int32_t n) {
  const int64_t r = (int64_t)x * ((int64_t)1 << (n > 31 ? 31 : n));
  return r > 32767 ? 32767 : r < -32768 ? -32768 : (int32_t)r;
}`,
    costOps: 3,
  },
  {
    name: 'rdbpot16',
    arity: 2,
    deps: [],
    // gemmlowp RoundingDivideByPOT on int16: the mask (1 << e) - 1 is cast to int16, so from e = 16
    // on it is -1 (x >= 0 gives 1, x < 0 gives -1); the sum is stored back into an int16.
    js: `function p_rdbpot16(x, e) {
  const mask = e >= 16 ? -1 : (1 << e) - 1;
  const thr = (mask >> 1) + (x < 0 ? 1 : 0);
  return (((x >> (e > 31 ? 31 : e)) + ((x & mask) > thr ? 1 : 0)) << 16) >> 16;
}`,
    c: `static inline int32_t mcu_rdbpot16(int32_t x, int32_t e) {
  const int32_t mask = e >= 16 ? -1 : (1 << e) - 1;
  const int32_t thr = (mask >> 1) + (x < 0 ? 1 : 0);
  return (int32_t)(int16_t)((x >> (e > 31 ? 31 : e)) + ((x & mask) > thr ? 1 : 0));
}`,
    costOps: 6,
  },
  {
    name: 'omxopx',
    arity: 1,
    deps: ['srdhm', 'srmbpot'],
    // one_minus_x_over_one_plus_x_for_x_in_0_1: the Newton-Raphson of one_over_one_plus_x, then
    // Rescale<0>(x - F2::One()).
    js: `function p_omxopx(a) {
  const s = a + 2147483647;
  const hd = Math.trunc((s + (s >= 0 ? 1 : -1)) / 2);
  let x = (1515870810 + p_srdhm(hd, -1010580540)) | 0;
  for (let i = 0; i < 3; i++) {
    const omh = (536870912 - p_srdhm(hd, x)) | 0;
    x = (x + p_srmbpot(p_srdhm(x, omh), 2)) | 0;
  }
  return p_srmbpot((x - 536870912) | 0, 2);
}`,
    c: `static inline int32_t mcu_omxopx(int32_t a) {
  const int64_t s = (int64_t)a + INT32_MAX;
  const int32_t hd = (int32_t)((s + (s >= 0 ? 1 : -1)) / 2);
  int32_t x = (int32_t)(1515870810u + (uint32_t)mcu_srdhm(hd, -1010580540));
  for (int i = 0; i < 3; ++i) {
    const int32_t omh = (int32_t)((1u << 29) - (uint32_t)mcu_srdhm(hd, x));
    x = (int32_t)((uint32_t)x + (uint32_t)mcu_srmbpot(mcu_srdhm(x, omh), 2));
  }
  return mcu_srmbpot((int32_t)((uint32_t)x - (1u << 29)), 2);
}`,
    costOps: 90,
  },
  {
    name: 'tanhQ',
    arity: 2,
    deps: ['expNeg', 'omxopx'],
    // gemmlowp::tanh(FixedPoint<int32, k>) -> Q0.31: t = (1 - e) / (1 + e), e = exp(-2|a|) (the
    // doubling is ExactMulByPot<1>: same raw, k + 1 integer bits), mirrored for a < 0, 0 at 0.
    js: `function p_tanhQ(a, k) {
  const t = p_omxopx(p_expNeg(a < 0 ? a : -a | 0, k + 1));
  return a === 0 ? 0 : a < 0 ? -t | 0 : t;
}`,
    c: `static inline int32_t mcu_tanhQ(int32_t a, int32_t k) {
  const int32_t t = mcu_omxopx(mcu_expNeg(a < 0 ? a : (int32_t)(0u - (uint32_t)a), k + 1));
  return a == 0 ? 0 : a < 0 ? (int32_t)(0u - (uint32_t)t) : t;
}`,
    costOps: 245,
  },
  {
    name: 'satAdd',
    arity: 2,
    deps: [],
    js: 'function p_satAdd(a, b) { const s = a + b; return s > 2147483647 ? 2147483647 : s < -2147483648 ? -2147483648 : s; }',
    c: `static inline int32_t mcu_satAdd(int32_t a, int32_t b) {
  const int64_t s = (int64_t)a + b;
  return s > INT32_MAX ? INT32_MAX : s < INT32_MIN ? INT32_MIN : (int32_t)s;
}`,
    costOps: 3,
  },
  {
    name: 'satSub',
    arity: 2,
    deps: [],
    js: 'function p_satSub(a, b) { const s = a - b; return s > 2147483647 ? 2147483647 : s < -2147483648 ? -2147483648 : s; }',
    c: `static inline int32_t mcu_satSub(int32_t a, int32_t b) {
  const int64_t s = (int64_t)a - b;
  return s > INT32_MAX ? INT32_MAX : s < INT32_MIN ? INT32_MIN : (int32_t)s;
}`,
    costOps: 3,
  },
  {
    name: 'logGe1',
    arity: 3,
    deps: ['clz', 'srdhm', 'srmbpot', 'recip01', 'satAdd', 'satSub'],
    // log_x_for_x_greater_than_or_equal_to_1_impl<outBits, inBits>: log(x) of a Q(inBits) raw x,
    // in Q(outBits), accumulated with outBits + 1 integer bits (TFLM common.h).
    js: `function p_logGe1(x, inBits, outBits) {
  const acc = outBits + 1;
  const quarterAcc = p_srmbpot(536870912, -acc);
  const ha = Math.clz32(x);
  const ra = p_srmbpot(p_srdhm(p_srmbpot(x, ha - 1), 1518500250), 1);
  const za = p_satAdd(p_srmbpot(inBits - ha, 31 - acc), quarterAcc);
  const hb = Math.clz32(p_srdhm(x, 1518500250)) - 1;
  const rb = p_srmbpot(x, hb);
  const zb = p_satSub(p_srmbpot(inBits - hb, 31 - acc), quarterAcc);
  const r = ra < rb ? ra : rb;
  const z = za > zb ? za : zb;
  const s = r + 1805811301;
  const p = Math.trunc((s + (s >= 0 ? 1 : -1)) / 2);
  let q = (r - 1805811301) | 0;
  q = (q + q) | 0;
  const sq = p_srdhm(q, q);
  const num = (p_srdhm(q, r) + p_srdhm(p_srdhm(q, sq), 117049297)) | 0;
  const den = (p_srdhm(p, (1057819769 + q + p_srdhm(127690142, sq)) | 0) + p_srdhm(638450708, q)) | 0;
  const sum = (p_srdhm(z, 1488522236) + p_srdhm(p_srmbpot(num, -acc), p_recip01(den))) | 0;
  return p_srmbpot(sum, acc - outBits);
}`,
    c: `static inline int32_t mcu_logGe1(int32_t x, int32_t inBits, int32_t outBits) {
  const int32_t acc = outBits + 1;
  const int32_t quarterAcc = mcu_srmbpot(536870912, -acc);
  const int32_t ha = mcu_clz(x);
  const int32_t ra = mcu_srmbpot(mcu_srdhm(mcu_srmbpot(x, ha - 1), 1518500250), 1);
  const int32_t za = mcu_satAdd(mcu_srmbpot(inBits - ha, 31 - acc), quarterAcc);
  const int32_t hb = mcu_clz(mcu_srdhm(x, 1518500250)) - 1;
  const int32_t rb = mcu_srmbpot(x, hb);
  const int32_t zb = mcu_satSub(mcu_srmbpot(inBits - hb, 31 - acc), quarterAcc);
  const int32_t r = ra < rb ? ra : rb;
  const int32_t z = za > zb ? za : zb;
  const int64_t s = (int64_t)r + 1805811301;
  const int32_t p = (int32_t)((s + (s >= 0 ? 1 : -1)) / 2);
  int32_t q = (int32_t)((uint32_t)r - 1805811301u);
  q = (int32_t)((uint32_t)q + (uint32_t)q);
  const int32_t sq = mcu_srdhm(q, q);
  const int32_t num = (int32_t)((uint32_t)mcu_srdhm(q, r) + (uint32_t)mcu_srdhm(mcu_srdhm(q, sq), 117049297));
  const int32_t inner = (int32_t)(1057819769u + (uint32_t)q + (uint32_t)mcu_srdhm(127690142, sq));
  const int32_t den = (int32_t)((uint32_t)mcu_srdhm(p, inner) + (uint32_t)mcu_srdhm(638450708, q));
  const int32_t sum = (int32_t)((uint32_t)mcu_srdhm(z, 1488522236) + (uint32_t)mcu_srdhm(mcu_srmbpot(num, -acc), mcu_recip01(den)));
  return mcu_srmbpot(sum, acc - outBits);
}`,
    costOps: 200,
  },
  {
    name: 'invSqrtShift',
    arity: 1,
    deps: ['clz'],
    // GetInvSqrtQuantizedMultiplierExp(x, kReverseShift = -1)'s shift: normalise x into
    // [2^27, 2^29) by bit pairs; a negative right shift is folded into the multiplier (0 here).
    js: `function p_invSqrtShift(x) {
  if (x <= 1) return 0;
  let shift = 11;
  while (x >= 536870912) { x = (x / 4) | 0; shift++; }
  shift -= ((Math.clz32(x) - 1) >>> 1) - 1;
  return shift < 0 ? 0 : -shift;
}`,
    c: `static inline int32_t mcu_invSqrtShift(int32_t x) {
  int32_t shift = 11;
  if (x <= 1) return 0;
  while (x >= (1 << 29)) { x /= 4; ++shift; }
  shift -= (int32_t)(((uint32_t)mcu_clz(x) - 1u) / 2u - 1u);
  return shift < 0 ? 0 : -shift;
}`,
    costOps: 10,
  },
  {
    name: 'invSqrtMult',
    arity: 1,
    deps: ['clz', 'srdhm', 'srmbpot', 'rdbpot'],
    // GetInvSqrtQuantizedMultiplierExp's multiplier: five Newton-Raphson steps for 1/sqrt in Q3.28
    // from x = 1, times sqrt(2)/2; shifted left when the exponent came out negative.
    js: `function p_invSqrtMult(x) {
  if (x <= 1) return 2147483647;
  let shift = 11;
  while (x >= 536870912) { x = (x / 4) | 0; shift++; }
  const pairs = ((Math.clz32(x) - 1) >>> 1) - 1;
  shift -= pairs;
  x = x << (2 * pairs);
  const half = p_rdbpot(x >> 1, 1);
  let r = 268435456;
  for (let i = 0; i < 5; i++) {
    const r3 = p_srmbpot(p_srdhm(p_srdhm(r, r), r), 6);
    r = p_srmbpot((p_srdhm(402653184, r) - p_srdhm(half, r3)) | 0, 3);
  }
  r = p_srdhm(r, 1518500250);
  return shift < 0 ? r << -shift : r;
}`,
    c: `static inline int32_t mcu_invSqrtMult(int32_t x) {
  int32_t shift = 11;
  if (x <= 1) return INT32_MAX;
  while (x >= (1 << 29)) { x /= 4; ++shift; }
  const int32_t pairs = (int32_t)(((uint32_t)mcu_clz(x) - 1u) / 2u - 1u);
  shift -= pairs;
  x = (int32_t)((uint32_t)x << (2 * pairs));
  const int32_t half = mcu_rdbpot(x >> 1, 1);
  int32_t r = 1 << 28;
  for (int i = 0; i < 5; ++i) {
    const int32_t r3 = mcu_srmbpot(mcu_srdhm(mcu_srdhm(r, r), r), 6);
    r = mcu_srmbpot((int32_t)((uint32_t)mcu_srdhm(402653184, r) - (uint32_t)mcu_srdhm(half, r3)), 3);
  }
  r = mcu_srdhm(r, 1518500250);
  return shift < 0 ? (int32_t)((uint32_t)r << -shift) : r;
}`,
    costOps: 120,
  },
];
