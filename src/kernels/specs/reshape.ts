// Reshape: TFLM reshape.cc keeps the bytes and only changes dims; when the planner gives input and
// output different arena offsets, EvalReshape memcpy's input_bytes from input to output. That copy
// is modelled here as an element-order copy loop (byte order for int8, as memcpy).
import { For, Store } from '../nest.ts';
import type { KernelSpec } from '../spec.ts';
import { constraint, unaryPrepared } from './common.ts';
import { countOf, isCopyable, sameDtype } from './copy-common.ts';
import { TFLITE_RESHAPE_PARAMS, stock } from '../tflm-memory.ts';

export const reshapeSpec: KernelSpec<'reshape'> = {
  kind: 'reshape',
  tflmPersistent: stock(TFLITE_RESHAPE_PARAMS, null),
  constraints: [
    constraint('reshape.types', 'input and output must have the same dtype (int8, int16 or int32)', (c) =>
      isCopyable(c.input(0)) && sameDtype(c.input(0), c.output(0))),
    constraint('reshape.count', 'output must hold exactly the input element count', (c) => countOf(c.input(0)) === countOf(c.output(0))),
  ],
  prepare(c) {
    return unaryPrepared({ n: countOf(c.input(0)) });
  },
  body: [For('i', '0', 'n', [Store('output', 'i', 'input[i]')])],
};
