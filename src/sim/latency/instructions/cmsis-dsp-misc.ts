// Block counts of CMSIS-NN 4ab83cc3's elementwise, pooling and softmax code off MVE, from the C loop
// bounds: arm_elementwise_add_s8 / _mul_s8 (4 elements a pass on DSP, then 1; three / one per-tensor
// requantize shifts whose sign picks a code path), arm_max_pool_s8 (the first window tap copied by
// arm_memcpy_s8, the others compared 4 channels a pass, then clamp_output over the whole output),
// arm_avgpool_s8 (an int32 sum per channel, then a division per output), arm_nn_softmax_common_s8
// (per row: max, sum of exponentials, output; every element taken as within diff_min of the max).
import type { Blocks } from './blocks.ts';
import type { AxisWindow } from './blocks.ts';
import { addBlock, axisWindows, floorDiv, sumAxis } from './blocks.ts';
import { memcpyBlocks, wordAccessCalls } from './libc-counts.ts';

const mod4 = (x: number): number => ((x % 4) + 4) % 4;

/** arm_elementwise_add_s8 (`shifts`: input 1, input 2, output) or arm_elementwise_mul_s8 (`shifts`: output). */
export function elementwiseBlocks(b: Blocks, fn: 'arm_elementwise_add_s8' | 'arm_elementwise_mul_s8', n: number, shifts: readonly number[], dsp: boolean): void {
  // The shifts are per tensor: gcc keeps one loop and branches on each sign per element.
  const variant = shifts.map((s) => (s > 0 ? 'L' : 'R')).join('');
  const f = `${fn}.${variant}`;
  addBlock(b, `${fn}.call`, 1);
  addBlock(b, `${f}.x4`, dsp ? floorDiv(n, 4) : 0);
  addBlock(b, `${f}.x1`, dsp ? n % 4 : n);
  addBlock(b, `${f}.x4any`, dsp && n >= 4 ? 1 : 0);
  addBlock(b, `${f}.x1any`, (dsp ? n % 4 : n) > 0 ? 1 : 0);
}

export interface PoolShape {
  readonly batches: number; readonly inH: number; readonly inW: number; readonly ch: number;
  readonly outH: number; readonly outW: number; readonly fH: number; readonly fW: number;
  readonly strideH: number; readonly strideW: number; readonly padH: number; readonly padW: number;
}

/** A pooling window walk: output pixels, window rows and taps inside the input (batches included). */
export interface PoolWalk {
  readonly ys: readonly AxisWindow[];
  readonly xs: readonly AxisWindow[];
  readonly pixels: number;
  readonly krows: number;
  readonly taps: number;
}

export function poolWalk(s: PoolShape): PoolWalk {
  const ys = axisWindows(s.outH, s.inH, s.fH, s.strideH, 1, s.padH);
  const xs = axisWindows(s.outW, s.inW, s.fW, s.strideW, 1, s.padW);
  const rows = sumAxis(ys, (w) => w.end - w.start);
  return { ys, xs, pixels: s.batches * s.outH * s.outW, krows: s.batches * rows * s.outW, taps: s.batches * rows * sumAxis(xs, (w) => w.end - w.start) };
}

/** The loop blocks every pooling function `f` runs: call, batch, output row, output pixel, window row. */
export function poolLoopBlocks(b: Blocks, f: string, s: PoolShape, w: PoolWalk): void {
  addBlock(b, `${f}.call`, 1);
  addBlock(b, `${f}.batch`, s.batches);
  addBlock(b, `${f}.row`, s.batches * s.outH);
  addBlock(b, `${f}.pixel`, w.pixels);
  addBlock(b, `${f}.krow`, w.krows);
}

/** arm_max_pool_s8 (DSP / plain C; compare_and_replace_if_larger and clamp_output are inlined). */
export function maxPoolBlocks(b: Blocks, s: PoolShape): void {
  const f = 'arm_max_pool_s8';
  const w = poolWalk(s);
  const { ys, xs, taps } = w;
  const c4 = floorDiv(s.ch, 4);
  const c1 = s.ch % 4;
  poolLoopBlocks(b, f, s, w);
  const firsts = s.batches * s.outH * s.outW;
  addBlock(b, `${f}.tap`, taps);
  addBlock(b, `${f}.cmp`, taps - firsts);
  addBlock(b, `${f}.cmp.c4`, (taps - firsts) * c4);
  addBlock(b, `${f}.cmp.c1`, (taps - firsts) * c1);
  addBlock(b, `${f}.cmp.c4any`, c4 > 0 ? taps - firsts : 0);
  addBlock(b, `${f}.cmp.c1any`, c1 > 0 ? taps - firsts : 0);
  // compare_and_replace_if_larger: two arm_nn_read_s8x4 and one arm_nn_write_s8x4_ia per 4 channels.
  wordAccessCalls(b, 3 * (taps - firsts) * c4);
  // First tap of each output pixel: memcpy of `ch` bytes from the input into the output.
  for (let n = 0; n < s.batches; n++) {
    for (let oy = 0; oy < s.outH; oy++) {
      const y = (ys[oy]?.start ?? 0) + oy * s.strideH - s.padH;
      for (let ox = 0; ox < s.outW; ox++) {
        const x = (xs[ox]?.start ?? 0) + ox * s.strideW - s.padW;
        memcpyBlocks(b, s.ch, mod4((oy * s.outW + ox) * s.ch), mod4((y * s.inW + x) * s.ch));
      }
    }
  }
  const outs = s.outH * s.outW * s.ch;
  addBlock(b, `${f}.clamp.x4`, s.batches * floorDiv(outs, 4));
  wordAccessCalls(b, 2 * s.batches * floorDiv(outs, 4)); // clamp_output: a read and a write per 4
  addBlock(b, `${f}.clamp.x1`, s.batches * (outs % 4));
  addBlock(b, `${f}.clamp.x1any`, outs % 4 > 0 ? s.batches : 0);
}

/** arm_avgpool_s8 on DSP (int32 channel sums in the scratch, scale_q31_to_q7_and_clamp inlined). */
export function avgPoolDspBlocks(b: Blocks, s: PoolShape): void {
  const f = 'arm_avgpool_s8';
  const w = poolWalk(s);
  const { pixels, taps } = w;
  poolLoopBlocks(b, f, s, w);
  addBlock(b, `${f}.first`, pixels);
  addBlock(b, `${f}.first.ch`, pixels * s.ch);
  addBlock(b, `${f}.sum`, taps - pixels);
  addBlock(b, `${f}.sum.ch`, (taps - pixels) * s.ch);
  addBlock(b, `${f}.out.ch`, pixels * s.ch);
}

/** arm_avgpool_s8 plain C (per output channel, a sum over the window with its bounds test). */
export function avgPoolCBlocks(b: Blocks, s: PoolShape): void {
  const f = 'arm_avgpool_s8';
  const pixels = s.batches * s.outH * s.outW;
  const ys = axisWindows(s.outH, s.inH, s.fH, s.strideH, 1, s.padH);
  const xs = axisWindows(s.outW, s.inW, s.fW, s.strideW, 1, s.padW);
  const inside = s.batches * sumAxis(ys, (w) => w.end - w.start) * sumAxis(xs, (w) => w.end - w.start);
  addBlock(b, `${f}.call`, 1);
  addBlock(b, `${f}.row`, s.batches * s.outH);
  addBlock(b, `${f}.pixel`, pixels);
  addBlock(b, `${f}.out`, pixels * s.ch);
  addBlock(b, `${f}.out.krow`, pixels * s.ch * s.fH);
  addBlock(b, `${f}.out.tap`, pixels * s.ch * s.fH * s.fW);
  addBlock(b, `${f}.out.inside`, inside * s.ch);
}

/** arm_nn_softmax_common_s8 over `rows` rows of `n` int8 values (int8 output). */
export function softmaxBlocks(b: Blocks, rows: number, n: number): void {
  const f = 'arm_nn_softmax_common_s8';
  addBlock(b, 'arm_softmax_s8.call', 1);
  addBlock(b, `${f}.call`, 1);
  addBlock(b, `${f}.row`, rows);
  addBlock(b, `${f}.max`, rows * (n - 1));
  addBlock(b, `${f}.exp`, rows * n);
  addBlock(b, `${f}.out`, rows * n);
}

