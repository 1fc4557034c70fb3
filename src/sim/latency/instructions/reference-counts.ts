// Block counts of the kernels a TFLM build runs without CMSIS-NN for these ops (TFLM 90b983c's
// reference kernels and kernels/*.cc, plus CMSIS-NN's arm_pad_s8 and arm_transpose_s8 that its
// cmsis_nn pad.cc / transpose.cc call for int8), from their loop bounds. Function names are the
// demangled symbols without namespace and arguments (`QuantizedMeanOrSum<int8>`).
import type { Blocks } from './blocks.ts';
import { addBlock, prod } from './blocks.ts';
import { memcpyBlocks, memsetBlocks } from './libc-counts.ts';

const mod4 = (x: number): number => ((x % 4) + 4) % 4;

/** arm_pad_s8 over an NHWC input with pre / post padding per dimension (memset of pad bytes, memcpy of rows). */
export function padBlocks(b: Blocks, input: readonly number[], pre: readonly number[], post: readonly number[], mve = false): void {
  const [n = 1, h = 1, w = 1, c = 1] = input;
  const out = input.map((d, i) => d + (pre[i] ?? 0) + (post[i] ?? 0));
  const [, oh = 1, ow = 1, oc = 1] = out;
  const batchBlock = oh * ow * oc;
  const rowBlock = ow * oc;
  let o = 0;
  // MVE builds inline arm_memset_s8 / arm_memcpy_s8 as 16-byte WLSTP loops; the others call newlib.
  const set = (bytes: number): void => {
    if (mve) { addBlock(b, 'arm_pad_s8.set', 1); addBlock(b, 'arm_pad_s8.set.v16', Math.ceil(bytes / 16)); } else memsetBlocks(b, bytes, mod4(o));
    o += bytes;
  };
  const copy = (bytes: number, src: number): void => {
    if (mve) { addBlock(b, 'arm_pad_s8.copy', 1); addBlock(b, 'arm_pad_s8.copy.v16', Math.ceil(bytes / 16)); } else memcpyBlocks(b, bytes, mod4(o), mod4(src));
    o += bytes;
  };
  addBlock(b, 'arm_pad_s8.call', 1);
  set(batchBlock * (pre[0] ?? 0));
  let src = 0;
  for (let bi = 0; bi < n; bi++) {
    addBlock(b, 'arm_pad_s8.batch', 1);
    set(rowBlock * (pre[1] ?? 0));
    for (let y = 0; y < h; y++) {
      addBlock(b, 'arm_pad_s8.row', 1);
      set(oc * (pre[2] ?? 0));
      if (c === oc) { copy(w * c, src); src += w * c; } else {
        addBlock(b, 'arm_pad_s8.col', w);
        for (let x = 0; x < w; x++) { set(pre[3] ?? 0); copy(c, src); src += c; set(post[3] ?? 0); }
      }
      set(oc * (post[2] ?? 0));
    }
    set(rowBlock * (post[1] ?? 0));
  }
  set(batchBlock * (post[0] ?? 0));
}

/** MultiplyByQuantizedMultiplier(int32, mult, shift) calls: the shift's sign picks the path. */
export function mbqmBlocks(b: Blocks, calls: number, shift: number): void {
  addBlock(b, `MultiplyByQuantizedMultiplier.${shift > 0 ? 'L' : 'R'}`, calls);
}

/** QuantizedMeanOrSum<int8> (reduce_common.cc -> reference_ops): a generic index walk over every input element. */
export function meanBlocks(b: Blocks, input: readonly number[], axes: readonly number[], outputs: number, shift: number): void {
  const f = 'QuantizedMeanOrSum<int8>';
  const elems = prod(input);
  const rank = input.length;
  addBlock(b, `${f}.call`, 1);
  addBlock(b, `${f}.out`, outputs);
  // ReducedOutputOffset walks every dimension (and the axis list for the output offset) per element.
  addBlock(b, `${f}.elem.r${rank}a${axes.length}`, elems);
  // NextIndex: one more pass per carry into the next outer dimension.
  let carries = 0;
  let inner = 1;
  for (let d = rank - 1; d > 0; d--) { inner *= input[d] ?? 1; carries += Math.floor(elems / inner); }
  addBlock(b, `${f}.carry`, carries);
  mbqmBlocks(b, outputs, shift);
  addBlock(b, 'divdi.call', 1);
  // The output / temp_sum / index resets compile to memset calls (16-aligned buffers).
  memsetBlocks(b, outputs, 0);
  memsetBlocks(b, 4 * outputs, 0);
  memsetBlocks(b, 4 * rank, 0);
}

/** Quantize float -> int8 (AffineQuantize), int8 / uint8 -> int8 (Requantize), Dequantize int8 -> float. */
export function quantizeBlocks(b: Blocks, kind: 'affine' | 'requant' | 'xor' | 'dequant', n: number, shift: number): void {
  const f = kind === 'dequant' ? 'DequantizeEval' : 'EvalQuantizeReference';
  addBlock(b, `${f}.${kind}`, 1);
  addBlock(b, `${f}.${kind}.elem`, n);
  if (kind === 'requant') mbqmBlocks(b, n, shift);
}

/** ResizeBilinearInteger<int8>: per output row and column the source taps, per element four products. */
export function resizeBilinearBlocks(b: Blocks, batches: number, outH: number, outW: number, depth: number): void {
  const f = 'ResizeBilinearInteger<int8>';
  addBlock(b, `${f}.call`, 1);
  addBlock(b, `${f}.batch`, batches);
  addBlock(b, `${f}.row`, batches * outH);
  addBlock(b, `${f}.col`, batches * outH * outW);
  addBlock(b, `${f}.elem`, batches * outH * outW * depth);
}

/** ResizeNearestNeighbor<int8>: per output pixel one memcpy of `depth` bytes from the nearest input pixel. */
export function resizeNearestBlocks(b: Blocks, input: readonly number[], ys: Int32Array, xs: Int32Array, mode: 'align' | 'half' | 'plain'): void {
  const [n = 1, inH = 1, inW = 1, depth = 1] = input;
  // GetNearestNeighbor (inlined) rounds, floors or floors and clamps by the op's options.
  const f = `ResizeNearestNeighbor<int8>.${mode}`;
  addBlock(b, `${f}.call`, 1);
  addBlock(b, `${f}.row`, n * ys.length);
  addBlock(b, `${f}.col`, n * ys.length * xs.length);
  let o = 0;
  for (let bi = 0; bi < n; bi++) {
    for (const y of ys) {
      for (const x of xs) {
        memcpyBlocks(b, depth, mod4(o), mod4(((bi * inH + y) * inW + x) * depth));
        o += depth;
      }
    }
  }
}

/** Concatenation: per outer index, one memcpy per input of its slice. */
export function concatenationBlocks(b: Blocks, inputs: readonly (readonly number[])[], axis: number): void {
  const first = inputs[0] ?? [];
  const outer = prod(first.slice(0, axis));
  const inner = prod(first.slice(axis + 1));
  addBlock(b, 'EvalUnquantized<int8>.call', 1);
  addBlock(b, 'EvalUnquantized<int8>.input', inputs.length);
  addBlock(b, 'EvalUnquantized<int8>.outer', outer);
  let o = 0;
  for (let k = 0; k < outer; k++) {
    for (const s of inputs) {
      const size = (s[axis] ?? 1) * inner;
      memcpyBlocks(b, size, mod4(o), mod4(k * size));
      o += size;
    }
  }
  addBlock(b, 'EvalUnquantized<int8>.copy', outer * inputs.length);
}

/** arm_transpose_s8 (4-D or 3-D): the default element loop (MVE: the nhcw gather path when perm keeps N and H). */
export function transposeBlocks(b: Blocks, input: readonly number[], perm: readonly number[], mve: boolean): void {
  const f = 'arm_transpose_s8';
  addBlock(b, `${f}.call`, 1);
  const d4 = input.length === 3 ? [1, ...input] : input;
  const [n = 1, h = 1, w = 1, c = 1] = d4;
  if (mve && input.length === 4 && perm[0] === 0 && perm[1] === 1) {
    addBlock(b, `${f}.nhcw`, 1);
    addBlock(b, `${f}.nhcw.row`, n * h);
    addBlock(b, `${f}.nhcw.col`, n * h * c);
    addBlock(b, `${f}.nhcw.v8`, n * h * c * Math.ceil(w / 8));
    return;
  }
  // arm_transpose_s8_default is inlined once for 4-D and once for 3-D permutations.
  const r = `${f}.default.r${input.length}`;
  addBlock(b, r, 1);
  addBlock(b, `${r}.n`, n);
  addBlock(b, `${r}.h`, n * h);
  addBlock(b, `${r}.w`, n * h * w);
  addBlock(b, `${r}.c`, n * h * w * c);
}

/** Reshape (and other pure copies): one memcpy of the whole tensor when input and output differ. */
export function copyBlocks(b: Blocks, fn: string, bytes: number): void {
  addBlock(b, `${fn}.call`, 1);
  memcpyBlocks(b, bytes, 0, 0);
}

/** LogSoftmax int8 (reference log_softmax.h): per row a max, a sum of gemmlowp exponentials, one log, the output pass. */
export function logSoftmaxBlocks(b: Blocks, rows: number, depth: number): void {
  const f = 'LogSoftmaxEval';
  addBlock(b, `${f}.call`, 1);
  addBlock(b, `${f}.row`, rows);
  addBlock(b, `${f}.elem`, rows * depth);
  // Every element is taken as within diff_min of the row's max (the exponential runs for each).
  addBlock(b, 'gemmlowp::exp_on_negative_values<i32,5>.call', rows * depth);
  addBlock(b, 'gemmlowp::exp_on_interval_between_negative_one_quarter_and_0_excl<i32>.call', rows * depth);
  addBlock(b, 'MultiplyByQuantizedMultiplier.R', 2 * rows * depth);
  addBlock(b, 'log_x_for_x_greater_than_or_equal_to_1_impl<5,12>.call', rows);
  addBlock(b, 'gemmlowp::one_over_one_plus_x_for_x_in_0_1<i32>.call', rows);
  addBlock(b, 'SaturatingRoundingMultiplyByPOTParam<i32>.call', rows);
}
