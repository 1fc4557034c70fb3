// Block counts of CMSIS-NN 4ab83cc3's transpose convolution (arm_transpose_conv_wrapper_s8). Input
// depth > 16 and strides <= 2: the filter is reversed into scratch (one arm_memcpy_s8 per tap and
// output channel) and arm_convolve_s8 runs over the zero-upsampled input. Otherwise
// arm_transpose_conv_s8: per input row, arm_nn_transpose_conv_row_s8_s32 accumulates 4 / 2 / 1 input
// columns at a time into a rolling int32 buffer; finished rows are requantized into the output and
// reset to the bias (one memcpy per buffer cell) or zero.
import type { Blocks } from './blocks.ts';
import { addBlock, floorDiv } from './blocks.ts';
import type { ConvShape } from './cmsis-dsp-conv.ts';
import { convolveS8Blocks, leftShifts } from './cmsis-dsp-conv.ts';
import { convolveS8MveBlocks } from './cmsis-mve.ts';
import { memcpyBlocks, memsetBlocks } from './libc-counts.ts';

/** CMSIS-NN's REVERSE_TCOL_EFFICIENT_THRESHOLD: input depth above which the reverse conv runs. */
const REVERSE_THRESHOLD = 16;

/** Input channel loop of one accumulation column: DSP 4 + 1, MVE 16 (predicated), plain C 2 + 1 (4-wide group) or 1. */
export type ChannelLoop = 'dsp' | 'mve' | 'c';

function rowCallBlocks(b: Blocks, s: ConvShape, rows: number, loop: ChannelLoop): void {
  const f = 'arm_nn_transpose_conv_row_s8_s32';
  addBlock(b, `${f}.call`, 1);
  const groups: [string, number][] = [['g4', floorDiv(s.inW, 4)], ['g2', s.inW & 2 ? 1 : 0], ['g1', s.inW & 1]];
  const ic = s.inD;
  for (const [g, n] of groups) {
    if (n === 0) continue;
    const cols = n * s.outD * rows * s.fW;
    addBlock(b, `${f}.${g}`, n);
    addBlock(b, `${f}.${g}.ch`, n * s.outD);
    addBlock(b, `${f}.${g}.row`, n * s.outD * rows);
    addBlock(b, `${f}.${g}.col`, cols);
    if (loop === 'dsp') {
      addBlock(b, `${f}.${g}.k4`, cols * floorDiv(ic, 4));
      addBlock(b, `${f}.${g}.k1`, cols * (ic % 4));
      addBlock(b, `${f}.${g}.k4any`, ic >= 4 ? cols : 0);
      addBlock(b, `${f}.${g}.k1any`, ic % 4 > 0 ? cols : 0);
    } else if (loop === 'mve') {
      addBlock(b, `${f}.${g}.k16`, cols * Math.ceil(ic / 16));
    } else {
      const two = g === 'g4';
      addBlock(b, `${f}.${g}.k2`, cols * (two ? floorDiv(ic, 2) : ic));
      addBlock(b, `${f}.${g}.kOdd`, two && ic % 2 ? cols : 0);
    }
  }
}

/** Requantizing `rows` buffer rows into the output (DSP / plain C: one arm_nn_requantize per value; MVE: 4 a pass). */
function emitRows(b: Blocks, s: ConvShape, rows: number, loop: ChannelLoop): void {
  const f = 'arm_transpose_conv_s8';
  addBlock(b, `${f}.emit`, rows);
  addBlock(b, `${f}.emit.px`, rows * s.outW);
  if (loop === 'mve') addBlock(b, `${f}.emit.px.v4`, rows * s.outW * Math.ceil(s.outD / 4));
  else {
    addBlock(b, `${f}.emit.px.ch`, rows * s.outW * s.outD);
    addBlock(b, `${f}.emit.px.lsh`, rows * s.outW * leftShifts(s.lsh));
  }
}

/** Buffer cells reset to the bias (memcpy of 4 * outD bytes, word-aligned) or zeroed (memset). */
function resetCells(b: Blocks, s: ConvShape, cells: number, bias: boolean, mve: boolean): void {
  const f = 'arm_transpose_conv_s8';
  if (bias) {
    addBlock(b, `${f}.resetCell`, cells);
    if (!mve) for (let i = 0; i < cells; i++) memcpyBlocks(b, 4 * s.outD, 0, 0);
    else addBlock(b, `${f}.resetCell.v16`, cells * Math.ceil((4 * s.outD) / 16));
  } else {
    addBlock(b, `${f}.resetZero`, 1);
    if (!mve) memsetBlocks(b, 4 * s.outD * cells, 0);
    else addBlock(b, `${f}.resetZero.v16`, Math.ceil((4 * s.outD * cells) / 16));
  }
}

/** arm_transpose_conv_wrapper_s8 on `loop`; `s` is the transpose conv's own geometry (input -> output). */
export function transposeConvBlocks(b: Blocks, s: ConvShape, bias: boolean, loop: ChannelLoop): string {
  if (s.strideW <= 2 && s.strideH <= 2 && s.inD > REVERSE_THRESHOLD) {
    const f = 'arm_transpose_conv_wrapper_s8';
    addBlock(b, `${f}.reverse`, 1);
    addBlock(b, `${f}.reverse.ch`, s.outD);
    addBlock(b, `${f}.reverse.row`, s.outD * s.fH);
    addBlock(b, `${f}.reverse.tap`, s.outD * s.fH * s.fW);
    const size = s.fH * s.fW * s.inD;
    if (loop !== 'mve') {
      for (let c = 0; c < s.outD; c++) {
        for (let t = 0; t < s.fH * s.fW; t++) memcpyBlocks(b, s.inD, ((c + 1) * size - (t + 1) * s.inD) % 4, (c * size + t * s.inD) % 4);
      }
    } else addBlock(b, `${f}.reverse.tap.v16`, s.outD * s.fH * s.fW * Math.ceil(s.inD / 16));
    const up: ConvShape = {
      ...s, inH: s.inH * s.strideH, inW: s.inW * s.strideW, strideH: 1, strideW: 1,
      padH: s.fH - 1 - s.padH, padW: s.fW - 1 - s.padW,
    };
    if (loop !== 'mve') convolveS8Blocks(b, up, loop === 'dsp', { y: s.strideH, x: s.strideW });
    else convolveS8MveBlocks(b, up, { y: s.strideH, x: s.strideW });
    return 'arm_transpose_conv_wrapper_s8 -> arm_convolve_s8 (reverse conv)';
  }
  const f = 'arm_transpose_conv_s8';
  const bufXElements = (s.inW - 1) * s.strideW + Math.max(s.fW, s.strideW);
  const bufY = Math.max(s.fH, s.strideH);
  addBlock(b, `${f}.call`, 1);
  addBlock(b, `${f}.batch`, s.batches);
  for (let n = 0; n < s.batches; n++) {
    resetCells(b, s, bufXElements * bufY, bias, loop === 'mve');
    for (let j = 0; j < s.inH; j++) {
      const top = Math.max(0, s.padH - j * s.strideH);
      const bottom = Math.max(0, j * s.strideH + s.fH - (s.padH + s.outH) - 1);
      addBlock(b, `${f}.inRow`, 1);
      rowCallBlocks(b, s, s.fH - top - bottom, loop);
      if (top === 0) {
        emitRows(b, s, s.strideH, loop);
        for (let y = 0; y < s.strideH; y++) resetCells(b, s, bufXElements, bias, loop === 'mve');
      }
    }
    for (let y = 0; y < s.fH - s.strideH; y++) {
      addBlock(b, `${f}.tailRow`, 1);
      const row = s.inH * s.strideH + y;
      if (row >= s.padH && row < s.padH + s.outH) emitRows(b, s, 1, loop);
    }
  }
  return 'arm_transpose_conv_s8';
}
