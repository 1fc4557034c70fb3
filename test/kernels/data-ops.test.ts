// The data-movement kernels added for issue 13 (gather, shape, pack, unpack, fill, expandDims,
// squeeze, spaceToDepth, depthToSpace, spaceToBatchNd, batchToSpaceNd) and maximum / minimum
// against straightforward references written from TensorFlow's definitions (not from TFLM's loops),
// on seeded random cases; broadcast sub / squaredDifference against the same op on the
// materialised broadcast input; and the refusals TFLM's Prepare makes, by code and constraint id.
import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import type { BuiltinKind, OpOptionsMap } from '../../src/ir/index.ts';
import { McusimError } from '../../src/ir/index.ts';
import { prepareOp } from '../../src/kernels/index.ts';
import type { TensorDesc } from './replay-helpers.ts';
import { hex, runSetup, setupOp } from './replay-helpers.ts';

const SEED = 'data-ops-1';
const CASES = 40;
type Rng = seedrandom.PRNG;
const int = (r: Rng, lo: number, hi: number): number => lo + Math.floor(r() * (hi - lo + 1));
const shapeOf = (r: Rng, rank: number, hi = 4): number[] => Array.from({ length: rank }, () => int(r, 1, hi));
const count = (s: readonly number[]): number => s.reduce((a, d) => a * d, 1);
const data8 = (r: Rng, n: number): number[] => Array.from({ length: n }, () => int(r, -128, 127));
const q = { scale: 0.02, zeroPoint: 3 };
const i8 = (shape: readonly number[]): TensorDesc => ({ dtype: 'int8', shape, quant: q });
const i32 = (shape: readonly number[], data?: readonly number[]): TensorDesc => (data ? { dtype: 'int32', shape, data } : { dtype: 'int32', shape });

function strides(s: readonly number[]): number[] {
  const st = s.map(() => 1);
  for (let k = s.length - 2; k >= 0; k--) st[k] = (st[k + 1] ?? 1) * (s[k + 1] ?? 1);
  return st;
}
function unravel(i: number, s: readonly number[]): number[] {
  const st = strides(s);
  return s.map((d, k) => Math.floor(i / (st[k] ?? 1)) % d);
}
const ravel = (c: readonly number[], s: readonly number[]): number => c.reduce((a, x, k) => a * (s[k] ?? 1) + x, 0);

/** Runs the op and checks every output against `expected` (the reference). */
function check<K extends BuiltinKind>(label: string, kind: K, o: OpOptionsMap[K], ins: TensorDesc[], outs: TensorDesc[], data: number[][], expected: number[][]): void {
  const s = setupOp(kind, o, ins, outs, data, expected);
  expect(runSetup(s).map(hex), label).toEqual(s.expected.map(hex));
}

describe(`data-movement kernels against references (seed ${SEED})`, () => {
  const r = seedrandom(SEED);

  it('gather (batch_dims 0 and 1, negative axis, 2-D indices)', () => {
    for (let n = 0; n < CASES; n++) {
      const rank = int(r, 1, 4);
      const x = shapeOf(r, rank);
      const axis = int(r, 0, rank - 1);
      const batchDims = axis > 0 && r() < 0.4 ? 1 : 0;
      const idxShape = [...x.slice(0, batchDims), ...shapeOf(r, int(r, 1, 2), 3)];
      const idx = Array.from({ length: count(idxShape) }, () => int(r, 0, (x[axis] ?? 1) - 1));
      const y = [...x.slice(0, axis), ...idxShape.slice(batchDims), ...x.slice(axis + 1)];
      const xs = data8(r, count(x));
      const out = Array.from({ length: count(y) }, (_, i) => {
        const c = unravel(i, y);
        const icoord = [...c.slice(0, batchDims), ...c.slice(axis, axis + idxShape.length - batchDims)];
        const at = idx[ravel(icoord, idxShape)] ?? 0;
        return xs[ravel([...c.slice(0, axis), at, ...c.slice(axis + idxShape.length - batchDims)], x)] ?? 0;
      });
      check(`gather #${n}`, 'gather', { axis: r() < 0.3 ? axis - rank : axis, batchDims }, [i8(x), i32(idxShape, idx)], [i8(y)], [xs], [out]);
    }
  });

  it('pack and unpack (inverse of each other on every axis)', () => {
    for (let n = 0; n < CASES; n++) {
      const x = shapeOf(r, int(r, 0, 3));
      const k = int(r, 1, 4);
      const axis = int(r, 0, x.length);
      const y = [...x.slice(0, axis), k, ...x.slice(axis)];
      const parts = Array.from({ length: k }, () => data8(r, count(x)));
      const stacked = Array.from({ length: count(y) }, (_, i) => {
        const c = unravel(i, y);
        return parts[c[axis] ?? 0]?.[ravel([...c.slice(0, axis), ...c.slice(axis + 1)], x)] ?? 0;
      });
      check(`pack #${n}`, 'pack', { valuesCount: k, axis }, parts.map(() => i8(x)), [i8(y)], parts, [stacked]);
      check(`unpack #${n}`, 'unpack', { num: k, axis: r() < 0.3 ? axis - y.length : axis }, [i8(y)], parts.map(() => i8(x)), [stacked], parts);
    }
  });

  it('shape, fill, expandDims and squeeze', () => {
    for (let n = 0; n < CASES; n++) {
      const x = shapeOf(r, int(r, 1, 5), 3).map((d) => (r() < 0.3 ? 1 : d));
      const xs = data8(r, count(x));
      check(`shape #${n}`, 'shape', { outType: 'int32' }, [i8(x)], [i32([x.length])], [xs], [x]);
      const v = int(r, -128, 127);
      check(`fill #${n}`, 'fill', {}, [i32([x.length], x), { dtype: 'int8', shape: [], quant: q }], [i8(x)], [[v]], [xs.map(() => v)]);
      const axis = int(r, 0, x.length);
      check(`expandDims #${n}`, 'expandDims', {}, [i8(x), i32([1], [axis])], [i8([...x.slice(0, axis), 1, ...x.slice(axis)])], [xs], [xs]);
      check(`squeeze #${n}`, 'squeeze', { squeezeDims: [] }, [i8(x)], [i8(x.filter((d) => d !== 1))], [xs], [xs]);
    }
  });

  it('spaceToDepth and depthToSpace (inverse of each other)', () => {
    for (let n = 0; n < CASES; n++) {
      const b = int(r, 1, 3);
      const [bn, h, w, c] = [int(r, 1, 2), int(r, 1, 3), int(r, 1, 3), int(r, 1, 3)];
      const space = [bn, h * b, w * b, c];
      const depth = [bn, h, w, c * b * b];
      const xs = data8(r, count(space));
      const ds = Array.from({ length: count(depth) }, (_, i) => {
        const [ob = 0, oy = 0, ox = 0, oc = 0] = unravel(i, depth);
        const blk = Math.floor(oc / c);
        return xs[ravel([ob, oy * b + Math.floor(blk / b), ox * b + (blk % b), oc % c], space)] ?? 0;
      });
      check(`spaceToDepth #${n}`, 'spaceToDepth', { blockSize: b }, [i8(space)], [i8(depth)], [xs], [ds]);
      check(`depthToSpace #${n}`, 'depthToSpace', { blockSize: b }, [i8(depth)], [i8(space)], [ds], [xs]);
    }
  });

  it('spaceToBatchNd (zero padding) and batchToSpaceNd (crops), 3-D and 4-D', () => {
    for (let n = 0; n < CASES; n++) {
      const four = r() < 0.7;
      const [bh, bw] = [int(r, 1, 3), four ? int(r, 1, 3) : 1];
      const [bn, c] = [int(r, 1, 2), int(r, 1, 3)];
      const [pt, pl] = [int(r, 0, 2), four ? int(r, 0, 2) : 0];
      const [h, w] = [bh * int(r, 1, 3), four ? bw * int(r, 1, 3) : 1];
      const [pb, pr] = [bh - ((h + pt) % bh || bh), four ? bw - ((w + pl) % bw || bw) : 0];
      const x = [bn, h, w, c];
      const [ph, pw] = [h + pt + pb, w + pl + pr];
      const y = [bn * bh * bw, ph / bh, pw / bw, c];
      const xs = data8(r, count(x));
      const ys = Array.from({ length: count(y) }, (_, i) => {
        const [ob = 0, oy = 0, ox = 0, oc = 0] = unravel(i, y);
        const blk = Math.floor(ob / bn);
        const [yy, xx] = [oy * bh + Math.floor(blk / bw) - pt, ox * bw + (blk % bw) - pl];
        return yy < 0 || yy >= h || xx < 0 || xx >= w ? 0 : (xs[ravel([ob % bn, yy, xx, oc], x)] ?? 0);
      });
      const drop = (s: number[]): number[] => (four ? s : [s[0] ?? 1, s[1] ?? 1, s[3] ?? 1]);
      const block = four ? [bh, bw] : [bh];
      const pads = four ? [pt, pb, pl, pr] : [pt, pb];
      const padShape = [block.length, 2];
      check(`spaceToBatchNd #${n}`, 'spaceToBatchNd', {}, [i8(drop(x)), i32([block.length], block), i32(padShape, pads)], [i8(drop(y))], [xs], [ys]);
      // Batch to space with the same block and the paddings as crops gives the input back.
      check(`batchToSpaceNd #${n}`, 'batchToSpaceNd', {}, [i8(drop(y)), i32([block.length], block), i32(padShape, pads)], [i8(drop(x))], [ys], [xs]);
    }
  });

  it('maximum and minimum with numpy broadcasting', () => {
    for (let n = 0; n < CASES; n++) {
      const y = shapeOf(r, int(r, 1, 5), 3);
      const a = y.slice(int(r, 0, y.length - 1)).map((d) => (r() < 0.3 ? 1 : d));
      const [as, bs] = r() < 0.5 ? [y, a] : [a, y];
      const [xa, xb] = [data8(r, count(as)), data8(r, count(bs))];
      const at = (s: readonly number[], xs: readonly number[], c: readonly number[]): number => {
        const off = c.length - s.length;
        return xs[ravel(s.map((d, k) => (d === 1 ? 0 : (c[k + off] ?? 0))), s)] ?? 0;
      };
      const pairs = Array.from({ length: count(y) }, (_, i) => [at(as, xa, unravel(i, y)), at(bs, xb, unravel(i, y))] as const);
      check(`maximum #${n}`, 'maximum', {}, [i8(as), i8(bs)], [i8(y)], [xa, xb], [pairs.map(([p, s]) => Math.max(p, s))]);
      check(`minimum #${n}`, 'minimum', {}, [i8(as), i8(bs)], [i8(y)], [xa, xb], [pairs.map(([p, s]) => Math.min(p, s))]);
    }
  });

  it('broadcast sub and squaredDifference equal the flat kernel on the materialised broadcast input', () => {
    for (let n = 0; n < CASES; n++) {
      const y = shapeOf(r, int(r, 1, 4), 3);
      const b = y.slice(int(r, 0, y.length - 1)).map((d) => (r() < 0.4 ? 1 : d));
      const [xa, xb] = [data8(r, count(y)), data8(r, count(b))];
      const wide = Array.from({ length: count(y) }, (_, i) => {
        const c = unravel(i, y);
        const off = y.length - b.length;
        return xb[ravel(b.map((d, k) => (d === 1 ? 0 : (c[k + off] ?? 0))), b)] ?? 0;
      });
      const qa = { scale: 0.01 + r() * 0.04, zeroPoint: int(r, -10, 10) };
      const qb = { scale: 0.01 + r() * 0.04, zeroPoint: int(r, -10, 10) };
      const qy = { scale: 0.02 + r() * 0.1, zeroPoint: int(r, -10, 10) };
      const t = (s: readonly number[], qq: typeof q): TensorDesc => ({ dtype: 'int8', shape: s, quant: qq });
      for (const kind of ['sub', 'squaredDifference'] as const) {
        const o = (kind === 'sub' ? { activation: 'none', potScaleInt16: false } : {}) as OpOptionsMap[typeof kind];
        const flat = setupOp(kind, o, [t(y, qa), t(y, qb)], [t(y, qy)], [xa, wide], [[]]);
        const want = runSetup(flat).map(hex);
        const s = setupOp(kind, o, [t(y, qa), t(b, qb)], [t(y, qy)], [xa, xb], [[]]);
        expect(runSetup(s).map(hex), `${kind} #${n}`).toEqual(want);
      }
    }
  });
});

describe('refusals TFLM makes in Prepare', () => {
  const codeAndIds = (f: () => unknown): { code: string; ids: string[] } => {
    try {
      f();
    } catch (e) {
      if (e instanceof McusimError) return { code: e.code, ids: [...e.message.matchAll(/\[([\w.-]+)\]/g)].map((m) => m[1] ?? '') };
      throw e;
    }
    return { code: 'none', ids: [] };
  };
  const value: TensorDesc = { dtype: 'int8', shape: [], quant: q };

  it('fill with a non-constant dims tensor (TFLM: "Non-constant >dims< tensor is not supported")', () => {
    const s = setupOp('fill', {}, [i32([2]), value], [i8([2, 3])], [[2, 3], [1]], [[]]);
    expect(codeAndIds(() => prepareOp(s.graph, 0))).toEqual({ code: 'E_KERNEL_CONSTRAINT', ids: ['fill.dims'] });
  });

  it('fill with a constant dims tensor is accepted', () => {
    const s = setupOp('fill', {}, [i32([2], [2, 3]), value], [i8([2, 3])], [[1]], [[]]);
    expect(() => prepareOp(s.graph, 0)).not.toThrow();
  });

  it('expandDims with a non-constant axis, gather with non-constant or out-of-range indices', () => {
    const e = setupOp('expandDims', {}, [i8([2, 3]), i32([1])], [i8([1, 2, 3])], [[], [0]], [[]]);
    expect(codeAndIds(() => prepareOp(e.graph, 0))).toEqual({ code: 'E_KERNEL_CONSTRAINT', ids: ['expandDims.axis'] });
    const g = setupOp('gather', { axis: 0, batchDims: 0 }, [i8([4, 2]), i32([2])], [i8([2, 2])], [[], [0, 1]], [[]]);
    expect(codeAndIds(() => prepareOp(g.graph, 0))).toEqual({ code: 'E_KERNEL_CONSTRAINT', ids: ['gather.indices'] });
    const o = setupOp('gather', { axis: 0, batchDims: 0 }, [i8([4, 2]), i32([2], [1, 4])], [i8([2, 2])], [[]], [[]]);
    expect(codeAndIds(() => prepareOp(o.graph, 0))).toEqual({ code: 'E_KERNEL_CONSTRAINT', ids: ['gather.indices'] });
  });

  it('dtypes TFLM does not evaluate: pack int16, gather int32, expandDims int32, spaceToDepth int16', () => {
    const t = (dtype: 'int16' | 'int32', shape: readonly number[]): TensorDesc => ({ dtype, shape });
    const p = setupOp('pack', { valuesCount: 2, axis: 0 }, [t('int16', [2]), t('int16', [2])], [t('int16', [2, 2])], [[], []], [[]]);
    expect(codeAndIds(() => prepareOp(p.graph, 0)).ids).toEqual(['pack.types']);
    const g = setupOp('gather', { axis: 0, batchDims: 0 }, [t('int32', [3]), i32([1], [0])], [t('int32', [1])], [[]], [[]]);
    expect(codeAndIds(() => prepareOp(g.graph, 0)).ids).toEqual(['gather.types']);
    const e = setupOp('expandDims', {}, [t('int32', [2]), i32([1], [0])], [t('int32', [1, 2])], [[]], [[]]);
    expect(codeAndIds(() => prepareOp(e.graph, 0)).ids).toEqual(['expandDims.types']);
    const d = setupOp('spaceToDepth', { blockSize: 1 }, [t('int16', [1, 1, 1, 1])], [t('int16', [1, 1, 1, 1])], [[]], [[]]);
    expect(codeAndIds(() => prepareOp(d.graph, 0)).ids).toEqual(['spaceToDepth.types']);
  });

  it('shape with a non-int32 output, spaceToBatchNd on float32', () => {
    const s = setupOp('shape', { outType: 'int64' }, [i8([2, 3])], [{ dtype: 'int64', shape: [2] }], [[]], [[]]);
    expect(codeAndIds(() => prepareOp(s.graph, 0)).ids).toEqual(['shape.output-type']);
    const b = setupOp('spaceToBatchNd', {}, [{ dtype: 'float32', shape: [1, 2, 2, 1] }, i32([2], [1, 1]), i32([2, 2], [0, 0, 0, 0])], [{ dtype: 'float32', shape: [1, 2, 2, 1] }], [[]], [[]]);
    expect(codeAndIds(() => prepareOp(b.graph, 0)).ids).toEqual(['spaceToBatchNd.types']);
  });
});
