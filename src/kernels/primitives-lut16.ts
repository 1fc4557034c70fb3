// int16 sigmoid and tanh as nest primitives, bit-exact with TFLM's
// reference_integer_ops::Logistic(int32 input_multiplier, int32 input_left_shift, ..., int16*) and
// reference_integer_ops::Tanh(..., int16*): scale the input by input_multiplier with a rounding
// right shift, then interpolate linearly in the 256-entry sigmoid_table_uint16 (sigmoid(i/24) in
// 0.16), 9 fraction bits for sigmoid and 8 for tanh (tanh(x) = 2 sigmoid(2x) - 1). The callers
// pass the multiplier after the power-of-two fix-up (input_multiplier 0 -> 3 << shift, shift 0).
import type { Primitive } from './primitive.ts';

/** sigmoid_table_uint16 (tensorflow/lite/kernels/internal/common.h), as TFLM ships it. */
const SIGMOID_TABLE_UINT16: readonly number[] = [
  32768, 33451, 34133, 34813, 35493, 36169, 36843, 37513, 38180, 38841, 39498, 40149, 40794, 41432, 42064, 42688,
  43304, 43912, 44511, 45102, 45683, 46255, 46817, 47369, 47911, 48443, 48964, 49475, 49975, 50464, 50942, 51409,
  51865, 52311, 52745, 53169, 53581, 53983, 54374, 54755, 55125, 55485, 55834, 56174, 56503, 56823, 57133, 57433,
  57724, 58007, 58280, 58544, 58800, 59048, 59288, 59519, 59743, 59959, 60168, 60370, 60565, 60753, 60935, 61110,
  61279, 61441, 61599, 61750, 61896, 62036, 62172, 62302, 62428, 62549, 62666, 62778, 62886, 62990, 63090, 63186,
  63279, 63368, 63454, 63536, 63615, 63691, 63765, 63835, 63903, 63968, 64030, 64090, 64148, 64204, 64257, 64308,
  64357, 64405, 64450, 64494, 64536, 64576, 64614, 64652, 64687, 64721, 64754, 64786, 64816, 64845, 64873, 64900,
  64926, 64950, 64974, 64997, 65019, 65039, 65060, 65079, 65097, 65115, 65132, 65149, 65164, 65179, 65194, 65208,
  65221, 65234, 65246, 65258, 65269, 65280, 65291, 65301, 65310, 65319, 65328, 65337, 65345, 65352, 65360, 65367,
  65374, 65381, 65387, 65393, 65399, 65404, 65410, 65415, 65420, 65425, 65429, 65433, 65438, 65442, 65445, 65449,
  65453, 65456, 65459, 65462, 65465, 65468, 65471, 65474, 65476, 65479, 65481, 65483, 65485, 65488, 65489, 65491,
  65493, 65495, 65497, 65498, 65500, 65501, 65503, 65504, 65505, 65507, 65508, 65509, 65510, 65511, 65512, 65513,
  65514, 65515, 65516, 65517, 65517, 65518, 65519, 65520, 65520, 65521, 65522, 65522, 65523, 65523, 65524, 65524,
  65525, 65525, 65526, 65526, 65526, 65527, 65527, 65528, 65528, 65528, 65529, 65529, 65529, 65529, 65530, 65530,
  65530, 65530, 65531, 65531, 65531, 65531, 65531, 65532, 65532, 65532, 65532, 65532, 65532, 65533, 65533, 65533,
  65533, 65533, 65533, 65533, 65533, 65534, 65534, 65534, 65534, 65534, 65534, 65534, 65534, 65534, 65534, 65535,
];
const TABLE = SIGMOID_TABLE_UINT16.join(', ');

export const LUT16_PRIMITIVES: readonly Primitive[] = [
  {
    name: 'lut16Table',
    arity: 1,
    deps: [],
    js: `const p_lut16T = new Uint16Array([${TABLE}]);\nfunction p_lut16Table(i) { return p_lut16T[i]; }`,
    c: `static const uint16_t mcu_lut16T[256] = {${TABLE}};\nstatic inline int32_t mcu_lut16Table(int32_t i) { return (int32_t)mcu_lut16T[i]; }`,
    costOps: 1,
  },
  {
    name: 'sigmoid16',
    arity: 3,
    deps: ['lut16Table'],
    // Every intermediate is below 2^26, so JS doubles and int32 arithmetic are exact; the final
    // uint32 >> 10 is a non-negative value below 2^16, stored through static_cast<int16_t>.
    js: `function p_sigmoid16(x, mult, shift) {
  const round = shift > 0 ? 1 << (shift - 1) : 0;
  const v = (Math.imul(x, mult) + round) >> shift;
  const a = v < 0 ? -v : v;
  const uh = a >>> 9;
  let r;
  if (uh >= 255) r = 0x7fff << 10;
  else { const ua = p_lut16Table(uh), ub = p_lut16Table(uh + 1); r = ua * 512 + (a & 0x1ff) * (ub - ua); }
  r = v >= 0 ? r + 512 : 33554432 - r + 511;
  return (r >>> 10) << 16 >> 16;
}`,
    c: `static inline int32_t mcu_sigmoid16(int32_t x, int32_t mult, int32_t shift) {
  const int32_t round = shift > 0 ? 1 << (shift - 1) : 0;
  const int32_t v = (x * mult + round) >> shift;
  const uint32_t a = (uint32_t)(v < 0 ? -v : v);
  const uint32_t uh = a >> 9;
  uint32_t r;
  if (uh >= 255) r = 0x7FFFu << 10;
  else { const uint32_t ua = (uint32_t)mcu_lut16Table((int32_t)uh), ub = (uint32_t)mcu_lut16Table((int32_t)uh + 1); r = (ua << 9) + (a & 0x1ffu) * (ub - ua); }
  r = v >= 0 ? r + (1u << 9) : (1u << 25) - r + (1u << 9) - 1u;
  return (int32_t)(int16_t)(r >> 10);
}`,
    costOps: 12,
  },
  {
    name: 'tanh16',
    arity: 3,
    deps: ['lut16Table'],
    js: `function p_tanh16(x, mult, shift) {
  const round = shift > 0 ? 1 << (shift - 1) : 0;
  const v = (Math.imul(x, mult) + round) >> shift;
  const a = v < 0 ? -v : v;
  const uh = a >>> 8;
  let r;
  if (uh >= 255) r = 0xffff << 8;
  else { const ua = p_lut16Table(uh), ub = p_lut16Table(uh + 1); r = ua * 256 + (a & 0xff) * (ub - ua); }
  r = v >= 0 ? r - 8388608 + 128 : -r + 8388608 + 128 - 1;
  return (r >> 8) << 16 >> 16;
}`,
    c: `static inline int32_t mcu_tanh16(int32_t x, int32_t mult, int32_t shift) {
  const int32_t round = shift > 0 ? 1 << (shift - 1) : 0;
  const int32_t v = (x * mult + round) >> shift;
  const uint32_t a = (uint32_t)(v < 0 ? -v : v);
  const uint32_t uh = a >> 8;
  int32_t r;
  if (uh >= 255) r = 0xFFFF << 8;
  else { const uint32_t ua = (uint32_t)mcu_lut16Table((int32_t)uh), ub = (uint32_t)mcu_lut16Table((int32_t)uh + 1); r = (int32_t)((ua << 8) + (a & 0xffu) * (ub - ua)); }
  r = v >= 0 ? r - (1 << 23) + (1 << 7) : -r + (1 << 23) + (1 << 7) - 1;
  return (int32_t)(int16_t)(r >> 8);
}`,
    costOps: 12,
  },
];
