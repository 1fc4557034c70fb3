// Block counts of CMSIS-NN 4ab83cc3's MVE (Helium) code (ARM_MATH_MVEI: Cortex-M55, M85), from the C
// loop bounds: arm_nn_mat_mult_nt_t_s8 (4 lhs rows x 1 rhs row a pass, a tail-predicated 16-wide dot
// product loop), arm_convolve_s8's im2col of four pixels (arm_memcpy_s8 / arm_memset_s8 as inline
// WLSTP loops of 16 bytes), arm_depthwise_conv_s8_opt (124-channel blocks, 4 pixels per
// arm_nn_depthwise_conv_nt_t_s8 call, 4 channels a vector), arm_nn_vec_mat_mult_t_s8 (4 rows a pass),
// arm_elementwise_add_s8 / _mul_s8 (4 elements a vector), the pools (16 channels a vector).
import type { Blocks } from './blocks.ts';
import { addBlock, axisWindows, floorDiv, sumAxis } from './blocks.ts';
import type { ConvShape } from './cmsis-dsp-conv.ts';
import { leftShifts } from './cmsis-dsp-conv.ts';
import type { PoolShape } from './cmsis-dsp-misc.ts';
import { poolLoopBlocks, poolWalk } from './cmsis-dsp-misc.ts';

const v16 = (n: number): number => Math.ceil(n / 16);

/** arm_memcpy_s8 / arm_memset_s8 on MVE: an inline WLSTP loop of ceil(n / 16) passes. */
export function mveCopyBlocks(b: Blocks, key: string, n: number, times = 1): void {
  addBlock(b, `${key}`, times);
  addBlock(b, `${key}.v16`, v16(n) * times);
}

/** arm_nn_mat_mult_nt_t_s8 on MVE. */
export function ntTMveBlocks(b: Blocks, lhsRows: number, rhsRows: number, k: number, lsh: readonly number[], times = 1): void {
  const f = 'arm_nn_mat_mult_nt_t_s8';
  const add = (key: string, n: number): void => addBlock(b, key, n * times);
  const l4 = floorDiv(lhsRows, 4);
  const l1 = lhsRows % 4;
  add(`${f}.call`, 1);
  // The row loops are rotated: their set-up runs only when they run (indicators per call).
  add(`${f}.call.anyQuad`, l4 > 0 ? 1 : 0);
  add(`${f}.call.anyOne`, l1 > 0 ? 1 : 0);
  add(`${f}.call.anyQuadAnyOne`, l4 > 0 && l1 > 0 ? 1 : 0);
  add(`${f}.quad`, l4);
  add(`${f}.quad.row`, l4 * rhsRows);
  add(`${f}.quad.row.v16`, l4 * rhsRows * v16(k));
  add(`${f}.one`, l1);
  add(`${f}.one.row`, l1 * rhsRows);
  add(`${f}.one.row.v16`, l1 * rhsRows * v16(k));
  add(`${f}.one.v4`, l1 * floorDiv(rhsRows, 4));
  // The rhs rows past the last group of four requantize one at a time (arm_nn_requantize: shift's sign).
  const tail = rhsRows % 4;
  add(`${f}.one.tail`, l1 * tail);
  add(`${f}.one.anyTail`, tail > 0 ? l1 : 0);
  add(`${f}.one.anyV4`, rhsRows >= 4 ? l1 : 0);
  add(`${f}.one.tail.lsh`, l1 * leftShifts(lsh, rhsRows - tail, rhsRows));
}

/** The upsampled input's taps of the reverse-conv path (arm_transpose_conv): the whole column set to
 * -input_offset, then the pixels the zero-upsampled input holds copied in. */
function upscaleTaps(b: Blocks, s: ConvShape, up: { readonly y: number; readonly x: number }): void {
  const f = 'arm_convolve_s8.up';
  const k = s.fH * s.fW * s.inD;
  for (let oy = 0; oy < s.outH; oy++) {
    for (let ox = 0; ox < s.outW; ox++) {
      mveCopyBlocks(b, `${f}.pixel`, k);
      for (let ky = 0; ky < s.fH; ky++) {
        const iy = oy - s.padH + ky;
        if (iy < 0 || iy >= s.inH || (iy % 2 === 1 && up.y === 2)) { addBlock(b, `${f}.rowSkip`, 1); continue; }
        addBlock(b, `${f}.row`, 1);
        for (let kx = 0; kx < s.fW; kx++) {
          const ix = ox - s.padW + kx;
          addBlock(b, `${f}.tap`, 1);
          if (ix >= 0 && ix < s.inW && (ix % 2 === 0 || up.x === 1)) mveCopyBlocks(b, `${f}.copy`, s.inD);
        }
      }
    }
  }
}

/** arm_convolve_s8 on MVE (groups = 1): im2col of four pixels, then one nt_t call per four. */
export function convolveS8MveBlocks(b: Blocks, s: ConvShape, upscale?: { readonly y: number; readonly x: number }): void {
  const f = 'arm_convolve_s8';
  const k = s.fH * s.fW * s.inD;
  const pixels = s.outH * s.outW;
  const up = upscale !== undefined && (upscale.y === 2 || upscale.x === 2);
  addBlock(b, `${f}.call`, 1);
  addBlock(b, `${f}.batch`, s.batches);
  addBlock(b, `${f}.row`, s.batches * s.outH);
  addBlock(b, `${f}.pixel`, s.batches * pixels);
  if (up && upscale !== undefined) {
    for (let n = 0; n < s.batches; n++) upscaleTaps(b, s, upscale);
  } else {
    addBlock(b, `${f}.tapRow`, s.batches * pixels * s.fH);
    const ys = axisWindows(s.outH, s.inH, s.fH, s.strideH, s.dilH, s.padH);
    const xs = axisWindows(s.outW, s.inW, s.fW, s.strideW, s.dilW, s.padW);
    const inside = s.batches * sumAxis(ys, (w) => w.end - w.start) * sumAxis(xs, (w) => w.end - w.start);
    const taps = s.batches * pixels * s.fH * s.fW;
    mveCopyBlocks(b, `${f}.tap`, s.inD, inside);
    mveCopyBlocks(b, `${f}.tapPad`, s.inD, taps - inside);
  }
  const quads = floorDiv(pixels, 4);
  addBlock(b, `${f}.quad`, s.batches * quads);
  ntTMveBlocks(b, 4, s.outD, k, s.lsh, s.batches * quads);
  if (pixels % 4 > 0) {
    addBlock(b, `${f}.left`, s.batches);
    ntTMveBlocks(b, pixels % 4, s.outD, k, s.lsh, s.batches);
  }
}

/** arm_convolve_1_x_n_s8 on MVE: left-padded, unpadded and right-padded output columns, one nt_t call each
 * (the padded ones from a column built with arm_memset_s8 / arm_memcpy_s8); an uneven split falls back to
 * arm_convolve_s8. Returns false when it fell back. */
export function convolve1xNMveBlocks(b: Blocks, s: ConvShape): boolean {
  const f = 'arm_convolve_1_x_n_s8';
  const totalPad = (s.outW - 1) * s.strideW + s.fW - s.inW;
  const asym = totalPad % 2;
  const right = s.padW + asym !== 0 ? Math.max(1, Math.trunc((s.padW + asym + s.strideW - 1) / s.strideW)) : 0;
  const left = s.padW !== 0 ? Math.max(1, Math.trunc((s.padW + s.strideW - 1) / s.strideW)) : 0;
  const none = Math.max(s.outW - (right + left), 0);
  addBlock(b, `${f}.call`, 1);
  if (right + none + left !== s.outW) {
    convolveS8MveBlocks(b, s);
    return false;
  }
  const k = s.fW * s.inD;
  addBlock(b, `${f}.batch`, s.batches);
  mveCopyBlocks(b, `${f}.padLeft`, s.padW * s.inD, s.batches);
  mveCopyBlocks(b, `${f}.copyLeft`, k, s.batches);
  mveCopyBlocks(b, `${f}.copyRight`, k - s.inD, s.batches);
  mveCopyBlocks(b, `${f}.padRight`, asym ? right * s.inD : s.padW * s.inD, s.batches);
  ntTMveBlocks(b, left, s.outD, k, s.lsh, s.batches);
  ntTMveBlocks(b, none, s.outD, k, s.lsh, s.batches);
  ntTMveBlocks(b, s.outW - left - none, s.outD, k, s.lsh, s.batches);
  return true;
}

/** arm_convolve_1x1_s8_fast / arm_convolve_1x1_s8 on MVE. */
export function convolve1x1MveBlocks(b: Blocks, s: ConvShape, fast: boolean): void {
  if (fast) {
    addBlock(b, 'arm_convolve_1x1_s8_fast.call', 1);
    ntTMveBlocks(b, s.batches * s.inH * s.inW, s.outD, s.inD, s.lsh);
    return;
  }
  addBlock(b, 'arm_convolve_1x1_s8.call', 1);
  addBlock(b, 'arm_convolve_1x1_s8.row', s.batches * s.outH);
  ntTMveBlocks(b, s.outW, s.outD, s.inD, s.lsh, s.batches * s.outH);
}

/** arm_depthwise_conv_s8_opt on MVE: per 124-channel block, padded columns of four pixels. */
export function depthwiseOptMveBlocks(b: Blocks, s: ConvShape): void {
  const f = 'arm_depthwise_conv_s8_opt';
  const block = 124;
  const pixels = s.outH * s.outW;
  const taps = s.fH * s.fW;
  const ys = axisWindows(s.outH, s.inH, s.fH, s.strideH, 1, s.padH);
  const xs = axisWindows(s.outW, s.inW, s.fW, s.strideW, 1, s.padW);
  const inside = sumAxis(ys, (w) => w.end - w.start) * sumAxis(xs, (w) => w.end - w.start);
  addBlock(b, `${f}.call`, 1);
  for (let c0 = 0; c0 < s.inD; c0 += block) {
    const active = Math.min(block, s.inD - c0);
    const c4 = Math.ceil(active / 4);
    addBlock(b, `${f}.chBlock`, 1);
    addBlock(b, `${f}.row`, s.outH);
    addBlock(b, `${f}.pixel`, pixels);
    addBlock(b, `${f}.krow`, pixels * s.fH);
    mveCopyBlocks(b, `${f}.tap`, active, inside);
    mveCopyBlocks(b, `${f}.tapPad`, active, pixels * taps - inside);
    const quads = floorDiv(pixels, 4);
    addBlock(b, 'arm_nn_depthwise_conv_nt_t_s8.call', quads);
    addBlock(b, 'arm_nn_depthwise_conv_nt_t_s8.v4', quads * c4);
    addBlock(b, 'arm_nn_depthwise_conv_nt_t_s8.v4.tap', quads * c4 * taps);
    const left = pixels % 4;
    addBlock(b, `${f}.left`, left);
    addBlock(b, `${f}.left.any`, left > 0 ? 1 : 0);
    addBlock(b, `${f}.left.v4`, left * c4);
    addBlock(b, `${f}.left.v4.tap`, left * c4 * taps);
  }
}

/** arm_fully_connected_s8 on MVE: arm_nn_vec_mat_mult_t_s8 takes 4 filter rows a pass (kernel sums precomputed). */
export function fullyConnectedMveBlocks(b: Blocks, batches: number, k: number, n: number, lsh: readonly number[]): void {
  addBlock(b, 'arm_fully_connected_s8.call', 1);
  addBlock(b, 'arm_fully_connected_s8.batch', batches);
  vecMatMultTMveBlocks(b, batches, k, n, (lsh[0] ?? 0) > 0);
}

/** arm_nn_vec_mat_mult_t_s8 on MVE (zero filter offset), `calls` times: 4 rows a pass, then 1 (kernel sums as the start). */
export function vecMatMultTMveBlocks(b: Blocks, calls: number, k: number, n: number, leftShift: boolean): void {
  const f = 'arm_nn_vec_mat_mult_t_s8';
  const r4 = floorDiv(n, 4);
  const r1 = n % 4;
  addBlock(b, `${f}.call`, calls);
  addBlock(b, `${f}.call.anyRow4`, r4 > 0 ? calls : 0);
  addBlock(b, `${f}.call.anyRow1`, r1 > 0 ? calls : 0);
  addBlock(b, `${f}.row4`, calls * r4);
  addBlock(b, `${f}.row4.v16`, calls * r4 * v16(k));
  addBlock(b, `${f}.row1`, calls * r1);
  addBlock(b, `${f}.row1.v16`, calls * r1 * v16(k));
  addBlock(b, `${f}.row1.lsh`, calls * r1 * (leftShift ? 1 : 0));
}

/** arm_elementwise_add_s8 / _mul_s8 on MVE: 4 elements a predicated vector. */
export function elementwiseMveBlocks(b: Blocks, fn: string, n: number): void {
  addBlock(b, `${fn}.call`, 1);
  addBlock(b, `${fn}.v4`, Math.ceil(n / 4));
}

/** arm_max_pool_s8 on MVE: first tap copied, the others compared 16 channels a vector, then clamped. */
export function maxPoolMveBlocks(b: Blocks, s: PoolShape): void {
  const f = 'arm_max_pool_s8';
  const w = poolWalk(s);
  const { pixels, taps } = w;
  poolLoopBlocks(b, f, s, w);
  mveCopyBlocks(b, `${f}.first`, s.ch, pixels);
  mveCopyBlocks(b, `${f}.cmp`, s.ch, taps - pixels);
  addBlock(b, `${f}.clamp.v16`, s.batches * v16(s.outH * s.outW * s.ch));
}

/** arm_avgpool_s8 on MVE: per pixel and 16-channel vector, the window sum and a scalar division per lane. */
export function avgPoolMveBlocks(b: Blocks, s: PoolShape): void {
  const f = 'arm_avgpool_s8';
  const ys = axisWindows(s.outH, s.inH, s.fH, s.strideH, 1, s.padH);
  const xs = axisWindows(s.outW, s.inW, s.fW, s.strideW, 1, s.padW);
  const pixels = s.batches * s.outH * s.outW;
  const vectors = v16(s.ch);
  addBlock(b, `${f}.call`, 1);
  addBlock(b, `${f}.row`, s.batches * s.outH);
  addBlock(b, `${f}.pixel`, pixels);
  addBlock(b, `${f}.v16`, pixels * vectors);
  addBlock(b, `${f}.v16.krow`, s.batches * sumAxis(ys, (w) => w.end - w.start) * s.outW * vectors);
  addBlock(b, `${f}.v16.tap`, s.batches * sumAxis(ys, (w) => w.end - w.start) * sumAxis(xs, (w) => w.end - w.start) * vectors);
}
