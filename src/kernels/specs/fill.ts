// Fill: TFLM fill.cc. Prepare refuses a dims tensor that is not constant ("Non-constant >dims<
// tensor is not supported") and checks it equals the output shape; the value is a scalar of the
// output's type (TFLM evaluates float32, int32 and int8). reference_ops::Fill reads *value_data
// before every output element it writes.
import { For, Store } from '../nest.ts';
import type { KernelSpec } from '../spec.ts';
import { constraint, count } from './common.ts';
import { constInt32s, sameDtype, sameShape } from './copy-common.ts';
import { stock } from '../tflm-memory.ts';

const FILL_DTYPES: readonly string[] = ['int8', 'int32'];

export const fillSpec: KernelSpec<'fill'> = {
  kind: 'fill',
  // ParseFill allocates nothing; fill.cc has no Init.
  tflmPersistent: stock(null, null),
  constraints: [
    constraint('fill.dims', 'dims must be a constant int32 tensor (TFLM: non-constant dims tensor is not supported)', (c) => constInt32s(c.input(0)) !== null),
    constraint('fill.output-shape', 'output shape must equal the dims values', (c) => {
      const dims = constInt32s(c.input(0));
      return dims === null || sameShape(dims, c.output(0).shape);
    }),
    constraint('fill.value', 'value must be a scalar (rank 0) of the output dtype, int8 or int32', (c) =>
      c.input(1)?.shape.length === 0 && sameDtype(c.input(1), c.output(0)) && FILL_DTYPES.includes(c.output(0).dtype)),
  ],
  prepare(c) {
    return { scalars: { n: count(c.output(0)) }, arrays: {}, buffers: { value: { kind: 'input', slot: 1 }, output: { kind: 'output', slot: 0 } }, scratch: [] };
  },
  body: [For('i', '0', 'n', [Store('output', 'i', 'value[0]')])],
};
