// Block counts of CMSIS-NN 4ab83cc3's DSP code (ARM_MATH_DSP: Cortex-M4, M7, M33) for convolution,
// from the loop bounds of the C sources: arm_convolve_s8 (im2col of two output pixels into int16
// columns, arm_s8_to_s16_unordered_with_offset, arm_nn_mat_mult_kernel_s8_s16 on each pair, an inline
// loop for the last odd pixel), arm_convolve_1x1_s8_fast / arm_convolve_1x1_s8 (arm_nn_mat_mult_nt_t_s8
// over all pixels / per output row). The plain-C build (no DSP) runs the same loops without the
// 4- and 16-wide unrolled parts; `dsp` picks which.
import type { Blocks } from './blocks.ts';
import { addBlock, floorDiv } from './blocks.ts';
import { memcpyBlocks, memsetBlocks } from './libc-counts.ts';

/** arm_nn_mat_mult_nt_t_s8 (DSP / plain C): rhs rows in pairs x lhs rows in pairs, k in 16 / 4 / 1 steps. */
/** Output channels (from `from` to `to`, exclusive) whose requantize shift is a left shift. */
export function leftShifts(lsh: readonly number[], from = 0, to = lsh.length): number {
  let n = 0;
  for (let c = from; c < to; c++) n += lsh[c] ?? 0;
  return n;
}

export function ntTBlocks(b: Blocks, lhsRows: number, rhsRows: number, k: number, lsh: readonly number[], dsp: boolean, times = 1): void {
  const f = 'arm_nn_mat_mult_nt_t_s8';
  const add = (key: string, n: number): void => addBlock(b, key, n * times);
  const r2 = floorDiv(rhsRows, 2);
  const l2 = floorDiv(lhsRows, 2);
  const lo = lhsRows % 2;
  add(`${f}.call`, 1);
  add(`${f}.call.anyPair`, r2 > 0 ? 1 : 0);
  add(`${f}.rhsPair`, r2);
  add(`${f}.rhsPair.anyQuad`, l2 > 0 ? r2 : 0);
  add(`${f}.rhsPairCol`, r2 * k);
  add(`${f}.quad`, r2 * l2);
  add(`${f}.pairOdd`, r2 * lo);
  // arm_nn_requantize compiles to a left-shift and a right-shift path, picked per channel.
  const pairLeft = leftShifts(lsh, 0, 2 * r2);
  add(`${f}.quad.lsh`, l2 * pairLeft);
  add(`${f}.pairOdd.lsh`, lo * pairLeft);
  if (dsp) {
    const k16 = floorDiv(k, 16);
    const k4 = floorDiv(k % 16, 4);
    const k1 = k % 4;
    // Each loop's set-up runs only when it runs at least once (gcc guards and rotates the loops).
    for (const [part, n] of [['quad', r2 * l2], ['pairOdd', r2 * lo]] as const) {
      add(`${f}.${part}.k16`, n * k16);
      add(`${f}.${part}.k4`, n * k4);
      add(`${f}.${part}.k1`, n * k1);
      add(`${f}.${part}.k16any`, n * (k16 > 0 ? 1 : 0));
      add(`${f}.${part}.k4any`, n * (k4 > 0 ? 1 : 0));
      add(`${f}.${part}.k1any`, n * (k1 > 0 ? 1 : 0));
    }
  } else {
    add(`${f}.quad.k1`, r2 * l2 * k);
    add(`${f}.pairOdd.k1`, r2 * lo * k);
  }
  const ro = rhsRows % 2;
  add(`${f}.rhsOdd`, ro);
  add(`${f}.rhsOdd.afterPairs`, r2 > 0 ? ro : 0);
  add(`${f}.rhsOdd.row`, ro * lhsRows);
  add(`${f}.rhsOdd.row.lsh`, ro * lhsRows * leftShifts(lsh, rhsRows - 1, rhsRows));
  add(`${f}.rhsOdd.k1`, ro * lhsRows * k);
}

/** arm_nn_mat_mult_kernel_s8_s16: two im2col columns x `outCh` filter rows (in pairs), `k` deep. */
export function matMultKernelS8S16Blocks(b: Blocks, outCh: number, k: number, lsh: readonly number[], dsp: boolean, times = 1): void {
  const f = 'arm_nn_mat_mult_kernel_s8_s16';
  const add = (key: string, n: number): void => addBlock(b, key, n * times);
  const pairs = floorDiv(outCh, 2);
  const odd = outCh % 2;
  const k4 = dsp ? floorDiv(k, 4) : 0;
  const k1 = dsp ? k % 4 : k;
  add(`${f}.call`, 1);
  add(`${f}.rowPair`, pairs);
  add(`${f}.rowPair.lsh`, leftShifts(lsh, 0, 2 * pairs));
  add(`${f}.rowPair.k4`, pairs * k4);
  add(`${f}.rowPair.k1`, pairs * k1);
  add(`${f}.rowPair.k4any`, k4 > 0 ? pairs : 0);
  add(`${f}.rowPair.k1any`, k1 > 0 ? pairs : 0);
  add(`${f}.call.anyPair`, pairs > 0 ? 1 : 0);
  add(`${f}.rowOdd`, odd);
  add(`${f}.rowOdd.lsh`, odd * leftShifts(lsh, outCh - 1, outCh));
  add(`${f}.rowOdd.k4`, odd * k4);
  add(`${f}.rowOdd.k1`, odd * k1);
  add(`${f}.rowOdd.k4any`, k4 > 0 ? odd : 0);
  add(`${f}.rowOdd.k1any`, k1 > 0 ? odd : 0);
}

/** arm_s8_to_s16_unordered_with_offset (DSP) / arm_q7_to_q15_with_offset: 4 values a pass, then 1. */
export function widenBlocks(b: Blocks, fn: string, n: number, dsp: boolean, times = 1): void {
  addBlock(b, `${fn}.call`, times);
  addBlock(b, `${fn}.x4`, (dsp ? floorDiv(n, 4) : 0) * times);
  addBlock(b, `${fn}.x1`, (dsp ? n % 4 : n) * times);
  addBlock(b, `${fn}.x1any`, ((dsp ? n % 4 : n) > 0 ? 1 : 0) * times);
  addBlock(b, `${fn}.x4any`, (dsp && n >= 4 ? 1 : 0) * times);
}

export interface ConvShape {
  readonly batches: number; readonly inH: number; readonly inW: number; readonly inD: number;
  readonly outH: number; readonly outW: number; readonly outD: number; readonly fH: number; readonly fW: number;
  readonly strideH: number; readonly strideW: number; readonly dilH: number; readonly dilW: number;
  readonly padH: number; readonly padW: number;
  /** Per output channel: 1 when its requantize shift is a left shift (multiplier >= 1), else 0. */
  readonly lsh: readonly number[];
}

/** Alignment (mod 4) of tensor data in TFLM's arena: every buffer starts 16-aligned. */
const mod4 = (x: number): number => ((x % 4) + 4) % 4;

/**
 * arm_convolve_s8 on DSP / plain C (groups = 1): per output pixel, arm_memcpy_s8 / arm_memset_s8 of
 * `inD` bytes per filter tap into the s8 half of the scratch, widening into the int16 column, and per
 * two pixels one arm_nn_mat_mult_kernel_s8_s16 call; an odd last pixel runs the inline dot products.
 */
export function convolveS8Blocks(b: Blocks, s: ConvShape, dsp: boolean, upscale?: { readonly y: number; readonly x: number }): void {
  const f = 'arm_convolve_s8';
  const k = s.fH * s.fW * s.inD;
  const widen = dsp ? 'arm_s8_to_s16_unordered_with_offset' : 'arm_q7_to_q15_with_offset';
  const up = upscale !== undefined && (upscale.y === 2 || upscale.x === 2);
  const g = up ? `${f}.up` : f;
  addBlock(b, `${f}.call`, 1);
  addBlock(b, `${f}.batch`, s.batches);
  addBlock(b, `${g}.row`, s.batches * s.outH);
  const pixels = s.outH * s.outW;
  if (!up) addBlock(b, `${f}.pixel`, s.batches * pixels);
  if (!up) addBlock(b, `${f}.tapRow`, s.batches * pixels * s.fH);
  // Taps: in bounds -> memcpy from the input (16-aligned) into the s8 column at byte 2 * aligned
  // (+ k for the second pixel of a pair), padding -> memset of -input_offset.
  for (let n = 0; n < s.batches; n++) {
    let p = 0;
    for (let oy = 0; oy < s.outH; oy++) {
      for (let ox = 0; ox < s.outW; ox++, p++) {
        const col = (p % 2) * k;
        if (upscale !== undefined && up) {
          // arm_transpose_conv via reverse conv: the column starts as -input_offset, then the input
          // pixels that exist in the zero-upsampled input are copied in (odd rows / columns skipped).
          addBlock(b, `${f}.up.pixel`, 1);
          memsetBlocks(b, k, mod4(col));
          for (let ky = 0; ky < s.fH; ky++) {
            const iy = oy - s.padH + ky;
            if (iy < 0 || iy >= s.inH || (iy % 2 === 1 && upscale.y === 2)) { addBlock(b, `${f}.up.rowSkip`, 1); continue; }
            addBlock(b, `${f}.up.row`, 1);
            for (let kx = 0; kx < s.fW; kx++) {
              const ix = ox - s.padW + kx;
              addBlock(b, `${f}.up.tap`, 1);
              if (ix >= 0 && ix < s.inW && (ix % 2 === 0 || upscale.x === 1)) {
                addBlock(b, `${f}.up.copy`, 1);
                const sx = ix >> (upscale.x - 1);
                const sy = iy >> (upscale.y - 1);
                memcpyBlocks(b, s.inD, mod4(col + (ky * s.fW + kx) * s.inD), mod4((sy * Math.floor(s.inW / upscale.x) + sx) * s.inD));
              }
            }
          }
          continue;
        }
        for (let ky = 0; ky < s.fH; ky++) {
          const iy = oy * s.strideH - s.padH + ky * s.dilH;
          for (let kx = 0; kx < s.fW; kx++) {
            const ix = ox * s.strideW - s.padW + kx * s.dilW;
            const dst = mod4(col + (ky * s.fW + kx) * s.inD);
            // The bounds test short-circuits: rows first, then columns.
            if (iy < 0 || iy >= s.inH || ix < 0 || ix >= s.inW) {
              addBlock(b, iy < 0 ? `${f}.tapPadTop` : iy >= s.inH ? `${f}.tapPadBottom` : ix < 0 ? `${f}.tapPadLeft` : `${f}.tapPadRight`, 1);
              memsetBlocks(b, s.inD, dst);
            } else {
              addBlock(b, `${f}.tap`, 1);
              memcpyBlocks(b, s.inD, dst, mod4((iy * s.inW + ix) * s.inD));
            }
          }
        }
      }
    }
    widenBlocks(b, widen, k, dsp, pixels);
    const pairs = floorDiv(pixels, 2);
    addBlock(b, `${f}.pair`, pairs);
    matMultKernelS8S16Blocks(b, s.outD, k, s.lsh, dsp, pairs);
    if (pixels % 2 === 1) {
      addBlock(b, `${f}.left`, 1);
      addBlock(b, `${f}.left.ch`, s.outD);
      addBlock(b, `${f}.left.ch.lsh`, leftShifts(s.lsh));
      addBlock(b, `${f}.left.ch.k4`, dsp ? s.outD * floorDiv(k, 4) : 0);
      addBlock(b, `${f}.left.ch.k1`, s.outD * (dsp ? k % 4 : k));
    }
  }
}

/** arm_convolve_1x1_s8_fast (stride 1: one nt_t call over all pixels) or arm_convolve_1x1_s8 (one per output row). */
export function convolve1x1Blocks(b: Blocks, s: ConvShape, fast: boolean, dsp: boolean): void {
  if (fast) {
    addBlock(b, 'arm_convolve_1x1_s8_fast.call', 1);
    ntTBlocks(b, s.batches * s.inH * s.inW, s.outD, s.inD, s.lsh, dsp);
    return;
  }
  addBlock(b, 'arm_convolve_1x1_s8.call', 1);
  addBlock(b, 'arm_convolve_1x1_s8.batch', s.batches);
  addBlock(b, 'arm_convolve_1x1_s8.row', s.batches * s.outH);
  ntTBlocks(b, s.outW, s.outD, s.inD, s.lsh, dsp, s.batches * s.outH);
}
