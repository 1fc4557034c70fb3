// Pad as TFLM 90b983c's cmsis_nn/pad.cc runs it: int8 goes to arm_pad_s8 (CMSIS-NN 4ab83cc3) on the
// last 4 dims, int16 / int32 to reference_ops::Pad (the reference spec). arm_pad_s8 fills the output
// front to back with arm_memset_s8 blocks (pre-pad batches, rows, columns, channels) and
// arm_memcpy_s8 rows of input (a whole row when the channels are unpadded, else per pixel). On DSP
// and plain C (byte-order memcpy / memset) that is the reference kernel's order exactly: each output
// byte in turn, an input byte loaded just before its store; those paths keep the reference spec
// (test/kernels/cmsis-nn/data-ops.test.ts compares armPadNest's trace with it). On MVE the copies go
// in 16-byte vectors (16 loads, then 16 stores). A rank-5 int8 pad loses dim 0 (pad.cc passes
// dims rank-4..rank-1): refused unless dim 0 is 1 and unpadded.
import type { Tensor } from '../../../ir/index.ts';
import type { Nest } from '../../nest.ts';
import { For, If, Let } from '../../nest.ts';
import type { KernelSpec, OpContext, Prepared } from '../../spec.ts';
import { constraint } from '../common.ts';
import { constInt32s } from '../copy-common.ts';
import { extendShape } from '../broadcast.ts';
import { padSpec } from '../pad.ts';
import { memcpyS8, memsetS8 } from './block-moves.ts';
import type { CmsisNnFeatures } from './conv-family.ts';

const isInt8 = (t: Tensor | null): boolean => t?.dtype === 'int8';
const AXES = ['N', 'H', 'W', 'C'] as const;

/** arm_pad_s8's loop nest (vector copies when `f.mve`), over the scalars cmsisPadScalars gives. */
export function armPadNest(f: CmsisNnFeatures): Nest {
  const row: Nest = [
    ...memsetS8('output', 'oy', 'padValue', 'OC * pW', 'sw'),
    If('C == OC', memcpyS8(f, 'output', 'oy + OC * pW', 'input', 'iy', 'W * C', 'row'), [
      For('x', '0', 'W', [
        Let('ox', 'oy + OC * (pW + x)'),
        ...memsetS8('output', 'ox', 'padValue', 'pC', 'sc'),
        ...memcpyS8(f, 'output', 'ox + pC', 'input', 'iy + x * C', 'C', 'px'),
        ...memsetS8('output', 'ox + pC + C', 'padValue', 'qC', 'ec'),
      ]),
    ]),
    ...memsetS8('output', 'oy + OC * (pW + W)', 'padValue', 'OC * qW', 'ew'),
  ];
  return [
    ...memsetS8('output', '0', 'padValue', 'OH * OW * OC * pN', 'sn'),
    For('b', '0', 'N', [
      Let('ob', 'OH * OW * OC * (pN + b)'),
      ...memsetS8('output', 'ob', 'padValue', 'OW * OC * pH', 'sh'),
      For('y', '0', 'H', [Let('oy', 'ob + OW * OC * (pH + y)'), Let('iy', '(b * H + y) * W * C'), ...row]),
      ...memsetS8('output', 'ob + OW * OC * (pH + H)', 'padValue', 'OW * OC * qH', 'eh'),
    ]),
    ...memsetS8('output', 'OH * OW * OC * (pN + N)', 'padValue', 'OH * OW * OC * qN', 'en'),
  ];
}

/** The 4-D dims, pre (p*) and post (q*) paddings and output dims (O*) arm_pad_s8 receives. */
export function cmsisPadScalars(c: OpContext<'pad'>): Record<string, number> {
  const x = c.input(0)?.shape ?? [];
  const v = constInt32s(c.input(1)) ?? [];
  const r = x.length;
  const lead = Math.max(0, r - 4);
  const dims = extendShape(x.slice(lead), 4);
  const side = (k: 0 | 1): number[] => extendShape(x.slice(lead).map((_, a) => v[2 * (lead + a) + k] ?? 0), 4).map((d, a) => (a < 4 - (r - lead) ? 0 : d));
  const pre = side(0);
  const post = side(1);
  const s: Record<string, number> = {};
  AXES.forEach((a, k) => {
    s[a] = dims[k] ?? 1;
    s[`p${a}`] = pre[k] ?? 0;
    s[`q${a}`] = post[k] ?? 0;
    s[`O${a}`] = (dims[k] ?? 1) + (pre[k] ?? 0) + (post[k] ?? 0);
  });
  return s;
}

export function cmsisNnPadSpec(f: CmsisNnFeatures): KernelSpec<'pad'> {
  const constraints = [
    ...padSpec.constraints,
    constraint<'pad'>('pad.cmsis-nn-rank', 'a rank-5 int8 pad with CMSIS-NN kernels drops dim 0 (arm_pad_s8 takes 4 dims): dim 0 must be 1 and unpadded', (c) => {
      const x = c.input(0)?.shape ?? [];
      const v = constInt32s(c.input(1)) ?? [];
      return !isInt8(c.input(0)) || x.length <= 4 || (x[0] === 1 && v[0] === 0 && v[1] === 0);
    }),
  ];
  if (!f.mve) return { ...padSpec, constraints };
  const refBody = padSpec.body;
  return {
    ...padSpec,
    constraints,
    prepare(c): Prepared {
      const p = padSpec.prepare(c);
      if (!isInt8(c.input(0))) return p;
      return { ...p, flags: { ...p.flags, cmsis: 1 }, scalars: { ...p.scalars, ...cmsisPadScalars(c) } };
    },
    body: (p: Prepared): Nest => (p.flags?.['cmsis'] ? armPadNest(f) : typeof refBody === 'function' ? refBody(p) : refBody),
  };
}
