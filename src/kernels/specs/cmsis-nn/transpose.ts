// Transpose as TFLM 90b983c's cmsis_nn/transpose.cc runs it: int8 goes to arm_transpose_s8
// (CMSIS-NN 4ab83cc3; rank <= 4, TF_LITE_ENSURE in TransposeEvalInt8), int16 / int32 to the
// reference kernel (the reference spec). arm_transpose_s8 walks the INPUT in order and writes the
// output at permuted strides (the reference walks the output): rank 1 is one arm_memcpy_s8; rank 2
// is arm_transpose_s8_nhcw, which transposes the two dims whatever perm says (an identity perm
// [0, 1] is transposed too); ranks 3 and 4 run the default 4-deep loop; on MVE a rank-4 perm
// starting 0, 1 takes the nhcw path, which swaps the last two dims (again whatever perm[2..3] are)
// with 8-lane gathers down an input column then 8 contiguous stores. Memory: the reference's.
import type { Tensor } from '../../../ir/index.ts';
import type { Nest } from '../../nest.ts';
import { For, If, Let, Set, Store, Val } from '../../nest.ts';
import type { KernelSpec, OpContext, Prepared } from '../../spec.ts';
import { constraint, rank } from '../common.ts';
import { constInt32s, product } from '../copy-common.ts';
import { transposeSpec } from '../transpose.ts';
import { memcpyS8 } from './block-moves.ts';
import type { CmsisNnFeatures } from './conv-family.ts';

/** arm_transpose_s8's paths (flag `cmsis`; 0: not int8, the reference kernel runs). */
export const TRANSPOSE_PATH = { reference: 0, memcpy: 1, nhcw: 2, generic: 3 } as const;

const isInt8 = (t: Tensor | null): boolean => t?.dtype === 'int8';

function pathOf(f: CmsisNnFeatures, c: OpContext<'transpose'>): number {
  const r = rank(c.input(0));
  const perm = constInt32s(c.input(1)) ?? [];
  if (!isInt8(c.input(0))) return TRANSPOSE_PATH.reference;
  if (r === 1) return TRANSPOSE_PATH.memcpy;
  if (r === 2 || (f.mve && r === 4 && perm[0] === 0 && perm[1] === 1)) return TRANSPOSE_PATH.nhcw;
  return TRANSPOSE_PATH.generic;
}

/**
 * nhcw: per (i, y) block of the input's [n, h] dims the rows x cols matrix of its last two dims is
 * written transposed. Plain C / DSP: input read in order, output down its columns; MVE: per column
 * z, 8-row gathers (loads then stores).
 */
function nhcw(f: CmsisNnFeatures): Nest {
  const inner: Nest = f.mve
    ? [For('z', '0', 'cols', [
      For('blk', '0', '(rows + 7) / 8', [
        Let('g', 'blk * 8'),
        ...[0, 1, 2, 3, 4, 5, 6, 7].map((k) => Val(`v${k}`, '0')),
        ...[0, 1, 2, 3, 4, 5, 6, 7].map((k) => If(`g + ${k} < rows`, [Set(`v${k}`, `input[inBase + z + (g + ${k}) * cols]`)])),
        ...[0, 1, 2, 3, 4, 5, 6, 7].map((k) => If(`g + ${k} < rows`, [Store('output', `outBase + z * rows + g + ${k}`, `v${k}`)])),
      ]),
    ])]
    // The C path (rank 2 only: n = h = 1) restarts each output column at `output`, not output_h.
    : [For('row', '0', 'rows', [For('x', '0', 'cols', [Store('output', 'row + x * rows', 'input[inBase + row * cols + x]')])])];
  const outBase = f.mve ? [Let('outBase', 'i * os0 + y * os1')] : [];
  return [For('i', '0', 'nn', [For('y', '0', 'hh', [Let('inBase', '(i * hh + y) * rows * cols'), ...outBase, ...inner])])];
}

/** arm_transpose_s8_default: the input in order, each byte stored at its permuted output offset. */
function generic(r: number): Nest {
  let body: Nest = [Store('output', `y${r - 1}`, `input[x${r - 1}]`)];
  for (let a = r - 1; a >= 0; a--) {
    const x = a === 0 ? `i${a}` : `x${a - 1} * d${a} + i${a}`;
    const y = a === 0 ? `i${a} * os${a}` : `y${a - 1} + i${a} * os${a}`;
    body = [For(`i${a}`, '0', `d${a}`, [Let(`x${a}`, x), Let(`y${a}`, y), ...body])];
  }
  return body;
}

function cmsisPrepare(f: CmsisNnFeatures, c: OpContext<'transpose'>): Prepared {
  const p = transposeSpec.prepare(c);
  const path = pathOf(f, c);
  if (path === TRANSPOSE_PATH.reference) return p;
  const x = c.input(0)?.shape ?? [];
  const y = c.output(0).shape;
  const perm = constInt32s(c.input(1)) ?? [];
  const scalars: Record<string, number> = { ...p.scalars };
  x.forEach((d, a) => { scalars[`d${a}`] = d; });
  // out_strides[perm[k]] = the output's stride of dim k.
  perm.forEach((a, k) => { scalars[`os${a}`] = product(y, k + 1); });
  if (path === TRANSPOSE_PATH.nhcw) {
    const r = x.length;
    Object.assign(scalars, { nn: r === 4 ? x[0] ?? 1 : 1, hh: r === 4 ? x[1] ?? 1 : 1, rows: x[r - 2] ?? 1, cols: x[r - 1] ?? 1 });
    if (r === 2) Object.assign(scalars, { os0: 0, os1: 0 });
  }
  return { ...p, flags: { ...p.flags, cmsis: path }, scalars };
}

export function cmsisNnTransposeSpec(f: CmsisNnFeatures): KernelSpec<'transpose'> {
  const refBody = transposeSpec.body;
  return {
    ...transposeSpec,
    constraints: [
      ...transposeSpec.constraints,
      constraint('transpose.cmsis-nn-rank', 'int8 transpose with CMSIS-NN kernels takes at most 4 dims (cmsis_nn/transpose.cc)', (c) => !isInt8(c.input(0)) || rank(c.input(0)) <= 4),
      constraint('transpose.cmsis-nn-uint16', 'int8 transpose with CMSIS-NN kernels: the two swapped dims of the nhcw path must fit its uint16 counters (MVE: 7 x cols < 65536)', (c) => {
        if (pathOf(f, c) !== TRANSPOSE_PATH.nhcw) return true;
        const x = c.input(0)?.shape ?? [];
        const rows = x[x.length - 2] ?? 1;
        const cols = x[x.length - 1] ?? 1;
        return rows < 65536 && cols < 65536 && (!f.mve || 7 * cols < 65536);
      }),
    ],
    prepare: (c) => cmsisPrepare(f, c),
    body(p: Prepared): Nest {
      const path = p.flags?.['cmsis'] ?? TRANSPOSE_PATH.reference;
      if (path === TRANSPOSE_PATH.memcpy) return memcpyS8(f, 'output', '0', 'input', '0', 'd0', 'm');
      if (path === TRANSPOSE_PATH.nhcw) return nhcw(f);
      if (path === TRANSPOSE_PATH.generic) return generic(p.flags?.['rank'] ?? 0);
      return typeof refBody === 'function' ? refBody(p) : refBody;
    },
  };
}
