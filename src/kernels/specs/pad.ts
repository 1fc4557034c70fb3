// Pad: TFLM reference_ops::PadImpl (reference/pad.h) walks the output in row-major order and
// writes either the pad value or the next input element. Prepare follows pad_common.cc: constant
// int32 paddings [rank, 2], rank <= 5, output dims = input + before + after; int8 pads with the
// output zero point (no constant_values input: PADV2 is not modelled), wider ints with 0.
import type { Nest } from '../nest.ts';
import { If, Store } from '../nest.ts';
import type { KernelSpec, OpContext } from '../spec.ts';
import { constraint, unaryPrepared, zeroPointOf } from './common.ts';
import type { Level } from './copy-common.ts';
import { constInt32s, isCopyable, loopNest, sameDtype } from './copy-common.ts';
import { OP_DATA_PAD, stock } from '../tflm-memory.ts';

const MAX_RANK = 5;

const paddingsOf = (c: OpContext<'pad'>): number[] | null => {
  const v = constInt32s(c.input(1));
  const r = c.input(0)?.shape.length ?? 0;
  return v !== null && v.length === 2 * r && (c.input(1)?.shape.length ?? 0) === 2 ? v : null;
};

export const padSpec: KernelSpec<'pad'> = {
  kind: 'pad',
  tflmPersistent: stock(null, OP_DATA_PAD),
  constraints: [
    constraint('pad.types', 'input and output must share one dtype (int8, int16 or int32)', (c) => isCopyable(c.input(0)) && sameDtype(c.input(0), c.output(0))),
    constraint('pad.rank', `input rank must be at most ${MAX_RANK}`, (c) => (c.input(0)?.shape.length ?? 0) <= MAX_RANK),
    constraint('pad.paddings', 'paddings must be a constant int32 tensor of shape [rank, 2] with non-negative values', (c) => {
      const v = paddingsOf(c);
      return v !== null && v.every((d) => d >= 0);
    }),
    constraint('pad.output-shape', 'output dims must be input dims plus the paddings before and after', (c) => {
      const v = paddingsOf(c) ?? [];
      const x = c.input(0)?.shape ?? [];
      const y = c.output(0).shape;
      return y.length === x.length && x.every((d, i) => y[i] === d + (v[2 * i] ?? 0) + (v[2 * i + 1] ?? 0));
    }),
  ],
  prepare(c) {
    const v = paddingsOf(c) ?? [];
    const x = c.input(0)?.shape ?? [];
    const y = c.output(0).shape;
    const scalars: Record<string, number> = { padValue: c.output(0).dtype === 'int8' ? zeroPointOf(c.output(0)) : 0 };
    let padMask = 0;
    x.forEach((d, i) => {
      const before = v[2 * i] ?? 0;
      const after = v[2 * i + 1] ?? 0;
      if (before !== 0 || after !== 0) padMask |= 1 << i;
      scalars[`in${i}`] = d;
      scalars[`out${i}`] = y[i] ?? 0;
      scalars[`lo${i}`] = before;
      scalars[`hi${i}`] = (y[i] ?? 0) - after;
    });
    return unaryPrepared(scalars, { rank: x.length, padMask });
  },
  body(p): Nest {
    const rank = p.flags?.['rank'] ?? 0;
    const mask = p.flags?.['padMask'] ?? 0;
    const levels: Level[] = [];
    const outside: string[] = [];
    for (let a = 0; a < rank; a++) {
      const outer = (name: string, dim: string): string => (a === 0 ? '' : `${name}${a - 1} * ${dim}${a} + `);
      levels.push({
        v: `o${a}`,
        to: `out${a}`,
        lets: [[`y${a}`, `${outer('y', 'out')}o${a}`], [`x${a}`, `${outer('x', 'in')}o${a} - lo${a}`]],
      });
      if (mask & (1 << a)) outside.push(`o${a} < lo${a} || o${a} >= hi${a}`);
    }
    const y = rank === 0 ? '0' : `y${rank - 1}`;
    const x = rank === 0 ? '0' : `x${rank - 1}`;
    const copy = Store('output', y, `input[${x}]`);
    return loopNest(levels, outside.length ? [If(outside.join(' || '), [Store('output', y, 'padValue')], [copy])] : [copy]);
  },
};
