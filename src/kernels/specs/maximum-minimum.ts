// Maximum and Minimum: TFLM maximum_minimum.cc -> reference_ops::MaximumMinimumBroadcastSlow
// (reference/maximum_minimum.h): the flat loop when the unextended shapes are equal, else the
// row-major output loop over NdArrayDesc<5> strides (rank <= 5). Raw values are compared: TFLM
// does not requantize (the converter gives inputs and output one scale).
import { Store } from '../nest.ts';
import type { KernelSpec } from '../spec.ts';
import { binaryNest, binaryPrepared, broadcastConstraint } from './broadcast.ts';
import { constraint } from './common.ts';
import { isCopyable, sameDtype } from './copy-common.ts';
import { stock } from '../tflm-memory.ts';

const MAX_RANK = 5;

function maxMinSpec<K extends 'maximum' | 'minimum'>(kind: K, prim: 'max' | 'min'): KernelSpec<K> {
  return {
    kind,
    // ParseMaximum / ParseMinimum allocate nothing; maximum_minimum.cc has no Init.
    tflmPersistent: stock(null, null),
    constraints: [
      constraint(`${kind}.types`, 'inputs and output must share one dtype (int8, int16 or int32)', (c) =>
        isCopyable(c.output(0)) && sameDtype(c.input(0), c.output(0)) && sameDtype(c.input(1), c.output(0))),
      broadcastConstraint(kind, MAX_RANK),
    ],
    prepare: (c) => binaryPrepared(c, {}),
    body: (p) => binaryNest(p.flags ?? {}, (a, b, o) => [Store('output', o, `${prim}(input1[${a}], input2[${b}])`)]),
  };
}

export const maximumSpec: KernelSpec<'maximum'> = maxMinSpec('maximum', 'max');
export const minimumSpec: KernelSpec<'minimum'> = maxMinSpec('minimum', 'min');
