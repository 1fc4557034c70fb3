// Source coordinates of TFLM's RESIZE_NEAREST_NEIGHBOR (reference_ops::GetNearestNeighbor, float32
// arithmetic) and RESIZE_BILINEAR int8 (reference_ops::ComputeInterpolationValuesInteger, 10
// fractional bits), per output row or column; computed once in prepare and shared with the analytic
// safe overlap. Also the constraints and the size-tensor read both specs share.
import type { Tensor } from '../../ir/index.ts';
import { constInts } from '../../ir/index.ts';
import { roundHalfAway } from '../quant.ts';
import type { Constraint, OpContext } from '../spec.ts';
import { constraint, isInt8Quantized, rank } from './common.ts';

type ResizeKind = 'resizeNearestNeighbor' | 'resizeBilinear';

/** Input row (or column) read for each output row of a nearest-neighbour resize. */
export function nearestIndices(inSize: number, outSize: number, alignCorners: boolean, halfPixelCenters: boolean): Int32Array {
  const f = Math.fround;
  const scale = alignCorners && outSize > 1 ? f(f(inSize - 1) / f(outSize - 1)) : f(f(inSize) / f(outSize));
  const offset = halfPixelCenters ? 0.5 : 0;
  const out = new Int32Array(outSize);
  for (let i = 0; i < outSize; i++) {
    const v = f(f(i + offset) * scale);
    let k = Math.min(alignCorners ? Math.trunc(roundHalfAway(v)) : Math.floor(v), inSize - 1);
    if (halfPixelCenters) k = Math.max(0, k);
    out[i] = k;
  }
  return out;
}

/** Bilinear taps per output row: lower / upper input row and the 10-bit position input_y. */
export interface BilinearTaps {
  readonly lower: Int32Array;
  readonly upper: Int32Array;
  /** input_y - 1024 * lower: the weight of the upper row in 1/1024. */
  readonly frac: Int32Array;
}

export function bilinearTaps(inSize: number, outSize: number, alignCorners: boolean, halfPixelCenters: boolean): BilinearTaps {
  const scale = alignCorners && outSize > 1
    ? Math.trunc((1024 * (inSize - 1) + Math.trunc((outSize - 1) / 2)) / (outSize - 1))
    : Math.trunc((1024 * inSize + Math.trunc(outSize / 2)) / outSize);
  const lower = new Int32Array(outSize);
  const upper = new Int32Array(outSize);
  const frac = new Int32Array(outSize);
  for (let i = 0; i < outSize; i++) {
    const v = halfPixelCenters ? i * scale + Math.trunc(scale / 2) - 512 : i * scale;
    lower[i] = Math.max(Math.trunc(v / 1024), 0);
    upper[i] = Math.min(Math.trunc((v + 1023) / 1024), inSize - 1);
    frac[i] = v - 1024 * (lower[i] ?? 0);
  }
  return { lower, upper, frac };
}

/** The constant [height, width] of the size input, or null. */
export function resizeSize(size: Tensor | null): [number, number] | null {
  const v = constInts(size);
  return v !== null && v.length === 2 && v.every((d) => Number.isInteger(d) && d >= 1) ? [v[0] ?? 1, v[1] ?? 1] : null;
}

/** Constraints both resize kernels share (resize_*.cc Prepare, int8 only). */
export function resizeConstraints<K extends ResizeKind>(kind: K): Constraint<K>[] {
  return [
    constraint(`${kind}.types`, 'input and output must be int8 quantized tensors (other types are not supported)', (c: OpContext<K>) =>
      isInt8Quantized(c.input(0)) && isInt8Quantized(c.output(0))),
    constraint(`${kind}.size`, 'input must be 4-D and size a constant int32 tensor [height, width] (TFLM refuses a non-constant size)', (c: OpContext<K>) => {
      const s = resizeSize(c.input(1));
      const x = c.input(0)?.shape ?? [];
      const y = c.output(0).shape;
      return rank(c.input(0)) === 4 && c.input(1)?.dtype === 'int32' && s !== null &&
        y.length === 4 && y[0] === x[0] && y[1] === s[0] && y[2] === s[1] && y[3] === x[3];
    }),
  ];
}
