// ExpandDims and Squeeze: the output has the input's bytes under other dims. TFLM expand_dims.cc
// always copies element by element (memCopyN; the planner gives the output its own buffer) after
// Prepare checked a constant int32 axis (non-constant axis is refused) and the output dims.
// squeeze.cc memcpy's input_bytes unless input and output share memory; modelled, as for RESHAPE,
// as an element-order copy (byte order for int8).
import { For, Store } from '../nest.ts';
import type { KernelSpec, OpContext } from '../spec.ts';
import { constraint, unaryPrepared } from './common.ts';
import { constInt32s, countOf, isCopyable, sameDtype, sameShape } from './copy-common.ts';
import { TFLITE_SQUEEZE_PARAMS, stock } from '../tflm-memory.ts';

const copyBody = [For('i', '0', 'n', [Store('output', 'i', 'input[i]')])];

/** TFLM VerifyTensorDim: the output is the input with a 1 inserted at the (normalised) axis. */
function expandedShape(c: OpContext<'expandDims'>): number[] | null {
  const v = constInt32s(c.input(1));
  const x = c.input(0)?.shape;
  if (v === null || v.length !== 1 || x === undefined) return null;
  const a = (v[0] ?? 0) < 0 ? x.length + 1 + (v[0] ?? 0) : (v[0] ?? 0);
  return a >= 0 && a <= x.length ? [...x.slice(0, a), 1, ...x.slice(a)] : null;
}

export const expandDimsSpec: KernelSpec<'expandDims'> = {
  kind: 'expandDims',
  // ParseExpandDims allocates nothing; expand_dims.cc has no Init.
  tflmPersistent: stock(null, null),
  constraints: [
    constraint('expandDims.types', 'input and output must have the same dtype, int8 or int16 (TFLM copies no int32)', (c) =>
      ['int8', 'int16'].includes(c.input(0)?.dtype ?? '') && sameDtype(c.input(0), c.output(0))),
    constraint('expandDims.axis', 'axis must be a constant int32 tensor of one element in [-rank-1, rank] (TFLM: non-constant axis is not supported)', (c) => expandedShape(c) !== null),
    constraint('expandDims.output-shape', 'output dims must be the input dims with a 1 inserted at axis', (c) => {
      const want = expandedShape(c);
      return want === null || sameShape(want, c.output(0).shape);
    }),
  ],
  prepare: (c) => unaryPrepared({ n: countOf(c.input(0)) }),
  body: copyBody,
};

/** Output dims of TFLM squeeze.cc: the listed dims (each of size 1) removed, or every 1 when none. */
function squeezedShape(c: OpContext<'squeeze'>): number[] | null {
  const x = c.input(0)?.shape ?? [];
  const dims = new Set<number>();
  for (const d of c.op.options.squeezeDims) {
    const a = d < 0 ? d + x.length : d;
    if (a < 0 || a >= x.length || x[a] !== 1) return null;
    dims.add(a);
  }
  return x.filter((d, i) => (dims.size === 0 ? d !== 1 : !dims.has(i)));
}

export const squeezeSpec: KernelSpec<'squeeze'> = {
  kind: 'squeeze',
  tflmPersistent: stock(TFLITE_SQUEEZE_PARAMS, null),
  constraints: [
    constraint('squeeze.types', 'input and output must have the same dtype (int8, int16 or int32)', (c) => isCopyable(c.input(0)) && sameDtype(c.input(0), c.output(0))),
    constraint('squeeze.rank', 'input rank must be at most 8', (c) => (c.input(0)?.shape.length ?? 0) <= 8),
    constraint('squeeze.dims', 'squeeze dims must lie in [-rank, rank) and name dims of size 1; the output must be the input without them', (c) =>
      sameShape(squeezedShape(c) ?? [-1], c.output(0).shape)),
  ],
  prepare: (c) => unaryPrepared({ n: countOf(c.input(0)) }),
  body: copyBody,
};
