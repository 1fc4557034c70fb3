// TinySeg Fetching (paper §4.2.1-4.2.2, Table 1): the spilled slot `victim` (read from the storage
// device's memory-mapped region, bound as the extra input slot after the op's inputs) is
// concatenated at position `nth` with the op's inputs along `axis`, with TFLM Concatenation's loop
// order: for every outer index, each source in turn copies its `dim(axis) * inner` slab. No inputs:
// a plain fetch. The planned I/O buffer carries chunked reads (remote host, MFV decoding).
import type { Tensor } from '../../ir/index.ts';
import type { Nest } from '../nest.ts';
import { For, Let, Store } from '../nest.ts';
import type { BufferRef, KernelSpec, OpContext } from '../spec.ts';
import { constraint, scaleOf, zeroPointOf } from './common.ts';
import { isCopyable, normalizeAxis, product, sameDtype } from './copy-common.ts';
import { mcusimOnly } from '../tflm-memory.ts';
import { STORAGE_IO_SCRATCH } from './storage-io.ts';

type Ctx = OpContext<'fetching'>;
const inputsOf = (c: Ctx): (Tensor | null)[] => c.op.inputs.map((_, i) => c.input(i));
const axisOf = (c: Ctx): number | null => normalizeAxis(c.op.options.axis, c.output(0).shape.length);

/** The victim's extent along the axis: what the inputs leave of the output's. */
export function fetchedAxisDim(c: Ctx): number {
  const axis = axisOf(c);
  if (axis === null) return 0;
  return (c.output(0).shape[axis] ?? 0) - inputsOf(c).reduce((s, t) => s + (t?.shape[axis] ?? 0), 0);
}

/** Bytes of the fetched slot (victim shape = output shape with the victim's axis extent). */
export function fetchedBytes(c: Ctx): number {
  const axis = axisOf(c) ?? 0;
  const out = c.output(0);
  const bytes = out.dtype === 'int32' ? 4 : out.dtype === 'int16' ? 2 : 1;
  return product(out.shape.map((d, k) => (k === axis ? fetchedAxisDim(c) : d))) * bytes;
}

export const fetchingSpec: KernelSpec<'fetching'> = {
  kind: 'fetching',
  tflmPersistent: mcusimOnly('custom op Fetching (TinySeg): not a TFLM builtin'),
  requestsScratch: true,
  constraints: [
    constraint('fetching.arity', 'fetching has at most 9 inputs to concatenate and one output', (c) => c.op.inputs.length <= 9 && c.op.outputs.length === 1),
    constraint('fetching.types', 'inputs and output must share one dtype (int8, int16 or int32)', (c) =>
      isCopyable(c.output(0)) && inputsOf(c).every((t) => sameDtype(t, c.output(0)))),
    constraint('fetching.axis', 'axis must lie in [-rank, rank) of the output, rank at most 4', (c) => axisOf(c) !== null && c.output(0).shape.length <= 4),
    constraint('fetching.nth', 'victim position nth must lie in [0, number of inputs]', (c) => Number.isInteger(c.op.options.nth) && c.op.options.nth >= 0 && c.op.options.nth <= c.op.inputs.length),
    constraint('fetching.victim', 'victim slot must be a non-negative int32', (c) => Number.isInteger(c.op.options.victim) && c.op.options.victim >= 0 && c.op.options.victim <= 0x7fffffff),
    constraint('fetching.shape', 'inputs must match the output on every dim but the axis and leave a positive extent for the fetched tensor', (c) => {
      const axis = axisOf(c);
      const out = c.output(0).shape;
      if (axis === null) return false;
      return inputsOf(c).every((t) => t !== null && t.shape.length === out.length && t.shape.every((d, k) => k === axis || d === out[k])) && fetchedAxisDim(c) > 0;
    }),
    constraint('fetching.qparams', 'int8 inputs must share the output scale and zero point (no requantization)', (c) => {
      const out = c.output(0);
      return out.dtype !== 'int8' || inputsOf(c).every((t) => scaleOf(t) === scaleOf(out) && zeroPointOf(t) === zeroPointOf(out));
    }),
  ],
  prepare(c) {
    const axis = axisOf(c) ?? 0;
    const out = c.output(0).shape;
    const inner = product(out, axis + 1);
    const inputs = inputsOf(c);
    const nth = c.op.options.nth;
    // Sources in concatenation order: the inputs with the fetched slot inserted at nth.
    const sources: { readonly ref: BufferRef; readonly axisDim: number }[] = inputs.map((t, i) => ({ ref: { kind: 'input', slot: i }, axisDim: t?.shape[axis] ?? 0 }));
    sources.splice(nth, 0, { ref: { kind: 'input', slot: inputs.length }, axisDim: fetchedAxisDim(c) });
    const scalars: Record<string, number> = { outer: product(out, 0, axis), outRow: (out[axis] ?? 0) * inner };
    const buffers: Record<string, BufferRef> = { output: { kind: 'output', slot: 0 } };
    let offset = 0;
    sources.forEach((s, i) => {
      const copy = s.axisDim * inner;
      scalars[`copy${i}`] = copy;
      scalars[`off${i}`] = offset;
      offset += copy;
      buffers[i === nth ? 'storage' : `in${i}`] = s.ref;
    });
    return { flags: { sources: sources.length, nth }, scalars, arrays: {}, buffers, scratch: [STORAGE_IO_SCRATCH] };
  },
  body(p): Nest {
    const n = p.flags?.['sources'] ?? 0;
    const nth = p.flags?.['nth'] ?? 0;
    const copies = Array.from({ length: n }, (_, i) =>
      For('j', '0', `copy${i}`, [Store('output', `outK + off${i} + j`, `${i === nth ? 'storage' : `in${i}`}[k * copy${i} + j]`)]));
    return [For('k', '0', 'outer', [Let('outK', 'k * outRow'), ...copies])];
  },
};
