// Transpose: TFLM reference_ops::Transpose (reference/transpose.h, TransposeImpl) walks the output
// in row-major order and reads the input at the permuted strides. The permutation must be a
// constant int32 tensor; rank at most 5 (TFLM transpose.cc).
import type { Nest } from '../nest.ts';
import { Store } from '../nest.ts';
import type { KernelSpec, OpContext } from '../spec.ts';
import { constraint, unaryPrepared } from './common.ts';
import type { Level } from './copy-common.ts';
import { constInt32s, isCopyable, loopNest, product, sameDtype } from './copy-common.ts';
import { stock } from '../tflm-memory.ts';

const MAX_RANK = 5;

const permOf = (c: OpContext<'transpose'>): number[] | null => {
  const p = constInt32s(c.input(1));
  const r = c.input(0)?.shape.length ?? 0;
  return p !== null && p.length === r && new Set(p).size === r && p.every((d) => Number.isInteger(d) && d >= 0 && d < r) ? p : null;
};

export const transposeSpec: KernelSpec<'transpose'> = {
  kind: 'transpose',
  tflmPersistent: stock(null, null),
  constraints: [
    constraint('transpose.types', 'input and output must share one dtype (int8, int16 or int32)', (c) => isCopyable(c.input(0)) && sameDtype(c.input(0), c.output(0))),
    constraint('transpose.rank', `input rank must be 1 to ${MAX_RANK}`, (c) => {
      const r = c.input(0)?.shape.length ?? 0;
      return r >= 1 && r <= MAX_RANK;
    }),
    constraint('transpose.perm', 'perm must be a constant int32 permutation of the input axes', (c) => permOf(c) !== null),
    constraint('transpose.output-shape', 'output dims must be the input dims in perm order', (c) => {
      const p = permOf(c) ?? [];
      const x = c.input(0)?.shape ?? [];
      const y = c.output(0).shape;
      return y.length === x.length && p.every((d, i) => y[i] === x[d]);
    }),
  ],
  prepare(c) {
    const x = c.input(0)?.shape ?? [];
    const perm = permOf(c) ?? [];
    const scalars: Record<string, number> = {};
    perm.forEach((d, i) => {
      scalars[`out${i}`] = x[d] ?? 0;
      scalars[`stride${i}`] = product(x, d + 1);
    });
    return unaryPrepared(scalars, { rank: perm.length });
  },
  body(p): Nest {
    const rank = p.flags?.['rank'] ?? 0;
    const levels: Level[] = [];
    for (let a = 0; a < rank; a++) {
      levels.push({
        v: `o${a}`,
        to: `out${a}`,
        lets: [[`y${a}`, a === 0 ? 'o0' : `y${a - 1} * out${a} + o${a}`], [`x${a}`, a === 0 ? 'o0 * stride0' : `x${a - 1} + o${a} * stride${a}`]],
      });
    }
    return loopNest(levels, [Store('output', `y${rank - 1}`, `input[x${rank - 1}]`)]);
  },
};
