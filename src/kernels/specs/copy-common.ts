// Shared helpers of the data-movement specs (pad, concatenation, reshape, split, splitV,
// stridedSlice, transpose): the dtypes a pure copy supports, constant index tensors, axis
// normalisation and a row-major loop nest builder whose structure is a function of the rank.
import type { Tensor } from '../../ir/index.ts';
import { constInts, elementCount } from '../../ir/index.ts';
import type { Nest, Stmt } from '../nest.ts';
import { For, Let } from '../nest.ts';

/** Element types the copy kernels move (int8 is the modelled path; wider ints copy the same way). */
export const COPY_DTYPES: readonly string[] = ['int8', 'int16', 'int32'];

export function isCopyable(t: Tensor | null): boolean {
  return t !== null && COPY_DTYPES.includes(t.dtype);
}

export function sameDtype(a: Tensor | null, b: Tensor | null): boolean {
  return a !== null && b !== null && a.dtype === b.dtype;
}

/** The values of a constant int32 index tensor (axis, paddings, perm, begin...), else null. */
export function constInt32s(t: Tensor | null): number[] | null {
  return t !== null && t.dtype === 'int32' ? constInts(t) : null;
}

/** axis in [-rank, rank) mapped to [0, rank), else null. */
export function normalizeAxis(axis: number | undefined, rank: number): number | null {
  if (axis === undefined || !Number.isInteger(axis) || axis < -rank || axis >= rank) return null;
  return axis < 0 ? axis + rank : axis;
}

export function product(xs: readonly number[], from = 0, to = xs.length): number {
  let p = 1;
  for (let i = from; i < to; i++) p *= xs[i] ?? 0;
  return p;
}

export function sameShape(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((d, i) => d === b[i]);
}

export function countOf(t: Tensor | null): number {
  return t === null ? 0 : elementCount(t.shape);
}

/** One loop level: `for (v = 0; v < to; v++)` followed by its lets. */
export interface Level {
  readonly v: string;
  readonly to: string;
  readonly lets: readonly (readonly [string, string])[];
}

/** Nested loops, outermost first, with `inner` in the innermost body. */
export function loopNest(levels: readonly Level[], inner: Nest): Nest {
  let body: Nest = inner;
  for (let i = levels.length - 1; i >= 0; i--) {
    const l = levels[i] as Level;
    const lets: Stmt[] = l.lets.map(([n, e]) => Let(n, e));
    body = [For(l.v, '0', l.to, [...lets, ...body])];
  }
  return body;
}
