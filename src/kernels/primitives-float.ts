// float32 primitives of TFLM's float LOG_SOFTMAX (reference_ops::LogSoftmax on float: max, sum of
// std::exp, std::log, differences), bit-exact with the host libm TFLM runs on: expf and logf are
// glibc's (ARM optimized-routines e_expf.c / e_logf.c, 2.28 and later): table + polynomial in
// double, rounded once to float; identical with or without FMA contraction (checked over 8.8e7
// inputs against glibc 2.36). A float32 nest value travels as its int32 bit pattern; f32Bits
// takes a float32 load, f32LogSoftmaxOut returns the float for a float32 store. NaN payloads are
// not modelled.
import type { Primitive } from './primitives.ts';

/** logf: (invc, logc) per subinterval, as %.17g of glibc's __logf_data.tab. */
const LOGF_TAB = [
  1.3989071621465281, -0.33569133332882284, 1.3403141896637998, -0.29290405637740741, 1.286432210124115, -0.25187265809373688,
  1.2367150214269895, -0.21245868807117255, 1.1906977166711752, -0.17453945183745634, 1.1479821020556429, -0.1380057072319758,
  1.1082251448272158, -0.10275976698545139, 1.0711297413057381, -0.068713924470205245, 1.0364372789772831, -0.035789138739822798,
  1, 0, 0.9492859795739057, 0.052045177429294959, 0.89510494286090037, 0.11081431298787942, 0.84768216203511026, 0.16524952236951429,
  0.80503148516920009, 0.21687389031699977, 0.7664671008843108, 0.26596350281213971, 0.73142860331632797, 0.31275566640735569,
] as const;
const LOGF_POLY = [-0.25089342214237154, 0.33345676574406602, -0.49999974858021029] as const;
const LN2 = 0.69314718055994529;
/** expf: 2^(i/32) as doubles (glibc __exp2f_data.tab[i] + (i << 47)). */
const EXP2_TAB = [
  1, 1.0218971486541166, 1.0442737824274138, 1.0671404006768237, 1.0905077326652577, 1.1143867425958924, 1.1387886347566916, 1.1637248587775775,
  1.189207115002721, 1.215247359980469, 1.241857812073484, 1.2690509571917332, 1.2968395546510096, 1.3252366431597413, 1.3542555469368927, 1.383909881963832,
  1.4142135623730951, 1.4451808069770467, 1.4768261459394993, 1.5091644275934228, 1.5422108254079407, 1.5759808451078865, 1.6104903319492543, 1.6457554781539649,
  1.681792830507429, 1.7186192981224779, 1.7562521603732995, 1.7947090750031072, 1.8340080864093424, 1.8741676341103, 1.9152065613971474, 1.9571441241754002,
] as const;
const EXPF_POLY = [1.6938359250920212e-6, 0.00023459809789509004, 0.021660849396613134] as const;
const INV_LN2_N = 46.166241308446828;
const SHIFT = 6755399441055744; // 0x1.8p52

const list = (xs: readonly number[]): string => xs.map((x) => String(x)).join(', ');

export const FLOAT_PRIMITIVES: readonly Primitive[] = [
  {
    name: 'f32Bits',
    arity: 1,
    deps: [],
    js: 'function p_f32Bits(x) { const f = new Float32Array(1); f[0] = x; return new Int32Array(f.buffer)[0]; }',
    c: 'static inline int32_t mcu_f32Bits(float x) { union { float f; int32_t i; } u; u.f = x; return u.i; }',
    costOps: 1,
  },
  {
    name: 'expf32',
    arity: 1,
    deps: ['pow2'],
    js: `function p_expf32(x) {
  if (x !== x) return x;
  if (x > 88.72283172607422) return Infinity;
  if (x < -103.97207641601562) return 0;
  const z = ${INV_LN2_N} * x;
  const k = (z + ${SHIFT}) - ${SHIFT};
  const r = z - k;
  const s = [${list(EXP2_TAB)}][k & 31] * 2 ** (k >> 5);
  const zz = ${EXPF_POLY[0]} * r + ${EXPF_POLY[1]};
  const r2 = r * r;
  const y = zz * r2 + (${EXPF_POLY[2]} * r + 1);
  return Math.fround(y * s);
}`,
    c: `static inline float mcu_expf32(float x) {
  static const double tab[32] = { ${list(EXP2_TAB)} };
  if (x != x) return x;
  if (x > 88.72283172607422f) return __builtin_inff();
  if (x < -103.97207641601562f) return 0.0f;
  const double z = ${INV_LN2_N} * (double)x;
  const double k = (z + ${SHIFT}.0) - ${SHIFT}.0;
  const double r = z - k;
  const int32_t ki = (int32_t)k;
  const double s = tab[ki & 31] * mcu_pow2(ki >> 5);
  const double zz = ${EXPF_POLY[0]} * r + ${EXPF_POLY[1]};
  const double r2 = r * r;
  const double y = zz * r2 + (${EXPF_POLY[2]} * r + 1.0);
  return (float)(y * s);
}`,
    costOps: 30,
  },
  {
    name: 'logf32',
    arity: 1,
    deps: ['f32Bits', 'f32FromBits'],
    js: `function p_logf32(x) {
  let ix = p_f32Bits(x) >>> 0;
  if (ix === 0x3f800000) return 0;
  if (((ix - 0x00800000) >>> 0) >= 0x7f000000) {
    if (((ix * 2) >>> 0) === 0) return -Infinity;
    if (ix === 0x7f800000) return x;
    if ((ix & 0x80000000) !== 0 || ((ix * 2) >>> 0) >= 0xff000000) return NaN;
    ix = ((p_f32Bits(Math.fround(x * 8388608)) >>> 0) - (23 << 23)) >>> 0;
  }
  const tab = [${list(LOGF_TAB)}];
  const tmp = (ix - 0x3f330000) >>> 0;
  const i = (tmp >>> 19) % 16;
  const k = (tmp | 0) >> 23;
  const z = p_f32FromBits((ix - ((tmp & 0xff800000) >>> 0)) | 0);
  const r = z * tab[2 * i] - 1;
  const y0 = tab[2 * i + 1] + k * ${LN2};
  const r2 = r * r;
  let y = ${LOGF_POLY[1]} * r + ${LOGF_POLY[2]};
  y = ${LOGF_POLY[0]} * r2 + y;
  y = y * r2 + (y0 + r);
  return Math.fround(y);
}`,
    c: `static inline float mcu_logf32(float x) {
  static const double tab[32] = { ${list(LOGF_TAB)} };
  uint32_t ix = (uint32_t)mcu_f32Bits(x);
  if (ix == 0x3f800000u) return 0.0f;
  if (ix - 0x00800000u >= 0x7f000000u) {
    if (ix * 2u == 0) return -__builtin_inff();
    if (ix == 0x7f800000u) return x;
    if ((ix & 0x80000000u) != 0 || ix * 2u >= 0xff000000u) return __builtin_nanf("");
    ix = (uint32_t)mcu_f32Bits(x * 8388608.0f) - (23u << 23);
  }
  const uint32_t tmp = ix - 0x3f330000u;
  const int32_t i = (int32_t)((tmp >> 19) % 16u);
  const int32_t k = (int32_t)tmp >> 23;
  const double z = (double)mcu_f32FromBits((int32_t)(ix - (tmp & 0xff800000u)));
  const double r = z * tab[2 * i] - 1.0;
  const double y0 = tab[2 * i + 1] + (double)k * ${LN2};
  const double r2 = r * r;
  double y = ${LOGF_POLY[1]} * r + ${LOGF_POLY[2]};
  y = ${LOGF_POLY[0]} * r2 + y;
  y = y * r2 + (y0 + r);
  return (float)y;
}`,
    costOps: 30,
  },
  {
    name: 'pow2',
    arity: 1,
    deps: [],
    // 2^e for -1022 <= e <= 1023, exact (a double built from its exponent field).
    js: 'function p_pow2(e) { return 2 ** e; }',
    c: 'static inline double mcu_pow2(int32_t e) { union { double d; uint64_t u; } v; v.u = (uint64_t)(e + 1023) << 52; return v.d; }',
    costOps: 1,
  },
  {
    name: 'f32Max',
    arity: 2,
    deps: ['f32FromBits'],
    // std::max(a, b) on floats: (a < b) ? b : a, on bit patterns.
    js: 'function p_f32Max(a, b) { return p_f32FromBits(a) < p_f32FromBits(b) ? b : a; }',
    c: 'static inline int32_t mcu_f32Max(int32_t a, int32_t b) { return mcu_f32FromBits(a) < mcu_f32FromBits(b) ? b : a; }',
    costOps: 2,
  },
  {
    name: 'f32ExpAcc',
    arity: 3,
    deps: ['f32Bits', 'f32FromBits', 'expf32'],
    // sum += std::exp(x - max), all float32.
    js: 'function p_f32ExpAcc(s, x, m) { return p_f32Bits(Math.fround(p_f32FromBits(s) + p_expf32(Math.fround(p_f32FromBits(x) - p_f32FromBits(m))))); }',
    c: 'static inline int32_t mcu_f32ExpAcc(int32_t s, int32_t x, int32_t m) { return mcu_f32Bits(mcu_f32FromBits(s) + mcu_expf32(mcu_f32FromBits(x) - mcu_f32FromBits(m))); }',
    costOps: 34,
  },
  {
    name: 'f32Log',
    arity: 1,
    deps: ['f32Bits', 'f32FromBits', 'logf32'],
    js: 'function p_f32Log(s) { return p_f32Bits(p_logf32(p_f32FromBits(s))); }',
    c: 'static inline int32_t mcu_f32Log(int32_t s) { return mcu_f32Bits(mcu_logf32(mcu_f32FromBits(s))); }',
    costOps: 31,
  },
  {
    name: 'f32LogSoftmaxOut',
    arity: 3,
    deps: ['f32FromBits'],
    // x - max - log_sum in float32; the result goes straight into a float32 store.
    js: 'function p_f32LogSoftmaxOut(x, m, l) { return Math.fround(Math.fround(p_f32FromBits(x) - p_f32FromBits(m)) - p_f32FromBits(l)); }',
    c: 'static inline float mcu_f32LogSoftmaxOut(int32_t x, int32_t m, int32_t l) { return (mcu_f32FromBits(x) - mcu_f32FromBits(m)) - mcu_f32FromBits(l); }',
    costOps: 2,
  },
];
