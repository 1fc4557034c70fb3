// gemmlowp fixed-point helpers as nest primitives (JS text, C99 text, cost), bit-exact with
// gemmlowp/fixedpoint/fixedpoint.h as TFLM's softmax and logistic use them: Saturating-
// RoundingMultiplyByPOT, exp_on_interval_between_negative_one_quarter_and_0_excl,
// exp_on_negative_values, one_over_one_plus_x_for_x_in_0_1, logistic, TFLM's GetReciprocal and
// CountLeadingZeros, plus a data select and the TFLITE_CHECK(0 <= exponent <= 31) of softmax.
// FixedPoint<int32, k> values travel as their raw int32; k (integer bits) is an explicit argument.
import type { Primitive } from './primitive.ts';

/** gemmlowp exp barrel-shifter multipliers exp(-2^e) in Q0.31, e = -2 .. 4. */
const EXP_MULTIPLIERS = [1672461947, 1302514674, 790015084, 290630308, 39332535, 720401, 242] as const;

const expNegJsSteps = EXP_MULTIPLIERS.map(
  (m, i) => `  if (k > ${i - 2} && (rem & (1 << (fb + ${i - 2}))) !== 0) r = p_srdhm(r, ${m});`,
).join('\n');

export const GEMMLOWP_PRIMITIVES: readonly Primitive[] = [
  {
    name: 'select',
    arity: 3,
    deps: [],
    // Data-dependent choice (the nest's If may only test indices): c ? a : b, both sides evaluated.
    js: 'function p_select(c, a, b) { return c ? a : b; }',
    c: 'static inline int32_t mcu_select(int32_t c, int32_t a, int32_t b) { return c ? a : b; }',
    costOps: 1,
  },
  {
    name: 'clz',
    arity: 1,
    deps: [],
    // TFLM CountLeadingZeros(uint32): 32 for 0.
    js: 'function p_clz(x) { return Math.clz32(x); }',
    c: `static inline int32_t mcu_clz(int32_t x) {
  uint32_t u = (uint32_t)x;
  int32_t n = 0;
  if (u == 0) return 32;
  while ((u & 0x80000000u) == 0) { u <<= 1; ++n; }
  return n;
}`,
    costOps: 1,
  },
  {
    name: 'potCheck',
    arity: 1,
    deps: [],
    // TFLITE_CHECK(0 <= exponent && exponent <= 31) (reference softmax): TFLM aborts, so does the
    // C port; JS throws an error carrying the KernelError name and code instead of going on.
    js: `function p_potCheck(e) {
  if (e < 0 || e > 31) {
    const err = new Error('TFLITE_CHECK(0 <= exponent && exponent <= 31) failed: exponent ' + e + ' (TFLM aborts here)');
    err.name = 'KernelError';
    err.code = 'E_KERNEL_CONSTRAINT';
    throw err;
  }
  return e;
}`,
    c: `static inline int32_t mcu_potCheck(int32_t e) {
  if (e < 0 || e > 31) { extern void abort(void); abort(); }
  return e;
}`,
    costOps: 2,
  },
  {
    name: 'srmbpot',
    arity: 2,
    deps: ['rdbpot'],
    // SaturatingRoundingMultiplyByPOT<e>: e > 0 saturating left shift, e < 0 RoundingDivideByPOT.
    js: `function p_srmbpot(x, e) {
  if (e === 0) return x;
  if (e < 0) return p_rdbpot(x, -e);
  const thr = ((1 << (31 - e)) - 1) | 0;
  if (x > thr) return 2147483647;
  if (x < -thr) return -2147483648;
  return Math.imul(x, 1 << e);
}`,
    c: `static inline int32_t mcu_srmbpot(int32_t x, int32_t e) {
  if (e == 0) return x;
  if (e < 0) return mcu_rdbpot(x, -e);
  const int32_t thr = (int32_t)(((int64_t)1 << (31 - e)) - 1);
  if (x > thr) return INT32_MAX;
  if (x < -thr) return INT32_MIN;
  return (int32_t)((uint32_t)x << e);
}`,
    costOps: 4,
  },
  {
    name: 'expQ0',
    arity: 1,
    deps: ['srdhm', 'rdbpot'],
    // exp_on_interval_between_negative_one_quarter_and_0_excl: exp(-1/8) * (1 + x + x^2/2 + x^3/6
    // + x^4/24) with x = a + 1/8, all Q0.31.
    js: `function p_expQ0(a) {
  const x = (a + 268435456) | 0;
  const x2 = p_srdhm(x, x), x3 = p_srdhm(x2, x), x4 = p_srdhm(x2, x2);
  const x4q = p_rdbpot(x4, 2);
  const t = p_rdbpot((p_srdhm((x4q + x3) | 0, 715827883) + x2) | 0, 1);
  return (1895147668 + p_srdhm(1895147668, (x + t) | 0)) | 0;
}`,
    c: `static inline int32_t mcu_expQ0(int32_t a) {
  const int32_t x = (int32_t)((uint32_t)a + (1u << 28));
  const int32_t x2 = mcu_srdhm(x, x), x3 = mcu_srdhm(x2, x), x4 = mcu_srdhm(x2, x2);
  const int32_t x4q = mcu_rdbpot(x4, 2);
  const int32_t s = mcu_srdhm((int32_t)((uint32_t)x4q + (uint32_t)x3), 715827883);
  const int32_t t = mcu_rdbpot((int32_t)((uint32_t)s + (uint32_t)x2), 1);
  return (int32_t)(1895147668u + (uint32_t)mcu_srdhm(1895147668, (int32_t)((uint32_t)x + (uint32_t)t)));
}`,
    costOps: 60,
  },
  {
    name: 'expNeg',
    arity: 2,
    deps: ['expQ0', 'srmbpot', 'srdhm'],
    // exp_on_negative_values(FixedPoint<int32, k> a) -> Q0.31: exp of (a mod 1/4) - 1/4, then one
    // multiply by exp(-2^e) per set bit of the remainder; exp(0) = 1 exactly (INT32_MAX).
    js: `function p_expNeg(a, k) {
  const fb = 31 - k;
  const quarter = 1 << (fb - 2);
  const amq = ((a & (quarter - 1)) - quarter) | 0;
  let r = p_expQ0(p_srmbpot(amq, k));
  const rem = (amq - a) | 0;
${expNegJsSteps}
  if (k > 5 && a < -(1 << (36 - k))) r = 0;
  return a === 0 ? 2147483647 : r;
}`,
    c: `static inline int32_t mcu_expNeg(int32_t a, int32_t k) {
  static const int32_t mult[7] = { ${EXP_MULTIPLIERS.join(', ')} };
  const int32_t fb = 31 - k;
  const int32_t quarter = (int32_t)1 << (fb - 2);
  const int32_t amq = (a & (quarter - 1)) - quarter;
  int32_t r = mcu_expQ0(mcu_srmbpot(amq, k));
  const int32_t rem = (int32_t)((uint32_t)amq - (uint32_t)a);
  for (int32_t e = -2; e <= 4; ++e) {
    if (k > e && (rem & ((int32_t)1 << (fb + e))) != 0) r = mcu_srdhm(r, mult[e + 2]);
  }
  if (k > 5 && a < -((int32_t)1 << (36 - k))) r = 0;
  return a == 0 ? INT32_MAX : r;
}`,
    costOps: 150,
  },
  {
    name: 'recip01',
    arity: 1,
    deps: ['srdhm', 'srmbpot'],
    // one_over_one_plus_x_for_x_in_0_1: RoundingHalfSum(a, 1) then three Newton-Raphson steps in
    // Q2.29 from 48/17 - 32/17 * d; the result 1/(1+a) in Q0.31.
    js: `function p_recip01(a) {
  const s = a + 2147483647;
  const hd = Math.trunc((s + (s >= 0 ? 1 : -1)) / 2);
  let x = (1515870810 + p_srdhm(hd, -1010580540)) | 0;
  for (let i = 0; i < 3; i++) {
    const omh = (536870912 - p_srdhm(hd, x)) | 0;
    x = (x + p_srmbpot(p_srdhm(x, omh), 2)) | 0;
  }
  return p_srmbpot(x, 1);
}`,
    c: `static inline int32_t mcu_recip01(int32_t a) {
  const int64_t s = (int64_t)a + INT32_MAX;
  const int32_t hd = (int32_t)((s + (s >= 0 ? 1 : -1)) / 2);
  int32_t x = (int32_t)(1515870810u + (uint32_t)mcu_srdhm(hd, -1010580540));
  for (int i = 0; i < 3; ++i) {
    const int32_t omh = (int32_t)((1u << 29) - (uint32_t)mcu_srdhm(hd, x));
    x = (int32_t)((uint32_t)x + (uint32_t)mcu_srmbpot(mcu_srdhm(x, omh), 2));
  }
  return mcu_srmbpot(x, 1);
}`,
    costOps: 90,
  },
  {
    name: 'getRecip',
    arity: 1,
    deps: ['clz', 'recip01'],
    // TFLM GetReciprocal's returned scale: 1/x' in Q0.31 with x' = x normalised to [1, 2)
    // (num_bits_over_unit = integer_digits - clz(x) is computed by the caller).
    js: `function p_getRecip(x) {
  const h = Math.clz32(x);
  return p_recip01(((h >= 32 ? 0 : x << h) - 2147483648) | 0);
}`,
    c: `static inline int32_t mcu_getRecip(int32_t x) {
  const int32_t h = mcu_clz(x);
  const uint32_t shifted = h >= 32 ? 0u : (uint32_t)x << h;
  return mcu_recip01((int32_t)(shifted - (1u << 31)));
}`,
    costOps: 95,
  },
  {
    name: 'logisticQ',
    arity: 2,
    deps: ['expNeg', 'recip01'],
    // gemmlowp::logistic(FixedPoint<int32, k>) -> Q0.31: 1/(1+exp(-|a|)), mirrored for a < 0,
    // exactly one half at 0.
    js: `function p_logisticQ(a, k) {
  const absIn = a > 0 ? a : -a | 0;
  const rp = p_recip01(p_expNeg(-absIn | 0, k));
  return a === 0 ? 1073741824 : a > 0 ? rp : (2147483647 - rp) | 0;
}`,
    c: `static inline int32_t mcu_logisticQ(int32_t a, int32_t k) {
  const int32_t absIn = a > 0 ? a : (int32_t)(0u - (uint32_t)a);
  const int32_t rp = mcu_recip01(mcu_expNeg((int32_t)(0u - (uint32_t)absIn), k));
  return a == 0 ? (1 << 30) : a > 0 ? rp : (int32_t)((uint32_t)INT32_MAX - (uint32_t)rp);
}`,
    costOps: 245,
  },
];
