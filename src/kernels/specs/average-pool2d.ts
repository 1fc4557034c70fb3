// AveragePool2D, int8: the loop order of TFLM reference_integer_ops::AveragePool (integer_ops/
// pooling.h). The divisor is the number of in-bounds taps, and the rounding is TFLM's
// `acc > 0 ? (acc + n/2) / n : (acc - n/2) / n` with C truncating division (primitive avgRound).
import { Let } from '../nest.ts';
import type { KernelSpec } from '../spec.ts';
import { poolConstraints, poolNest, preparePool } from './pool-common.ts';
import { OP_DATA_POOLING, TFLITE_POOL_PARAMS, stock } from '../tflm-memory.ts';

export const averagePool2dSpec: KernelSpec<'averagePool2d'> = {
  kind: 'averagePool2d',
  tflmPersistent: stock(TFLITE_POOL_PARAMS, OP_DATA_POOLING),
  constraints: poolConstraints('averagePool2d'),
  prepare: preparePool,
  body: poolNest(
    { init: '0', update: (x) => `acc + ${x}`, store: 'clamp(avgRound(acc, taps), actMin, actMax)' },
    [Let('taps', '(fyEnd - fyStart) * (fxEnd - fxStart)')],
  ),
};
