// Block counts of TFLM 90b983c's own kernels for GATHER, PACK, UNPACK, SQUEEZE, EXPAND_DIMS and
// PRELU (int8; every build runs them, CMSIS-NN has none), from their C loops. All blocks are TFLM
// glue (`glue.KIND.*`): the kernels are inline in their Eval (PReLU's per-element lambda in
// reference_ops::RunBinaryOp) apart from newlib's memcpy and MultiplyByQuantizedMultiplier.
// - gather.cc Gather: per batch, outer index and coordinate one memcpy of the inner row; its source
//   offset (hence memcpy's alignment path) comes from the coordinate's value.
// - pack.cc / unpack.cc: per input (output) and outer index a byte loop of the copy size.
// - squeeze.cc: one memcpy of the tensor (after two TfLiteEvalTensorByteLength walks over the dims);
//   expand_dims.cc: memCopyN, a byte loop.
// - prelu.cc BroadcastPrelu4DSlow -> BroadcastBinaryOpSimple: the dims fused into as few loops as the
//   strides allow, RunBinaryOp recursing over them, the innermost loop one element a pass (alpha
//   broadcast along it or not); each element takes one MultiplyByQuantizedMultiplier, with the identity
//   multiplier when the input is >= its zero point and the alpha one otherwise: the model takes half
//   of each (the sweeps' inputs are uniform around the zero point), the first with a non-negative
//   argument, the second negative where alpha is positive.
import type { Blocks } from './blocks.ts';
import { addBlock, prod } from './blocks.ts';
import { memcpyBlocks } from './libc-counts.ts';
import { mbqmBlocks } from './reference-counts.ts';

const mod4 = (x: number): number => ((x % 4) + 4) % 4;

/**
 * Gather<int8, int32> of `input` along `axis` with `coords` (shape, values); null values: runtime
 * coordinates, which only rows of a multiple of 4 bytes allow (every copy then word aligned).
 * Returns false when the copies' alignment cannot be known.
 */
export function gatherBlocks(b: Blocks, input: readonly number[], axis: number, batchDims: number, coordShape: readonly number[], coords: readonly number[] | null): boolean {
  const batch = prod(input.slice(0, batchDims));
  const outer = prod(input.slice(batchDims, axis));
  const inner = prod(input.slice(axis + 1));
  const axisSize = input[axis] ?? 1;
  const coordSize = prod(coordShape.slice(batchDims));
  if (coords === null && inner % 4 !== 0) return false;
  addBlock(b, 'glue.gather.dim', 2 * batchDims + (axis - batchDims) + (input.length - axis - 1) + (coordShape.length - batchDims));
  addBlock(b, 'glue.gather.batch', batch);
  addBlock(b, 'glue.gather.outer', batch * outer);
  addBlock(b, 'glue.gather.coord', batch * outer * coordSize);
  for (let bi = 0; bi < batch; bi++) {
    for (let o = 0; o < outer; o++) {
      for (let c = 0; c < coordSize; c++) {
        const index = coords === null ? 0 : coords[bi * coordSize + c] ?? 0;
        memcpyBlocks(b, inner, mod4(((bi * outer + o) * coordSize + c) * inner), mod4(((bi * outer + o) * axisSize + index) * inner));
      }
    }
  }
  return true;
}

/** PackImpl / UnpackImpl<int8>: `count` tensors of `outer` x `copy` bytes, interleaved along `axis` of the packed shape. */
export function packBlocks(b: Blocks, kind: 'pack' | 'unpack', packed: readonly number[], axis: number, count: number, sliceRank: number): void {
  const outer = prod(packed.slice(0, axis));
  const copy = prod(packed.slice(axis + 1));
  // The outer and copy size loops over the packed dims, the element count over one slice's.
  addBlock(b, `glue.${kind}.dim`, axis + (packed.length - axis - 1) + sliceRank);
  addBlock(b, `glue.${kind}.tensor`, count);
  addBlock(b, `glue.${kind}.outer`, count * outer);
  addBlock(b, `glue.${kind}.elem`, count * outer * copy);
}

/** SqueezeEval: two byte-length walks over the dims, one memcpy of `bytes` (arena buffers are 16-aligned). */
export function squeezeBlocks(b: Blocks, inRank: number, outRank: number, bytes: number): void {
  addBlock(b, 'glue.squeeze.dim', inRank + outRank);
  memcpyBlocks(b, bytes, 0, 0);
}

/** ExpandDimsEval: ElementCount over the input dims, memCopyN's byte loop. */
export function expandDimsBlocks(b: Blocks, inRank: number, n: number): void {
  addBlock(b, 'glue.expandDims.dim', inRank);
  addBlock(b, 'glue.expandDims.elem', n);
}

/** The loops BroadcastBinaryOpSimple fuses the dims into, innermost first: extents and both inputs' strides. */
export interface FusedLoops {
  readonly extent: readonly number[];
  readonly aStride: readonly number[];
  readonly bStride: readonly number[];
}

export function fusedBinaryLoops(in1: readonly number[], in2: readonly number[], out: readonly number[]): FusedLoops {
  const dims = Math.max(in1.length, in2.length, out.length);
  const ext = (s: readonly number[]): number[] => [...Array(dims - s.length).fill(1), ...s];
  const [e1, e2, eo] = [ext(in1), ext(in2), ext(out)];
  const canFuse = (od: number, stride: number, expected: number, next: number): boolean => (od === 1 ? true : next === 0 ? stride === 0 : stride === expected);
  const extent: number[] = [];
  const aStride: number[] = [];
  const bStride: number[] = [];
  const oStride: number[] = [];
  let [aAcc, bAcc, oAcc] = [1, 1, 1];
  for (let i = dims - 1; i >= 0; i--) {
    const [d1, d2, od] = [e1[i] ?? 1, e2[i] ?? 1, eo[i] ?? 1];
    const a = d1 === 1 && od !== 1 ? 0 : aAcc;
    const bs = d2 === 1 && od !== 1 ? 0 : bAcc;
    const k = extent.length - 1;
    if (k >= 0 && canFuse(od, a, aAcc, aStride[k] ?? 0) && canFuse(od, bs, bAcc, bStride[k] ?? 0) && canFuse(od, oAcc, oAcc, oStride[k] ?? 0)) {
      extent[k] = (extent[k] ?? 1) * od;
    } else {
      extent.push(od);
      aStride.push(a);
      bStride.push(bs);
      oStride.push(oAcc);
    }
    aAcc *= d1;
    bAcc *= d2;
    oAcc *= od;
  }
  return { extent, aStride, bStride };
}

/**
 * BroadcastPrelu4DSlow<int8> (identity and alpha multipliers' shifts). `alphaPositive`: the share of
 * alpha values above alpha's zero point (a constant alpha; every alpha value serves as many outputs),
 * which makes the negative inputs' product negative; null for a runtime alpha (the mixed-sign cost).
 */
export function preluBlocks(b: Blocks, input: readonly number[], alpha: readonly number[], output: readonly number[], shift1: number, shift2: number, alphaPositive: number | null): void {
  const loops = fusedBinaryLoops(input, alpha, output);
  const top = loops.extent.length - 1;
  // RunBinaryOp calls per level: one at the top, then the product of the extents above.
  let calls = 1;
  let outerCalls = 0;
  for (let d = top; d >= 1; d--) {
    outerCalls += calls;
    calls *= loops.extent[d] ?? 1;
  }
  const n = calls * (loops.extent[0] ?? 1);
  addBlock(b, 'glue.prelu.loop', outerCalls);
  addBlock(b, 'glue.prelu.inner', calls);
  addBlock(b, (loops.bStride[0] ?? 1) === 0 ? 'glue.prelu.elemAlpha0' : 'glue.prelu.elem', n);
  // MultiplyByQuantizedMultiplier's rounding takes one path per sign of its argument: the identity
  // multiplier's is never negative, the alpha product's is negative where alpha is positive.
  const f = 'MultiplyByQuantizedMultiplier';
  const path2 = shift2 > 0 ? 'L' : 'R';
  addBlock(b, `${f}.${shift1 > 0 ? 'L' : 'R'}.nonNegative`, n / 2);
  if (alphaPositive === null) mbqmBlocks(b, n / 2, shift2);
  else {
    addBlock(b, `${f}.${path2}.negative`, (n / 2) * alphaPositive);
    addBlock(b, `${f}.${path2}.nonNegative`, (n / 2) * (1 - alphaPositive));
  }
}
