// Block counts of TFLM 90b983c's reference kernels for the ops CMSIS-NN would otherwise run (the
// `--kernels reference` build): reference_integer_ops ConvPerChannel / DepthwiseConvPerChannel (one MAC
// per tap and channel inside the input, the bounds test per tap), FullyConnected, the int8 Add / Mul
// element loops, MaxPool / AveragePool (window clipped to the input), Softmax (gemmlowp exponentials per
// element), TransposeConv (scatter of every input tap into the int32 scratch, then requantize), PadImpl
// (per output element, padding tests up to the first that holds) and TransposeImpl (a recursive call per
// index of every dimension but the last, one pass per output element). MultiplyByQuantizedMultiplier is a
// call per output.
import type { Blocks } from './blocks.ts';
import { addBlock, axisWindows, prod, sumAxis } from './blocks.ts';
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

/**
 * TransposeImpl<int8> (reference transpose.h) recurses over the output's dimensions: the call at depth 0
 * (`call`), one call per index of the dimensions above at every middle depth (`mid`: the function's entry
 * and its parent's loop step), one per output row at the last depth (`row`), which copies the row's
 * elements (`elem`). One function for every rank (the lab's rank-3 and rank-4 cases fit the same costs).
 */
export function refTransposeBlocks(b: Blocks, output: readonly number[]): void {
  const f = 'transpose_internal::TransposeImpl<int8>';
  const prefix = (n: number): number => output.slice(0, n).reduce((a, d) => a * d, 1);
  let mid = 0;
  for (let depth = 1; depth < output.length - 1; depth++) mid += prefix(depth);
  // A 1-D transpose's only call is already the last depth's.
  if (output.length > 1) addBlock(b, `${f}.call`, 1);
  addBlock(b, `${f}.mid`, mid);
  addBlock(b, `${f}.row`, prefix(output.length - 1));
  addBlock(b, `${f}.elem`, prefix(output.length));
}

/**
 * PadImpl<int8, int8> (reference pad.h) extends the shapes to 5-D (b, p, h, w, d) and walks the output;
 * per element a chain of tests, left then right edge of each dimension from the outermost, stops at the
 * first that holds: a padded element costs by the dimension and side that pads it (`elem.pad.<dim>.<side>`),
 * a copied one runs all ten tests (`elem.copy`); the w loop starts once per (b, p, h) index (`h`), the d
 * loop once per (b, p, h, w) (`row`). The b and p edges (the batch of a 4-D input) are tested before h but
 * no lab case pads them: their elements are counted as h's. `pre` holds the before then the after counts.
 */
export function refPadBlocks(b: Blocks, input: readonly number[], pre: readonly number[]): void {
  const f = 'PadImpl<int8,int8>';
  const lead = Math.max(0, 5 - input.length);
  const ext = [...new Array<number>(lead).fill(1), ...input];
  const left = [...new Array<number>(lead).fill(0), ...input.map((_, i) => pre[i] ?? 0)];
  const right = [...new Array<number>(lead).fill(0), ...input.map((_, i) => pre[input.length + i] ?? 0)];
  const out = ext.map((d, i) => d + (left[i] ?? 0) + (right[i] ?? 0));
  addBlock(b, `${f}.call`, 1);
  addBlock(b, `${f}.h`, prod(out.slice(0, -2)));
  addBlock(b, `${f}.row`, prod(out.slice(0, -1)));
  addBlock(b, `${f}.elem.copy`, prod(ext));
  const dims = ['b', 'p', 'h', 'w', 'd'];
  ext.forEach((_, i) => {
    // Elements whose outer coordinates are all inside the input and whose i-th is in the padding.
    const inner = prod(ext.slice(0, i)) * prod(out.slice(i + 1));
    const dim = dims[Math.max(2, i - ext.length + 5)] ?? 'h';
    addBlock(b, `${f}.elem.pad.${dim}.left`, inner * (left[i] ?? 0));
    addBlock(b, `${f}.elem.pad.${dim}.right`, inner * (right[i] ?? 0));
  });
}
