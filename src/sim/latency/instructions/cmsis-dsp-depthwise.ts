// Block counts of CMSIS-NN 4ab83cc3's depthwise convolution off MVE, from the C loop bounds:
// arm_depthwise_conv_3x3_s8 (4 channels a pass; the left / right filter column only where inside the
// input), arm_depthwise_conv_s8_opt on DSP (a q15 column of every tap per output pixel, padding
// memset, then 4 channels a pass over tap pairs), arm_depthwise_conv_s8's generic loop and its
// channel-multiplier-of-4 loop. Per-pixel window bounds come from axisWindows.
import type { Blocks } from './blocks.ts';
import { addBlock, axisWindows, floorDiv, sumAxis } from './blocks.ts';
import type { ConvShape } from './cmsis-dsp-conv.ts';
import { leftShifts, widenBlocks } from './cmsis-dsp-conv.ts';
import { memsetBlocks, wordAccessCalls } from './libc-counts.ts';

/** arm_depthwise_conv_3x3_s8 (DSP or plain C: the same loop structure). */
export function depthwise3x3Blocks(b: Blocks, s: ConvShape): void {
  const f = 'arm_depthwise_conv_3x3_s8';
  const c = s.inD;
  const c4 = floorDiv(c, 4);
  const c1 = c % 4;
  // Kernel rows run from max(0, -in_h) to min(3, input_y - in_h); columns: the middle one always,
  // the left where in_w >= 0, the right where input_x - in_w >= 3.
  const rows = sumAxis(axisWindows(s.outH, s.inH, 3, s.strideH, 1, s.padH), (w) => w.end - w.start);
  let left = 0;
  let right = 0;
  for (let ox = 0; ox < s.outW; ox++) {
    const inW = ox * s.strideW - s.padW;
    if (inW >= 0) left++;
    if (s.inW - inW >= 3) right++;
  }
  const pixels = s.outH * s.outW;
  addBlock(b, `${f}.call`, 1);
  addBlock(b, `${f}.row`, s.outH);
  addBlock(b, `${f}.pixel`, pixels);
  addBlock(b, `${f}.pixel.anyCh4`, c4 > 0 ? pixels : 0);
  addBlock(b, `${f}.pixel.anyCh1`, c1 > 0 ? pixels : 0);
  addBlock(b, `${f}.ch4`, pixels * c4);
  addBlock(b, `${f}.ch4.lsh`, pixels * leftShifts(s.lsh, 0, 4 * c4));
  addBlock(b, `${f}.ch1.lsh`, pixels * leftShifts(s.lsh, 4 * c4));
  addBlock(b, `${f}.ch4.krow`, rows * s.outW * c4);
  addBlock(b, `${f}.ch4.left`, rows * left * c4);
  addBlock(b, `${f}.ch4.right`, rows * right * c4);
  // Each filter column read loads 4 input and 4 filter bytes with arm_nn_read_s8x4.
  wordAccessCalls(b, 2 * c4 * (rows * s.outW + rows * left + rows * right));
  addBlock(b, `${f}.ch1`, pixels * c1);
  addBlock(b, `${f}.ch1.krow`, rows * s.outW * c1);
  addBlock(b, `${f}.ch1.left`, rows * left * c1);
  addBlock(b, `${f}.ch1.right`, rows * right * c1);
}

/** arm_depthwise_conv_s8_opt on DSP (depth multiplier 1, batch 1). */
export function depthwiseOptDspBlocks(b: Blocks, s: ConvShape): void {
  const f = 'arm_depthwise_conv_s8_opt';
  const c = s.inD;
  const taps = s.fH * s.fW;
  const ys = axisWindows(s.outH, s.inH, s.fH, s.strideH, 1, s.padH);
  const pixels = s.outH * s.outW;
  addBlock(b, `${f}.call`, 1);
  addBlock(b, `${f}.row`, s.outH);
  addBlock(b, `${f}.pixel`, pixels);
  for (let oy = 0; oy < s.outH; oy++) {
    const wy = ys[oy] ?? { start: 0, end: 0 };
    for (let ox = 0; ox < s.outW; ox++) {
      const baseX = ox * s.strideW - s.padW;
      // col_buffer is int16: byte offsets stay even; memset sizes are 2 * elements.
      let index = 0;
      if (wy.start !== 0) {
        addBlock(b, `${f}.padTop`, 1);
        memsetBlocks(b, 2 * s.fW * c * wy.start, 0);
        index += s.fW * c * wy.start;
      }
      for (let ky = wy.start; ky < wy.end; ky++) {
        addBlock(b, `${f}.krow`, 1);
        for (let kx = 0; kx < s.fW; kx++) {
          const ix = baseX + kx;
          if (ix < 0 || ix >= s.inW) {
            addBlock(b, `${f}.tapPad`, 1);
            memsetBlocks(b, 2 * c, (2 * index) % 4);
          } else {
            addBlock(b, `${f}.tap`, 1);
            widenBlocks(b, 'arm_q7_to_q15_with_offset', c, true);
          }
          index += c;
        }
      }
      if (s.fH - wy.end !== 0) {
        addBlock(b, `${f}.padBottom`, 1);
        memsetBlocks(b, 2 * s.fW * c * (s.fH - wy.end), (2 * index) % 4);
      }
    }
  }
  const c4 = floorDiv(c, 4);
  const c1 = c % 4;
  addBlock(b, `${f}.pixel.anyCh4`, c4 > 0 ? pixels : 0);
  addBlock(b, `${f}.pixel.anyCh1`, c1 > 0 ? pixels : 0);
  addBlock(b, `${f}.pixel.anyKrow`, sumAxis(ys, (w) => (w.end > w.start ? 1 : 0)) * s.outW);
  addBlock(b, `${f}.ch4`, pixels * c4);
  addBlock(b, `${f}.ch4.lsh`, pixels * leftShifts(s.lsh, 0, 4 * c4));
  addBlock(b, `${f}.ch1.lsh`, pixels * leftShifts(s.lsh, 4 * c4));
  addBlock(b, `${f}.ch4.tap2`, pixels * c4 * floorDiv(taps, 2));
  addBlock(b, `${f}.ch4.tapOdd`, pixels * c4 * (taps % 2));
  addBlock(b, `${f}.ch1`, pixels * c1);
  addBlock(b, `${f}.ch1.tap`, pixels * c1 * taps);
}

/** arm_depthwise_conv_s8: depthwise_conv_s8_mult_4 (multiplier % 4 == 0, batch 1, no dilation) or the generic loop. */
export function depthwiseGenericBlocks(b: Blocks, s: ConvShape, depthMult: number): void {
  const ys = axisWindows(s.outH, s.inH, s.fH, s.strideH, s.dilH, s.padH);
  const xs = axisWindows(s.outW, s.inW, s.fW, s.strideW, s.dilW, s.padW);
  const rows = sumAxis(ys, (w) => w.end - w.start);
  const cols = sumAxis(xs, (w) => w.end - w.start);
  const pixels = s.outH * s.outW;
  const inCh = s.inD;
  addBlock(b, 'arm_depthwise_conv_s8.call', 1);
  if (depthMult % 4 === 0 && s.batches === 1 && s.dilH === 1 && s.dilW === 1) {
    const f = 'depthwise_conv_s8_mult_4';
    const tiles = inCh * (depthMult / 4);
    addBlock(b, `${f}.call`, 1);
    addBlock(b, `${f}.row`, s.outH);
    addBlock(b, `${f}.pixel`, pixels);
    addBlock(b, `${f}.inCh`, pixels * inCh);
    addBlock(b, `${f}.tile`, pixels * tiles);
    addBlock(b, `${f}.tile.lsh`, pixels * leftShifts(s.lsh));
    addBlock(b, `${f}.tile.krow`, rows * s.outW * tiles);
    addBlock(b, `${f}.tile.tap`, rows * cols * tiles);
    return;
  }
  // depthwise_conv_s8_generic is static and inlined into arm_depthwise_conv_s8.
  const f = 'arm_depthwise_conv_s8';
  const dil = s.dilH > 1 || s.dilW > 1;
  addBlock(b, `${f}.generic`, 1);
  addBlock(b, `${f}.batch`, s.batches);
  addBlock(b, `${f}.row`, s.batches * s.outH);
  addBlock(b, `${f}.pixel`, s.batches * pixels);
  addBlock(b, `${f}.inCh`, s.batches * pixels * inCh);
  addBlock(b, `${f}.out`, s.batches * pixels * inCh * depthMult);
  addBlock(b, `${f}.out.lsh`, s.batches * pixels * leftShifts(s.lsh));
  if (dil) addBlock(b, `${f}.out.dilated`, s.batches * pixels * inCh * depthMult);
  addBlock(b, `${f}.out.krow`, s.batches * rows * s.outW * inCh * depthMult);
  addBlock(b, `${f}.out.anyRow`, s.batches * sumAxis(ys, (w) => (w.end > w.start ? 1 : 0)) * s.outW * inCh * depthMult);
  addBlock(b, `${f}.out.tap`, s.batches * rows * cols * inCh * depthMult);
}
