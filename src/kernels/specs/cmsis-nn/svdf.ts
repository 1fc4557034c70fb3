// SVDF, int8, as TFLM 90b983c's cmsis_nn/svdf.cc runs it: arm_svdf_state_s16_s8 (int16 state) or
// arm_svdf_s8 (int8), CMSIS-NN 4ab83cc3. Memory: CmsisNnOpDataSvdf (48 B like OpDataSvdf), the same
// two scratch requests, on MVE the kernel sums (num_filters x int32) persistent. Order: state memmove
// (MVE: 16-byte vectors), feature mat-vec in row groups, each group's state stores after its sums;
// time sums after a zero store; bias + rank sums written once; output (MVE: 4 at a time). Values:
// the state carries no zero point, the feature result is clamped to int16 (an int8 state wraps where
// the reference saturates), MVE's kernel sums add memory x state zp x input zp (input zp != 0).
import type { Nest } from '../../nest.ts';
import { For, If, Let, Set, Store, Val } from '../../nest.ts';
import type { KernelSpec, Prepared } from '../../spec.ts';
import { OP_DATA_SVDF, TFLITE_SVDF_PARAMS, cStruct, stock } from '../../tflm-memory.ts';
import { dim } from '../common.ts';
import { svdfSpec } from '../svdf.ts';
import type { CmsisNnFeatures } from './conv-family.ts';

/** cmsis_nn/svdf.cc CmsisNnOpDataSvdf (KERNELS_OPTIMIZED_FOR_SPEED: no scratch_weight_tensor_index). */
const CMSIS_OP_DATA_SVDF = cStruct('CmsisNnOpDataSvdf', [['reference_fields', OP_DATA_SVDF], ['kernel_sums', 'ptr']]);

const range = (n: number): number[] => Array.from({ length: n }, (_, k) => k);

/** Left shift of the state by one element: memmove (forward) or MVE's 16-byte arm_memcpy_s8. */
function shiftState(f: CmsisNnFeatures, elemBytes: number): Nest {
  if (!f.mve) return [For('i', '0', 'stateLen - 1', [Store('state', 'i', 'state[i + 1]')])];
  const per = 16 / elemBytes;
  const lane = (k: number, body: Nest): Nest => [If(`g + ${k} < stateLen - 1`, body)];
  return [For('c', '0', `(stateLen - 1 + ${per - 1}) / ${per}`, [
    Let('g', `c * ${per}`),
    ...range(per).map((k) => Val(`sv${k}`, '0')),
    ...range(per).flatMap((k) => lane(k, [Set(`sv${k}`, `state[g + 1 + ${k}]`)])),
    ...range(per).flatMap((k) => lane(k, [Store('state', `g + ${k}`, `sv${k}`)])),
  ])];
}

/** Columns of one row group (rows `rowBase + r`, r < g): the input words / vectors, then each row's. */
function groupColumns(f: CmsisNnFeatures, g: number): Nest {
  const rows = range(g);
  const w = (r: number, k: string): string => `wf[(rowBase + ${r}) * inputSize + ${k}]`;
  const mac = (r: number, x: string, wv: string): Nest => [Set(`acc${r}`, `acc${r} + (${x} - inZp) * ${wv}`, 'mac')];
  if (f.mve) {
    const lane = (k: number, body: Nest): Nest => [If(`kk + ${k} < inputSize`, body)];
    return [For('kb', '0', '(inputSize + 15) / 16', [
      Let('kk', 'kb * 16'),
      ...range(16).map((k) => Val(`x${k}`, '0')),
      ...range(16).flatMap((k) => lane(k, [Set(`x${k}`, `input[inBase + kk + ${k}]`)])),
      ...rows.flatMap((r) => range(16).flatMap((k) => lane(k, [Val(`w${r}_${k}`, w(r, `kk + ${k}`)), ...mac(r, `x${k}`, `w${r}_${k}`)]))),
    ])];
  }
  if (f.dsp) {
    return [
      For('kb', '0', 'inputSize / 4', [
        Let('kk', 'kb * 4'),
        ...range(4).map((k) => Val(`x${k}`, `input[inBase + kk + ${k}]`)),
        ...rows.flatMap((r) => [...range(4).map((k) => Val(`w${r}_${k}`, w(r, `kk + ${k}`))), ...range(4).flatMap((k) => mac(r, `x${k}`, `w${r}_${k}`))]),
      ]),
      For('k', 'inputSize - inputSize % 4', 'inputSize', [Val('xt', 'input[inBase + k]'), ...rows.flatMap((r) => [Val(`wt${r}`, w(r, 'k')), ...mac(r, 'xt', `wt${r}`)])]),
    ];
  }
  return [For('k', '0', 'inputSize', [...rows.map((r) => Val(`wt${r}`, w(r, 'k'))), Val('xt', 'input[inBase + k]'), ...rows.flatMap((r) => mac(r, 'xt', `wt${r}`))])];
}

/** The feature mat-vec of one batch: groups of `g` rows, then the leftover rows one by one. */
function feature(f: CmsisNnFeatures, g: number, value: (acc: string) => string): Nest {
  const group = (n: number): Nest => [
    ...range(n).map((r) => Val(`acc${r}`, '0')),
    ...groupColumns(f, n),
    ...range(n).map((r) => Store('state', `resBase + (rowBase + ${r}) * memory`, value(`acc${r}`))),
  ];
  return [For('b', '0', 'batches', [
    Let('inBase', 'b * inputSize'),
    Let('resBase', 'b * filters * memory + memory - 1'),
    For('gi', '0', `filters / ${g}`, [Let('rowBase', `gi * ${g}`), ...group(g)]),
    For('rowBase', `filters - filters % ${g}`, 'filters', group(1)),
  ])];
}

/** Time dot products into scratch 0 (DSP: blocks of `block` weights, then of state). */
function time(f: CmsisNnFeatures, block: number): Nest {
  const term = (j: string): Nest => [Val('tw', `wt[f * memory + ${j}]`), Val('ts', `state[sBase + ${j}]`), Set('acc', 'acc + tw * ts', 'mac')];
  const body: Nest = f.dsp && !f.mve
    ? [
      For('jb', '0', `memory / ${block}`, [
        Let('jj', `jb * ${block}`),
        ...range(block).map((k) => Val(`tw${k}`, `wt[f * memory + jj + ${k}]`)),
        ...range(block).map((k) => Val(`ts${k}`, `state[sBase + jj + ${k}]`)),
        ...range(block).map((k) => Set('acc', `acc + tw${k} * ts${k}`, 'mac')),
      ]),
      For('j', `memory - memory % ${block}`, 'memory', term('j')),
    ]
    : [For('j', '0', 'memory', term('j'))];
  return [For('b', '0', 'batches', [For('f', '0', 'filters', [
    Let('sBase', '(b * filters + f) * memory'),
    Store('scratch', 'b * filters + f', '0'),
    Val('acc', '0'),
    ...body,
    Store('scratch', 'b * filters + f', 'acc'),
  ])])];
}

/** Bias and the rank reduction into scratch 1; then the requantized output. */
function reduceAndOutput(f: CmsisNnFeatures, rankOne: boolean): Nest {
  const reduce: Nest = rankOne
    ? [For('b', '0', 'batches', [For('j', '0', 'filters', [Val('ra', 'scratch[b * filters + j]'), Store('scratchOut', 'b * filters + j', 'ra + bias[j]')])])]
    : [For('b', '0', 'batches', [For('u', '0', 'units', [
      Val('acc', 'bias[u]'),
      For('j', '0', 'rank', [Set('acc', 'acc + scratch[b * filters + u * rank + j]')]),
      Store('scratchOut', 'b * units + u', 'acc'),
    ])])];
  const out = (v: string): string => `clamp(mbqm(${v}, m2, sh2) + outZp, -128, 127)`;
  const lane = (k: number, body: Nest): Nest => [If(`g + ${k} < batches * units`, body)];
  const output: Nest = f.mve
    ? [For('c', '0', '(batches * units + 3) / 4', [
      Let('g', 'c * 4'),
      ...range(4).map((k) => Val(`o${k}`, '0')),
      ...range(4).flatMap((k) => lane(k, [Set(`o${k}`, `scratchOut[g + ${k}]`)])),
      ...range(4).flatMap((k) => lane(k, [Store('output', `g + ${k}`, out(`o${k}`))])),
    ])]
    : [For('i', '0', 'batches * units', [Store('output', 'i', out('scratchOut[i]'))])];
  return [...reduce, ...output];
}

/** arm_svdf_state_s16_s8 (flag int16 = 1) or arm_svdf_s8, on `f`'s path. */
export function armSvdfNest(f: CmsisNnFeatures, int16: boolean, rankOne: boolean): Nest {
  const g = f.mve ? (int16 ? 3 : 4) : f.dsp ? 2 : 3;
  const value = (acc: string): string => (int16 || !f.mve
    ? `clamp(mbqm(${acc}, m1, sh1), -32768, 32767)`
    : `clamp(mbqm(${acc} + kernelSumTerm, m1, sh1), -32768, 32767)`);
  return [...shiftState(f, int16 ? 2 : 1), ...feature(f, g, value), ...time(f, int16 ? 2 : 4), ...reduceAndOutput(f, rankOne)];
}

export function cmsisNnSvdfSpec(f: CmsisNnFeatures): KernelSpec<'svdf'> {
  return {
    ...svdfSpec,
    tflmPersistent: {
      ...stock(TFLITE_SVDF_PARAMS, CMSIS_OP_DATA_SVDF),
      prepareBuffers: (c) => (f.mve ? [dim(c.input(1), 0) * 4] : []),
    },
    prepare(c): Prepared {
      const p = svdfSpec.prepare(c);
      const s = p.scalars;
      // arm_vector_sum_s8(lhs_offset = -input zp, rhs_offset = -state zp): the kernel sums hold
      // (sum(w) - cols x state zp) x -input zp, i.e. -input zp x sum(w) + cols x state zp x input zp.
      const kernelSumTerm = s.inZp !== 0 ? Math.imul(Math.imul(s.inputSize ?? 0, s.stateZp ?? 0), s.inZp ?? 0) : 0;
      return { ...p, flags: { ...p.flags, int16: c.input(4)?.dtype === 'int16' ? 1 : 0, rankOne: s.rank === 1 ? 1 : 0 }, scalars: { ...s, kernelSumTerm } };
    },
    body: (p: Prepared): Nest => armSvdfNest(f, p.flags?.['int16'] === 1, p.flags?.['rankOne'] === 1),
  };
}
