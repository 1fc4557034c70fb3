// Add, int8: TFLM add.cc / add_common.cc CalculateOpDataAdd (left_shift 20, twice_max_input_scale,
// input and output multipliers via QuantizeMultiplierSmallerThanOneExp) and reference_integer_ops
// AddFunc, run by the flat ElementWise loop or, when the shapes differ, BroadcastAdd6DSlow's
// row-major output loop. MultiplyByQuantizedMultiplierSmallerThanOneExp == mbqm for shift <= 0.
import { Store, Val } from '../nest.ts';
import { quantizeMultiplier } from '../quant.ts';
import type { KernelSpec, OpContext } from '../spec.ts';
import { binaryNest, binaryPrepared, binaryQuant, binaryTypesConstraint, broadcastConstraint } from './broadcast.ts';
import { activationConstraint, constraint, scaleOf } from './common.ts';
import { OP_DATA_ADD, TFLITE_ADD_PARAMS, stock } from '../tflm-memory.ts';

/** TFLM's left_shift for int8 ADD and SUB. */
export const ADD_SUB_LEFT_SHIFT = 20;

/** The three real multipliers TFLM quantizes for ADD and SUB. */
export interface AddSubMultipliers {
  readonly in1: number;
  readonly in2: number;
  readonly out: number;
}

/** ADD (double arithmetic on float32 scales, add_common.cc). */
function realMultipliers(c: OpContext<'add'>): AddSubMultipliers {
  const s1 = scaleOf(c.input(0));
  const s2 = scaleOf(c.input(1));
  const twiceMax = 2 * Math.max(s1, s2);
  return { in1: s1 / twiceMax, in2: s2 / twiceMax, out: twiceMax / (2 ** ADD_SUB_LEFT_SHIFT * scaleOf(c.output(0))) };
}

/**
 * The int8 ADD / SUB kernel: both rescale each input to a 2^20-shifted common scale, combine
 * (`+` or `-`) and requantize; they differ only in how the real multipliers are computed, the
 * broadcast rank and what TFLM keeps persistently.
 */
export function addSubSpec<K extends 'add' | 'sub'>(
  kind: K,
  o: { readonly multipliers: (c: OpContext<K>) => AddSubMultipliers; readonly combine: '+' | '-'; readonly maxRank?: number; readonly tflmPersistent: KernelSpec<K>['tflmPersistent'] },
): KernelSpec<K> {
  // ADD and SUB share TFLite's AddOptions-shaped options (activation, pot_scale_int16).
  const same = (c: OpContext<K>): OpContext<'add'> => c as unknown as OpContext<'add'>;
  return {
    kind,
    tflmPersistent: o.tflmPersistent,
    constraints: [
      binaryTypesConstraint(kind),
      broadcastConstraint(kind, o.maxRank),
      constraint(`${kind}.multipliers`, 'scales must give input and output multipliers in (0, 1) (QuantizeMultiplierSmallerThanOneExp)', (c: OpContext<K>) => {
        const m = o.multipliers(c);
        return [m.in1, m.in2, m.out].every((x) => x > 0 && x < 1 && quantizeMultiplier(x).shift <= 0);
      }),
      activationConstraint(kind, (c) => same(c).op.options.activation),
    ],
    prepare(c) {
      const m = o.multipliers(c);
      const q1 = quantizeMultiplier(m.in1);
      const q2 = quantizeMultiplier(m.in2);
      const qo = quantizeMultiplier(m.out);
      const { offsets, act } = binaryQuant(same(c));
      return binaryPrepared(c, {
        leftShift: ADD_SUB_LEFT_SHIFT, ...offsets,
        mult1: q1.multiplier, shift1: q1.shift, mult2: q2.multiplier, shift2: q2.shift, outMult: qo.multiplier, outShift: qo.shift, ...act,
      });
    },
    body: (p) =>
      binaryNest(p.flags ?? {}, (a, b, out) => [
        Val('scaled1', `mbqm(shl(input1[${a}] + input1Offset, leftShift), mult1, shift1)`),
        Val('scaled2', `mbqm(shl(input2[${b}] + input2Offset, leftShift), mult2, shift2)`),
        Store('output', out, `clamp(mbqm(scaled1 ${o.combine} scaled2, outMult, outShift) + outputOffset, actMin, actMax)`),
      ]),
  };
}

export const addSpec: KernelSpec<'add'> = addSubSpec('add', { multipliers: realMultipliers, combine: '+', tflmPersistent: stock(TFLITE_ADD_PARAMS, OP_DATA_ADD) });
