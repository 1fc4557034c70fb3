// Split and the shared split machinery SplitV reuses: TFLM split.cc / split_v.cc SplitImpl. For
// every outer index k, each output in turn takes the next `dim_i(axis) * inner` elements of the
// input (sequential input pointer). The axis must be a constant int32 tensor (Prepare), negative
// values count from the back.
import type { SplitOptions, Tensor } from '../../ir/index.ts';
import type { Nest } from '../nest.ts';
import { For, Let, Store } from '../nest.ts';
import type { BufferRef, Constraint, KernelSpec, OpContext, Prepared } from '../spec.ts';
import { constraint } from './common.ts';
import { constInt32s, isCopyable, normalizeAxis, product, sameDtype } from './copy-common.ts';
import { TFLITE_SPLIT_PARAMS, stock } from '../tflm-memory.ts';

type SplitKind = 'split' | 'splitV';
/** Input slots of the data tensor and of the constant axis tensor. */
interface Slots {
  readonly input: number;
  readonly axis: number;
}

/** The part of an op context the split rules read (either split kind fits). */
type SplitCtx = Pick<OpContext, 'input' | 'output'> & { readonly op: { readonly options: SplitOptions; readonly outputs: readonly number[] } };
const outputsOf = (c: SplitCtx): Tensor[] => c.op.outputs.map((_, i) => c.output(i));
const axisOf = (c: SplitCtx, s: Slots): number | null => {
  const v = constInt32s(c.input(s.axis));
  return v === null || v.length !== 1 ? null : normalizeAxis(v[0], c.input(s.input)?.shape.length ?? 0);
};

type Rule = readonly [id: string, text: string, holds: (c: SplitCtx, s: Slots) => boolean];

const RULES: readonly Rule[] = [
  ['axis', 'axis must be a constant int32 tensor of one element in [-rank, rank)', (c, s) => axisOf(c, s) !== null],
  ['outputs', 'numSplits must be >= 1 and equal the number of outputs', (c) =>
    c.op.options.numSplits >= 1 && c.op.options.numSplits === c.op.outputs.length],
  ['types', 'input and outputs must share one dtype (int8, int16 or int32)', (c, s) =>
    isCopyable(c.input(s.input)) && outputsOf(c).every((t) => sameDtype(t, c.input(s.input)))],
  ['shape', 'outputs must match the input on every dim but the axis, and their axis dims must add up to the input\'s', (c, s) => {
    const axis = axisOf(c, s);
    const x = c.input(s.input)?.shape ?? [];
    if (axis === null) return false;
    let sum = 0;
    for (const t of outputsOf(c)) {
      if (t.shape.length !== x.length || t.shape.some((d, k) => k !== axis && d !== x[k])) return false;
      sum += t.shape[axis] ?? 0;
    }
    return sum === x[axis];
  }],
];

export function splitConstraints<K extends SplitKind>(kind: K, s: Slots): Constraint<K>[] {
  return RULES.map(([id, text, holds]) => constraint<K>(`${kind}.${id}`, text, (c: OpContext<K>) => holds(c, s)));
}

export function prepareSplit(c: SplitCtx, s: Slots): Prepared {
  const axis = axisOf(c, s) ?? 0;
  const x = c.input(s.input)?.shape ?? [];
  const inner = product(x, axis + 1);
  const scalars: Record<string, number> = { outer: product(x, 0, axis), inRow: (x[axis] ?? 0) * inner };
  const buffers: Record<string, BufferRef> = { input: { kind: 'input', slot: s.input } };
  let offset = 0;
  outputsOf(c).forEach((t, i) => {
    const copy = (t.shape[axis] ?? 0) * inner;
    scalars[`copy${i}`] = copy;
    scalars[`off${i}`] = offset;
    offset += copy;
    buffers[`out${i}`] = { kind: 'output', slot: i };
  });
  return { flags: { outputs: c.op.outputs.length }, scalars, arrays: {}, buffers, scratch: [] };
}

export function splitBody(p: Prepared): Nest {
  const n = p.flags?.['outputs'] ?? 0;
  const copies = Array.from({ length: n }, (_, i) =>
    For('j', '0', `copy${i}`, [Store(`out${i}`, `k * copy${i} + j`, `input[inK + off${i} + j]`)]));
  return [For('k', '0', 'outer', [Let('inK', 'k * inRow'), ...copies])];
}

const SPLIT_SLOTS: Slots = { axis: 0, input: 1 };

export const splitSpec: KernelSpec<'split'> = {
  kind: 'split',
  tflmPersistent: stock(TFLITE_SPLIT_PARAMS, null),
  constraints: [
    ...splitConstraints('split', SPLIT_SLOTS),
    constraint('split.equal', 'split outputs must all have the same size along the axis', (c) => {
      const axis = axisOf(c, SPLIT_SLOTS);
      const sizes = outputsOf(c).map((t) => t.shape[axis ?? 0]);
      return axis !== null && sizes.every((d) => d === sizes[0]);
    }),
  ],
  prepare: (c) => prepareSplit(c, SPLIT_SLOTS),
  body: splitBody,
};
