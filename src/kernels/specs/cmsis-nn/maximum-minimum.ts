// Maximum and Minimum as TFLM 90b983c's cmsis_nn/maximum_minimum.cc runs them: int8 goes to
// arm_maximum_s8 / arm_minimum_s8 (CMSIS-NN 4ab83cc3) on the 4-D extended shapes, other types to
// the reference kernel (the reference spec). The C splits the output into runs: equal shapes one
// flat run, else per batch, per row, per pixel whichever level first has equal shapes or a
// one-element input; a run of two full inputs reads input 1, input 2, stores (MVE: 16-byte vectors,
// 16 + 16 loads then 16 stores); a run against a one-element input reads that element ONCE before
// the run (the reference reads it per element). Values are the reference's (max / min of raw
// bytes). Where the row level meets a one-element row of a narrower input (e.g. [1,H,1,1] against
// [1,H,W,C], H > 1) the C steps its pointer twice per row and reads past that input: refused.
import type { Tensor } from '../../../ir/index.ts';
import type { Nest } from '../../nest.ts';
import { For, If, Let, Set, Store, Val } from '../../nest.ts';
import type { KernelSpec, OpContext, Prepared } from '../../spec.ts';
import { constraint } from '../common.ts';
import { extendShape } from '../broadcast.ts';
import { maximumSpec, minimumSpec } from '../maximum-minimum.ts';
import type { CmsisNnFeatures } from './conv-family.ts';

/** The level at which arm_maximum_s8 splits the output into runs (flag `cmsis`; 0: not int8). */
export const MAX_MIN_LEVEL = { reference: 0, flat: 1, batch: 2, row: 3, pixel: 4 } as const;
/** The run kind at that level (flag `run`): two full inputs, input 1 is one element, input 2 is. */
export const MAX_MIN_RUN = { both: 0, scalar1: 1, scalar2: 2 } as const;

interface Dims4 { readonly n: number; readonly h: number; readonly w: number; readonly c: number }
const dims4 = (t: Tensor | null): Dims4 => {
  const [n = 1, h = 1, w = 1, c = 1] = extendShape(t?.shape ?? [], 4);
  return { n, h, w, c };
};

interface Plan { readonly level: number; readonly run: number; readonly scalars: Record<string, number>; readonly overread: boolean }

const runOf = (same: boolean, one1: boolean, one2: boolean): number | null =>
  same ? MAX_MIN_RUN.both : one1 ? MAX_MIN_RUN.scalar1 : one2 ? MAX_MIN_RUN.scalar2 : null;

/** arm_maximum_s8's branch structure and pointer steps for these shapes (all from dims). */
function planOf(a: Dims4, b: Dims4, o: Dims4): Plan {
  const s = (x: Dims4): number => x.n * x.h * x.w * x.c;
  const oc = Math.max(a.c, b.c);
  const base = { on: o.n, oh: o.h, ow: o.w, oc };
  const equal4 = a.n === b.n && a.h === b.h && a.w === b.w && a.c === b.c;
  if (equal4) return { level: MAX_MIN_LEVEL.flat, run: MAX_MIN_RUN.both, scalars: { ...base, len: s(a) }, overread: false };
  const top = runOf(false, s(a) === 1, s(b) === 1);
  if (top !== null) return { level: MAX_MIN_LEVEL.flat, run: top, scalars: { ...base, len: top === MAX_MIN_RUN.scalar1 ? s(b) : s(a) }, overread: false };
  const wd1 = a.w >= b.w ? 0 : a.c;
  const wd2 = b.w >= a.w ? 0 : b.c;
  const hd1 = a.h >= b.h ? wd1 : -a.w * (a.c - wd1);
  const hd2 = b.h >= a.h ? wd2 : -b.w * (b.c - wd2);
  const steps = { bd1: a.n >= b.n ? a.c * a.w * a.h : 0, bd2: b.n >= a.n ? b.c * b.w * b.h : 0 };
  const batch = runOf(a.h === b.h && a.w === b.w && a.c === b.c, a.h * a.w * a.c === 1, b.h * b.w * b.c === 1);
  if (batch !== null) {
    const len = batch === MAX_MIN_RUN.scalar1 ? b.h * b.w * b.c : a.h * a.w * a.c;
    return { level: MAX_MIN_LEVEL.batch, run: batch, scalars: { ...base, ...steps, len }, overread: false };
  }
  const row = runOf(a.w === b.w && a.c === b.c, a.w * a.c === 1, b.w * b.c === 1);
  if (row !== null) {
    // Net pointer steps over one row (the run's advance, then height_<k>_diff).
    const adv1 = row === MAX_MIN_RUN.scalar1 ? 1 : a.w * a.c;
    const adv2 = row === MAX_MIN_RUN.scalar2 ? 1 : row === MAX_MIN_RUN.both ? a.w * a.c : b.w * b.c;
    const rs1 = adv1 + hd1;
    const rs2 = adv2 + hd2;
    const len = row === MAX_MIN_RUN.scalar1 ? b.w * b.c : a.w * a.c;
    // The last row reads input k at (o.h - 1) * rs_k within its batch: past the batch's h x w x c.
    const overread = o.h > 1 && ((o.h - 1) * rs1 >= a.h * a.w * a.c || (o.h - 1) * rs2 >= b.h * b.w * b.c || rs1 < 0 || rs2 < 0);
    return { level: MAX_MIN_LEVEL.row, run: row, scalars: { ...base, ...steps, len, rs1, rs2 }, overread };
  }
  const px = runOf(a.c === b.c, a.c === 1, b.c === 1) ?? MAX_MIN_RUN.both;
  const ps1 = (px === MAX_MIN_RUN.scalar1 ? 1 : a.c) - wd1;
  const ps2 = (px === MAX_MIN_RUN.scalar2 ? 1 : px === MAX_MIN_RUN.both ? a.c : b.c) - wd2;
  const len = px === MAX_MIN_RUN.scalar1 ? b.c : a.c;
  return { level: MAX_MIN_LEVEL.pixel, run: px, scalars: { ...base, ...steps, len, ps1, ps2, rs1: o.w * ps1 + hd1, rs2: o.w * ps2 + hd2 }, overread: false };
}

const planFor = (c: Pick<OpContext, 'input' | 'output'>): Plan => planOf(dims4(c.input(0)), dims4(c.input(1)), dims4(c.output(0)));

/** One run of `len` outputs at `o` from input 1 at `p1`, input 2 at `p2` (arm_max_no_broadcast_s8 / arm_max_scalar_s8). */
function run(f: CmsisNnFeatures, kind: number, prim: string, p1: string, p2: string, o: string): Nest {
  const scalar = kind !== MAX_MIN_RUN.both;
  // arm_max_scalar_s8(scalar, vector): the C keeps the operand order of the vector run (in1 >= in2).
  const sIn = kind === MAX_MIN_RUN.scalar1 ? `input1[${p1}]` : `input2[${p2}]`;
  const vec = (i: string): string => (kind === MAX_MIN_RUN.scalar1 ? `input2[${p2} + ${i}]` : `input1[${p1} + ${i}]`);
  if (!f.mve) {
    if (!scalar) return [For('e', '0', 'len', [Val('va', `input1[${p1} + e]`), Val('vb', `input2[${p2} + e]`), Store('output', `${o} + e`, `${prim}(va, vb)`)])];
    return [Val('s', sIn), For('e', '0', 'len', [Store('output', `${o} + e`, `${prim}(s, ${vec('e')})`)])];
  }
  const lanes = Array.from({ length: 16 }, (_, k) => k);
  const lane = (k: number, body: Nest): Nest => [If(`g + ${k} < len`, body)];
  const loads = (name: string, read: (i: string) => string): Nest => [
    ...lanes.map((k) => Val(`${name}${k}`, '0')),
    ...lanes.flatMap((k) => lane(k, [Set(`${name}${k}`, read(`g + ${k}`))])),
  ];
  const vector = scalar
    ? [...loads('vb', vec), ...lanes.flatMap((k) => lane(k, [Store('output', `${o} + g + ${k}`, `${prim}(s, vb${k})`)]))]
    : [...loads('va', (i) => `input1[${p1} + ${i}]`), ...loads('vb', (i) => `input2[${p2} + ${i}]`),
      ...lanes.flatMap((k) => lane(k, [Store('output', `${o} + g + ${k}`, `${prim}(va${k}, vb${k})`)]))];
  return [...(scalar ? [Val('s', sIn)] : []), For('blk', '0', '(len + 15) / 16', [Let('g', 'blk * 16'), ...vector])];
}

function nest(f: CmsisNnFeatures, prim: string, level: number, kind: number): Nest {
  if (level === MAX_MIN_LEVEL.flat) return run(f, kind, prim, '0', '0', '0');
  const perBatch = (inner: Nest): Nest => [For('b', '0', 'on', [Let('b1', 'b * bd1'), Let('b2', 'b * bd2'), Let('bo', 'b * oh * ow * oc'), ...inner])];
  if (level === MAX_MIN_LEVEL.batch) return perBatch(run(f, kind, prim, 'b1', 'b2', 'bo'));
  const perRow = (inner: Nest): Nest => [For('y', '0', 'oh', [Let('r1', 'b1 + y * rs1'), Let('r2', 'b2 + y * rs2'), Let('ro', 'bo + y * ow * oc'), ...inner])];
  if (level === MAX_MIN_LEVEL.row) return perBatch(perRow(run(f, kind, prim, 'r1', 'r2', 'ro')));
  return perBatch(perRow([For('x', '0', 'ow', [Let('q1', 'r1 + x * ps1'), Let('q2', 'r2 + x * ps2'), Let('qo', 'ro + x * oc'), ...run(f, kind, prim, 'q1', 'q2', 'qo')])]));
}

function cmsisMaxMin<K extends 'maximum' | 'minimum'>(ref: KernelSpec<K>, prim: 'max' | 'min', f: CmsisNnFeatures): KernelSpec<K> {
  const int8 = (c: OpContext<K>): boolean => c.output(0).dtype === 'int8';
  const refBody = ref.body;
  return {
    ...ref,
    constraints: [
      ...ref.constraints,
      constraint(`${ref.kind}.cmsis-nn-rank`, 'int8 maximum / minimum with CMSIS-NN kernels takes shapes of rank <= 4 (extended to 4-D)', (c: OpContext<K>) =>
        !int8(c) || [c.input(0), c.input(1), c.output(0)].every((t) => (t?.shape.length ?? 0) <= 4)),
      constraint(`${ref.kind}.cmsis-nn-broadcast`, 'this broadcast makes arm_maximum_s8 / arm_minimum_s8 (CMSIS-NN 4ab83cc3) read past an input (a one-element row against a wider row, more than one row): unsupported', (c: OpContext<K>) =>
        !int8(c) || !planFor(c).overread),
    ],
    prepare(c: OpContext<K>): Prepared {
      const p = ref.prepare(c);
      if (!int8(c)) return p;
      const plan = planFor(c);
      return { ...p, flags: { ...p.flags, cmsis: plan.level, run: plan.run }, scalars: { ...p.scalars, ...plan.scalars } };
    },
    body(p: Prepared): Nest {
      const level = p.flags?.['cmsis'] ?? MAX_MIN_LEVEL.reference;
      if (level === MAX_MIN_LEVEL.reference) return typeof refBody === 'function' ? refBody(p) : refBody;
      return nest(f, prim, level, p.flags?.['run'] ?? MAX_MIN_RUN.both);
    },
  };
}

export function cmsisNnMaximumSpec(f: CmsisNnFeatures): KernelSpec<'maximum'> {
  return cmsisMaxMin(maximumSpec, 'max', f);
}

export function cmsisNnMinimumSpec(f: CmsisNnFeatures): KernelSpec<'minimum'> {
  return cmsisMaxMin(minimumSpec, 'min', f);
}
