// MaxPool2D, int8: the loop order of TFLM reference_integer_ops::MaxPool (integer_ops/pooling.h):
// batch, out_y, out_x, channel, then the in-bounds filter window clipped by its start/end bounds;
// the running max starts at -128 and is clamped to the activation range.
import type { KernelSpec } from '../spec.ts';
import { poolConstraints, poolNest, preparePool } from './pool-common.ts';
import { OP_DATA_POOLING, TFLITE_POOL_PARAMS, stock } from '../tflm-memory.ts';

export const maxPool2dSpec: KernelSpec<'maxPool2d'> = {
  kind: 'maxPool2d',
  tflmPersistent: stock(TFLITE_POOL_PARAMS, OP_DATA_POOLING),
  constraints: poolConstraints('maxPool2d'),
  prepare: preparePool,
  body: poolNest({ init: '-128', update: (x) => `max(acc, ${x})`, store: 'clamp(acc, actMin, actMax)' }),
};
