// SplitV: TFLM split_v.cc, the same copy loop as Split (see split.ts) with per-output sizes. Inputs
// are (input, size_splits, axis); the output dims already hold the resolved sizes, so size_splits
// is checked against them (one -1 allowed) but not read by the kernel.
import { constInts } from '../../ir/index.ts';
import type { KernelSpec } from '../spec.ts';
import { constraint } from './common.ts';
import { prepareSplit, splitBody, splitConstraints } from './split.ts';
import { TFLITE_SPLIT_V_PARAMS, stock } from '../tflm-memory.ts';

const SLOTS = { input: 0, axis: 2 } as const;

export const splitVSpec: KernelSpec<'splitV'> = {
  kind: 'splitV',
  tflmPersistent: stock(TFLITE_SPLIT_V_PARAMS, null),
  constraints: [
    ...splitConstraints('splitV', SLOTS),
    constraint('splitV.sizes', 'size_splits must be a constant with one entry per output, equal to its axis dim (at most one -1)', (c) => {
      const sizes = constInts(c.input(1));
      const v = constInts(c.input(2));
      const x = c.input(0);
      if (sizes === null || v === null || x === null || sizes.length !== c.op.outputs.length) return false;
      const axis = (v[0] ?? 0) < 0 ? (v[0] ?? 0) + x.shape.length : (v[0] ?? 0);
      if (sizes.filter((d) => d === -1).length > 1) return false;
      return sizes.every((d, i) => d === -1 || d === c.output(i).shape[axis]);
    }),
  ],
  prepare: (c) => prepareSplit(c, SLOTS),
  body: splitBody,
};
