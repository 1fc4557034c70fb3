// HardSwish, int8: TFLM hard_swish_common.cc HardSwishPrepare (float32 hires input scale in/128,
// reluish scale 3/32768, int32 multipliers downscaled to int16) and reference_ops::HardSwish
// (hard_swish.h): all int16 fixed point, saturating left shifts around the reluish multiply, and
// the non-rounding SaturatingDoublingHighMul for the final product.
import { For, Store, Val } from '../nest.ts';
import { quantizeMultiplier } from '../quant.ts';
import type { KernelSpec, OpContext } from '../spec.ts';
import { constraint, count, isInt8Quantized, scaleOf, unaryPrepared, zeroPointOf } from './common.ts';
import { HARD_SWISH_PARAMS, stock } from '../tflm-memory.ts';

/** DownScaleInt32ToInt16Multiplier (kernels/internal/common.h). */
function downScaleToInt16(m: number): number {
  return m >= 2147483647 - 32768 ? 32767 : (m + 32768) >> 16;
}

/** The two multipliers as HardSwishPrepare computes them: float32 divisions widened to double. */
function multipliers(c: OpContext<'hardSwish'>): { out: { multiplier: number; shift: number }; relu: { multiplier: number; shift: number } } {
  const hires = Math.fround(scaleOf(c.input(0)) / 128);
  return {
    out: quantizeMultiplier(Math.fround(hires / scaleOf(c.output(0)))),
    relu: quantizeMultiplier(Math.fround(hires / Math.fround(3 / 32768))),
  };
}

export const hardSwishSpec: KernelSpec<'hardSwish'> = {
  kind: 'hardSwish',
  tflmPersistent: stock(null, HARD_SWISH_PARAMS),
  constraints: [
    constraint('hardSwish.types', 'input and output must be int8 quantized with the same element count', (c) =>
      isInt8Quantized(c.input(0)) && isInt8Quantized(c.output(0)) && count(c.input(0)) === count(c.output(0))),
    constraint('hardSwish.scales', 'scales must be positive and input scale / 128 / output scale at most 1 (output_multiplier_exponent <= 0)', (c) => {
      if (!(scaleOf(c.input(0)) > 0 && scaleOf(c.output(0)) > 0 && Number.isFinite(scaleOf(c.input(0))))) return false;
      const m = multipliers(c);
      return m.out.shift <= 0 && m.relu.shift <= 31;
    }),
  ],
  prepare(c) {
    const m = multipliers(c);
    const re = m.relu.shift;
    return unaryPrepared({
      n: count(c.input(0)), inZp: zeroPointOf(c.input(0)), outZp: zeroPointOf(c.output(0)),
      outMult: downScaleToInt16(m.out.multiplier), outShift: -m.out.shift,
      // exponent > 0: shift left by e - 1, multiply, shift left by 1; < 0: divide after the multiply.
      reluMult: downScaleToInt16(m.relu.multiplier), reluPre: re > 0 ? re - 1 : 0, reluPost: re > 0 ? 1 : 0, reluDiv: re < 0 ? -re : 0,
    });
  },
  body: [
    For('i', '0', 'n', [
      Val('x', 'shl(input[i] - inZp, 7)'),
      Val('pre', 'srdhm16(x, outMult)'),
      Val('relu', 'rdbpot16(sls16(srdhm16(sls16(x, reluPre), reluMult), reluPost), reluDiv)'),
      Val('out', 'rdbpot16(sdhm16((relu + 32768) / 2, pre), outShift)'),
      Store('output', 'i', 'clamp(wrap16(out + outZp), -128, 127)'),
    ]),
  ],
};
