// Add and Mul, int8, as TFLM's cmsis_nn/add.cc and mul.cc run them: inputs of the same (extended)
// shape go to arm_elementwise_add_s8 / arm_elementwise_mul_s8 (CMSIS-NN 4ab83cc3), broadcasting
// inputs to reference_integer_ops::BroadcastAdd4DSlow / BroadcastMul4DSlow (the reference order).
// Access order of the CMSIS-NN loops: DSP reads 4 bytes of input 1, then 4 of input 2, and writes
// the 4 results as one word (the last block_size % 4 elements one by one); MVE the same in 4-lane
// vectors, the last one predicated; plain C one element at a time (the reference order: that path
// keeps the reference spec). Values equal the reference kernel's: the DSP add shifts the 16-bit
// (input + offset) masked to 0xFFFF left by 20, which wraps to the same int32 as the signed shift;
// arm_nn_requantize equals MultiplyByQuantizedMultiplier(SmallerThanOneExp) here. Memory (OpData,
// params) is the reference kernels'.
import type { Nest } from '../../nest.ts';
import { For, If, Let, Set, Store, Val } from '../../nest.ts';
import type { KernelSpec, Prepared } from '../../spec.ts';
import { addSpec } from '../add.ts';
import { mulSpec } from '../mul.ts';
import type { CmsisNnFeatures } from './conv-family.ts';

const LANES = [0, 1, 2, 3];

/** One block of up to 4 elements from `g`: lanes k < `n` of input 1, of input 2, then the stores. */
function block(g: string, n: string | null, result: (x: string, y: string) => string): Nest {
  const lane = (k: number, body: Nest): Nest => (n === null ? body : [If(`${k} < ${n}`, body)]);
  return [
    ...LANES.map((k) => Val(`x${k}`, '0')),
    ...LANES.map((k) => Val(`y${k}`, '0')),
    ...LANES.flatMap((k) => lane(k, [Set(`x${k}`, `input1[${g} + ${k}]`)])),
    ...LANES.flatMap((k) => lane(k, [Set(`y${k}`, `input2[${g} + ${k}]`)])),
    ...LANES.flatMap((k) => lane(k, [Store('output', `${g} + ${k}`, result(`x${k}`, `y${k}`))])),
  ];
}

/** The flat loop over `n` elements in blocks of 4: DSP's tail element by element, MVE's as one predicated block. */
function blocks(f: CmsisNnFeatures, result: (x: string, y: string) => string): Nest {
  const tail: Nest = f.mve
    ? [If('n % 4 > 0', [Let('g', 'n - n % 4'), ...block('g', 'n % 4', result)])]
    : [For('i', 'n - n % 4', 'n', [Val('x', 'input1[i]'), Val('y', 'input2[i]'), Store('output', 'i', result('x', 'y'))])];
  return [For('bi', '0', 'n / 4', [Let('g', 'bi * 4'), ...block('g', null, result)]), ...tail];
}

const addResult = (x: string, y: string): string =>
  `clamp(mbqm(mbqm(shl(${x} + input1Offset, leftShift), mult1, shift1) + mbqm(shl(${y} + input2Offset, leftShift), mult2, shift2), outMult, outShift) + outputOffset, actMin, actMax)`;
const mulResult = (x: string, y: string): string =>
  `clamp(mbqm((${x} + input1Offset) * (${y} + input2Offset), mult, shift) + outputOffset, actMin, actMax)`;

function withBlocks<K extends 'add' | 'mul'>(ref: KernelSpec<K>, f: CmsisNnFeatures, result: (x: string, y: string) => string): KernelSpec<K> {
  if (!f.dsp) return ref;
  const grouped = blocks(f, result);
  const refBody = ref.body;
  return { ...ref, body: (p: Prepared) => (p.flags?.['broadcast'] ? (typeof refBody === 'function' ? refBody(p) : refBody) : grouped) };
}

export function cmsisNnAddSpec(f: CmsisNnFeatures): KernelSpec<'add'> {
  return withBlocks(addSpec, f, addResult);
}

export function cmsisNnMulSpec(f: CmsisNnFeatures): KernelSpec<'mul'> {
  return withBlocks(mulSpec, f, mulResult);
}
