// Block counts of TFLM 90b983c's reference kernels for the ops CMSIS-NN would otherwise run (the
// `--kernels reference` build): reference_integer_ops ConvPerChannel / DepthwiseConvPerChannel (one MAC
// per tap and channel inside the input, the bounds test per tap), FullyConnected, the int8 Add / Mul
// element loops, MaxPool / AveragePool (window clipped to the input), Softmax (gemmlowp exponentials per
// element), TransposeConv (scatter of every input tap into the int32 scratch, then requantize), PadImpl
// and TransposeImpl (one pass per output element). MultiplyByQuantizedMultiplier is a call per output.
import type { Blocks } from './blocks.ts';
import { addBlock, axisWindows, sumAxis } from './blocks.ts';
import type { ConvShape } from './cmsis-dsp-conv.ts';
import { leftShifts } from './cmsis-dsp-conv.ts';
import { memsetBlocks } from './libc-counts.ts';
import type { PoolShape } from './cmsis-dsp-misc.ts';

/** MultiplyByQuantizedMultiplier calls of `perChannel` outputs each, per channel shift (left / right path). */
function requantCalls(b: Blocks, perChannel: number, lsh: readonly number[]): void {
  const left = leftShifts(lsh);
  addBlock(b, 'MultiplyByQuantizedMultiplier.L', perChannel * left);
  addBlock(b, 'MultiplyByQuantizedMultiplier.R', perChannel * (lsh.length - left));
}

/** Window taps of every output position, split by where the bounds test fails (x first, then y). */
function windowTaps(s: ConvShape): { inside: number; outX: number; outY: number } {
  const ys = axisWindows(s.outH, s.inH, s.fH, s.strideH, s.dilH, s.padH);
  const xs = axisWindows(s.outW, s.inW, s.fW, s.strideW, s.dilW, s.padW);
  const rowsIn = sumAxis(ys, (w) => w.end - w.start);
  const colsIn = sumAxis(xs, (w) => w.end - w.start);
  const inside = rowsIn * colsIn;
  const outX = s.outH * s.fH * (s.outW * s.fW - colsIn);
  return { inside, outX, outY: s.outW * s.fW * s.outH * s.fH - inside - outX };
}

/** reference_integer_ops::ConvPerChannel (groups = 1). */
export function refConvBlocks(b: Blocks, s: ConvShape): void {
  const f = 'ConvPerChannel';
  const t = windowTaps(s);
  const n = s.batches;
  addBlock(b, `${f}.call`, 1);
  addBlock(b, `${f}.row`, n * s.outH);
  addBlock(b, `${f}.pixel`, n * s.outH * s.outW);
  addBlock(b, `${f}.out`, n * s.outH * s.outW * s.outD);
  addBlock(b, `${f}.out.krow`, n * s.outH * s.outW * s.outD * s.fH);
  addBlock(b, `${f}.out.inside`, n * t.inside * s.outD);
  addBlock(b, `${f}.out.outX`, n * t.outX * s.outD);
  addBlock(b, `${f}.out.outY`, n * t.outY * s.outD);
  addBlock(b, `${f}.out.mac`, n * t.inside * s.outD * s.inD);
  requantCalls(b, n * s.outH * s.outW, s.lsh);
}

/** reference_integer_ops::DepthwiseConvPerChannel. */
export function refDepthwiseBlocks(b: Blocks, s: ConvShape, depthMult: number): void {
  const f = 'DepthwiseConvPerChannel';
  const t = windowTaps(s);
  const n = s.batches;
  addBlock(b, `${f}.call`, 1);
  addBlock(b, `${f}.row`, n * s.outH);
  addBlock(b, `${f}.pixel`, n * s.outH * s.outW);
  addBlock(b, `${f}.inCh`, n * s.outH * s.outW * s.inD);
  addBlock(b, `${f}.out`, n * s.outH * s.outW * s.outD);
  addBlock(b, `${f}.out.krow`, n * s.outH * s.outW * s.outD * s.fH);
  addBlock(b, `${f}.out.inside`, n * t.inside * s.outD);
  addBlock(b, `${f}.out.outX`, n * t.outX * s.outD);
  addBlock(b, `${f}.out.outY`, n * t.outY * s.outD);
  void depthMult;
  requantCalls(b, n * s.outH * s.outW, s.lsh);
}

/** reference_integer_ops::FullyConnected<int8, int8, int8, int32>: one dot product per output. */
export function refFullyConnectedBlocks(b: Blocks, batches: number, k: number, n: number, lsh: readonly number[]): void {
  const f = 'FullyConnected<int8,int8,int8,i32>';
  addBlock(b, `${f}.call`, 1);
  addBlock(b, `${f}.batch`, batches);
  addBlock(b, `${f}.out`, batches * n);
  addBlock(b, `${f}.out.mac`, batches * n * k);
  requantCalls(b, batches, lsh.length === n ? lsh : new Array<number>(n).fill(lsh[0] ?? 0));
}

/** reference Add (EvalAddQuantized: both rescales inlined) and Mul (EvalMulQuantizedReference + a requantize call). */
export function refElementwiseBlocks(b: Blocks, kind: 'add' | 'mul', n: number, shift: number): void {
  const f = kind === 'add' ? 'EvalAddQuantized' : 'EvalMulQuantizedReference';
  addBlock(b, `${f}.call`, 1);
  addBlock(b, `${f}.elem`, n);
  if (kind === 'mul') addBlock(b, `MultiplyByQuantizedMultiplier.${shift > 0 ? 'L' : 'R'}`, n);
}

/** reference_integer_ops::MaxPool / the average pool inlined in AverageEval: per output and channel, the clipped window. */
export function refPoolBlocks(b: Blocks, fn: 'MaxPool' | 'AverageEval', s: PoolShape): void {
  const ys = axisWindows(s.outH, s.inH, s.fH, s.strideH, 1, s.padH);
  const xs = axisWindows(s.outW, s.inW, s.fW, s.strideW, 1, s.padW);
  const rows = s.batches * sumAxis(ys, (w) => w.end - w.start) * s.outW;
  const taps = s.batches * sumAxis(ys, (w) => w.end - w.start) * sumAxis(xs, (w) => w.end - w.start);
  addBlock(b, `${fn}.call`, 1);
  addBlock(b, `${fn}.row`, s.batches * s.outH);
  addBlock(b, `${fn}.pixel`, s.batches * s.outH * s.outW);
  addBlock(b, `${fn}.out`, s.batches * s.outH * s.outW * s.ch);
  addBlock(b, `${fn}.out.krow`, rows * s.ch);
  addBlock(b, `${fn}.out.tap`, taps * s.ch);
}

/** reference_ops::Softmax<int8, int8>: per row the max, the exponentials summed, then each output's exponential again. */
export function refSoftmaxBlocks(b: Blocks, rows: number, depth: number): void {
  addBlock(b, 'Softmax<int8,int8>.call', 1);
  addBlock(b, 'Softmax<int8,int8>.row', rows);
  addBlock(b, 'Softmax<int8,int8>.elem', rows * depth);
  addBlock(b, 'gemmlowp::exp_on_negative_values<i32,5>.call', 2 * rows * depth);
  addBlock(b, 'gemmlowp::exp_on_interval_between_negative_one_quarter_and_0_excl<i32>.call', 2 * rows * depth);
  addBlock(b, 'gemmlowp::one_over_one_plus_x_for_x_in_0_1<i32>.call', rows);
}

/** TransposeConv reference (inlined in TransposeConvEval): scatter into the int32 scratch, then requantize. */
export function refTransposeConvBlocks(b: Blocks, s: ConvShape): void {
  const f = 'TransposeConvEval';
  const n = s.batches;
  // Output rows / columns hit by each input row / column's filter taps.
  let inside = 0;
  for (let iy = 0; iy < s.inH; iy++) {
    for (let ky = 0; ky < s.fH; ky++) {
      const oy = iy * s.strideH + ky - s.padH;
      if (oy < 0 || oy >= s.outH) continue;
      for (let ix = 0; ix < s.inW; ix++) {
        for (let kx = 0; kx < s.fW; kx++) {
          const ox = ix * s.strideW + kx - s.padW;
          if (ox >= 0 && ox < s.outW) inside++;
        }
      }
    }
  }
  addBlock(b, `${f}.call`, 1);
  memsetBlocks(b, 4 * n * s.outH * s.outW * s.outD, 0); // the int32 scratch cleared
  addBlock(b, `${f}.in`, n * s.inH * s.inW * s.inD);
  addBlock(b, `${f}.in.krow`, n * s.inH * s.inW * s.inD * s.fH);
  addBlock(b, `${f}.in.tap`, n * s.inH * s.inW * s.inD * s.fH * s.fW);
  // The bounds test sits inside the output-channel loop: every tap and channel runs it.
  addBlock(b, `${f}.in.tap.oc`, n * s.inH * s.inW * s.inD * s.fH * s.fW * s.outD);
  addBlock(b, `${f}.in.inside`, n * inside * s.inD);
  addBlock(b, `${f}.in.inside.oc`, n * inside * s.inD * s.outD);
  addBlock(b, `${f}.out`, n * s.outH * s.outW * s.outD);
  requantCalls(b, n * s.outH * s.outW, s.lsh);
}

/** TransposeImpl<int8>: one pass per output element, a loop set-up per output row (code per rank). */
export function refTransposeBlocks(b: Blocks, output: readonly number[]): void {
  const f = `transpose_internal::TransposeImpl<int8>.r${output.length}`;
  addBlock(b, `${f}.call`, 1);
  addBlock(b, `${f}.row`, output.slice(0, -1).reduce((a, d) => a * d, 1));
  addBlock(b, `${f}.elem`, output.reduce((a, d) => a * d, 1));
}

/** PadImpl<int8, int8>: per output element, the padding tests decide between the pad value and a copy. */
export function refPadBlocks(b: Blocks, input: readonly number[], pre: readonly number[]): void {
  const f = 'PadImpl<int8,int8>';
  const out = input.map((d, i) => d + (pre[i] ?? 0) + (pre[input.length + i] ?? 0));
  const total = out.reduce((a, d) => a * d, 1);
  const interior = input.reduce((a, d) => a * d, 1);
  addBlock(b, `${f}.call`, 1);
  addBlock(b, `${f}.row`, out.slice(0, -1).reduce((a, d) => a * d, 1));
  addBlock(b, `${f}.elem.copy`, interior);
  addBlock(b, `${f}.elem.pad`, total - interior);
}
