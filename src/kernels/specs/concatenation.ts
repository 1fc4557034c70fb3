// Concatenation: TFLM reference_ops::Concatenation (reference/concatenation.h): for every outer
// index k, each input in turn memcpy's its `dim(axis) * inner` slab to the running output pointer.
// Prepare follows concatenation.cc: activation NONE, rank <= 4, at most 10 inputs, and for int8
// every input's scale and zero point must equal the output's (TFLM never requantizes here).
import type { Nest } from '../nest.ts';
import { For, Let, Store } from '../nest.ts';
import type { BufferRef, KernelSpec, OpContext } from '../spec.ts';
import { constraint, scaleOf, zeroPointOf } from './common.ts';
import { isCopyable, normalizeAxis, product, sameDtype } from './copy-common.ts';
import { OP_DATA_CONCATENATION, TFLITE_CONCATENATION_PARAMS, stock } from '../tflm-memory.ts';

const MAX_INPUTS = 10;

type Ctx = OpContext<'concatenation'>;
const inputsOf = (c: Ctx): ReturnType<Ctx['input']>[] => c.op.inputs.map((_, i) => c.input(i));
const axisOf = (c: Ctx): number | null => normalizeAxis(c.op.options.axis, c.output(0).shape.length);

export const concatenationSpec: KernelSpec<'concatenation'> = {
  kind: 'concatenation',
  tflmPersistent: stock(TFLITE_CONCATENATION_PARAMS, OP_DATA_CONCATENATION),
  constraints: [
    constraint('concatenation.inputs', `needs 1 to ${MAX_INPUTS} inputs`, (c) => c.op.inputs.length >= 1 && c.op.inputs.length <= MAX_INPUTS),
    constraint('concatenation.types', 'inputs and output must share one dtype (int8, int16 or int32)', (c) =>
      isCopyable(c.output(0)) && inputsOf(c).every((t) => sameDtype(t, c.output(0)))),
    constraint('concatenation.activation', 'fused activation must be none', (c) => c.op.options.activation === 'none'),
    constraint('concatenation.axis', 'axis must lie in [-rank, rank) of the output', (c) => axisOf(c) !== null),
    constraint('concatenation.rank', 'inputs and output must have the same rank, at most 4', (c) => {
      const r = c.output(0).shape.length;
      return r <= 4 && inputsOf(c).every((t) => t !== null && t.shape.length === r);
    }),
    constraint('concatenation.shape', 'inputs must match the output on every dim but the axis, and their axis dims must add up to the output\'s', (c) => {
      const axis = axisOf(c);
      const out = c.output(0).shape;
      if (axis === null) return false;
      let sum = 0;
      for (const t of inputsOf(c)) {
        if (t === null || t.shape.some((d, k) => k !== axis && d !== out[k])) return false;
        sum += t.shape[axis] ?? 0;
      }
      return sum === out[axis];
    }),
    constraint('concatenation.qparams', 'int8 concatenation requires every input scale and zero point to equal the output\'s (TFLM does not requantize)', (c) => {
      const out = c.output(0);
      if (out.dtype !== 'int8') return true;
      return inputsOf(c).every((t) => scaleOf(t) === scaleOf(out) && zeroPointOf(t) === zeroPointOf(out));
    }),
  ],
  prepare(c) {
    const axis = axisOf(c) ?? 0;
    const out = c.output(0).shape;
    const inner = product(out, axis + 1);
    const inputs = inputsOf(c);
    const scalars: Record<string, number> = { outer: product(out, 0, axis), outRow: (out[axis] ?? 0) * inner };
    const buffers: Record<string, BufferRef> = { output: { kind: 'output', slot: 0 } };
    let offset = 0;
    inputs.forEach((t, i) => {
      const copy = (t?.shape[axis] ?? 0) * inner;
      scalars[`copy${i}`] = copy;
      scalars[`off${i}`] = offset;
      offset += copy;
      buffers[`in${i}`] = { kind: 'input', slot: i };
    });
    return { flags: { inputs: inputs.length }, scalars, arrays: {}, buffers, scratch: [] };
  },
  body(p): Nest {
    const n = p.flags?.['inputs'] ?? 0;
    const copies = Array.from({ length: n }, (_, i) =>
      For('j', '0', `copy${i}`, [Store('output', `outK + off${i} + j`, `in${i}[k * copy${i} + j]`)]));
    return [For('k', '0', 'outer', [Let('outK', 'k * outRow'), ...copies])];
  },
};
