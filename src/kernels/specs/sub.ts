// Sub, int8: TFLM sub_common.cc CalculateOpDataSub (left_shift 20; unlike ADD, twice_max_input_scale
// and the three real multipliers are computed in float32 and only then widened to double) and
// reference_ops SubElementwise, or BroadcastQuantSubSlow's row-major output loop when the shapes
// differ. MultiplyByQuantizedMultiplierSmallerThanOneExp == mbqm for shift <= 0.
import type { KernelSpec, OpContext } from '../spec.ts';
import { scaleOf } from './common.ts';
import { OP_DATA_SUB, TFLITE_SUB_PARAMS, stock } from '../tflm-memory.ts';
import type { AddSubMultipliers } from './add.ts';
import { ADD_SUB_LEFT_SHIFT, addSubSpec } from './add.ts';

/** BroadcastQuantSubSlow's NdArrayDesc<5>. */
const MAX_RANK = 5;

/** The three real multipliers as TFLM computes them (float32 arithmetic, then double). */
function realMultipliers(c: OpContext<'sub'>): AddSubMultipliers {
  const s1 = scaleOf(c.input(0));
  const s2 = scaleOf(c.input(1));
  const twiceMax = Math.fround(2 * Math.max(s1, s2));
  return {
    in1: Math.fround(s1 / twiceMax),
    in2: Math.fround(s2 / twiceMax),
    out: Math.fround(twiceMax / Math.fround(2 ** ADD_SUB_LEFT_SHIFT * scaleOf(c.output(0)))),
  };
}

export const subSpec: KernelSpec<'sub'> = addSubSpec('sub', { multipliers: realMultipliers, combine: '-', maxRank: MAX_RANK, tflmPersistent: stock(TFLITE_SUB_PARAMS, OP_DATA_SUB) });
