import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import type { BuiltinKind, DType, OpOptionsMap } from '../../src/ir/index.ts';
import { McusimError } from '../../src/ir/index.ts';
import { prepareOp } from '../../src/kernels/index.ts';
import type { ConformanceSetup } from '../../src/sim/index.ts';
import { runVectorCase, setupVectorCase } from '../../src/sim/index.ts';
import type { TensorDesc } from './replay-helpers.ts';
import { execute, hasGcc, hex, loadCases, oracleReplaySuite, runC, setupOp } from './replay-helpers.ts';

const OPS = ['PAD', 'CONCATENATION', 'RESHAPE', 'SPLIT', 'STRIDED_SLICE'] as const;

for (const op of OPS) oracleReplaySuite(op, { c: false });

// ------------------------------------------------------------- straightforward references

const count = (s: readonly number[]): number => s.reduce((a, d) => a * d, 1);
function unravel(i: number, shape: readonly number[]): number[] {
  const out = new Array<number>(shape.length).fill(0);
  for (let a = shape.length - 1; a >= 0; a--) {
    const d = shape[a] as number;
    out[a] = i % d;
    i = Math.floor(i / d);
  }
  return out;
}
const ravel = (c: readonly number[], shape: readonly number[]): number => c.reduce((acc, x, a) => acc * (shape[a] as number) + x, 0);

/** Indices visited along one axis by a strided slice (numpy-style start/stop clipping). */
function sliceIndices(size: number, begin: number, end: number, stride: number, beginMasked: boolean, endMasked: boolean, shrink: boolean): number[] {
  const clip = (v: number): number => (stride > 0 ? Math.min(Math.max(v, 0), size) : Math.min(Math.max(v, -1), size - 1));
  const b = beginMasked ? (stride > 0 ? 0 : size - 1) : clip(begin < 0 ? begin + size : begin);
  if (shrink) return [b];
  const e = endMasked ? (stride > 0 ? size : -1) : clip(end < 0 ? end + size : end);
  const out: number[] = [];
  for (let i = b; stride > 0 ? i < e : i > e; i += stride) out.push(i);
  return out;
}

// ------------------------------------------------------------- random cases

interface Case {
  readonly label: string;
  readonly setup: ConformanceSetup;
}
type Rng = seedrandom.PRNG;
const int = (rng: Rng, lo: number, hi: number): number => lo + Math.floor(rng() * (hi - lo + 1));
const shapeOf = (rng: Rng, rank: number, hi = 4): number[] => Array.from({ length: rank }, () => int(rng, 1, hi));
const values = (rng: Rng, n: number, dtype: DType): number[] =>
  Array.from({ length: n }, () => (dtype === 'int8' ? int(rng, -128, 127) : int(rng, -40000, 40000)));
const act = (rng: Rng, shape: readonly number[], dtype: DType = 'int8'): TensorDesc =>
  dtype === 'int8' ? { dtype, shape, quant: { scale: 0.01 + rng() * 0.05, zeroPoint: int(rng, -128, 127) } } : { dtype, shape };
const i32 = (shape: readonly number[], data: readonly number[]): TensorDesc => ({ dtype: 'int32', shape, data });
const pick = <T>(rng: Rng, xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)] as T;

function mk<K extends BuiltinKind>(label: string, kind: K, o: OpOptionsMap[K], ins: TensorDesc[], outs: TensorDesc[], data: number[][], exp: number[][]): Case {
  return { label, setup: setupOp(kind, o, ins, outs, data, exp) };
}

const GENERATORS: Readonly<Record<string, (rng: Rng, label: string) => Case>> = {
  pad: (rng, label) => {
    const dtype = pick<DType>(rng, ['int8', 'int8', 'int32']);
    const shape = shapeOf(rng, int(rng, 1, 5));
    const pads = shape.flatMap(() => [int(rng, 0, 2) * int(rng, 0, 1), int(rng, 0, 2)]);
    const outShape = shape.map((d, a) => d + (pads[2 * a] as number) + (pads[2 * a + 1] as number));
    const x = act(rng, shape, dtype);
    const y = { ...x, shape: outShape };
    const data = values(rng, count(shape), dtype);
    const padValue = x.quant?.zeroPoint ?? 0;
    const exp = Array.from({ length: count(outShape) }, (_, i) => {
      const c = unravel(i, outShape).map((v, a) => v - (pads[2 * a] as number));
      return c.some((v, a) => v < 0 || v >= (shape[a] as number)) ? padValue : (data[ravel(c, shape)] as number);
    });
    return mk(label, 'pad', {}, [x, i32([shape.length, 2], pads)], [y], [data], [exp]);
  },
  concatenation: (rng, label) => {
    const rank = int(rng, 1, 4);
    const axis = int(rng, -rank, rank - 1);
    const ax = axis < 0 ? axis + rank : axis;
    const base = shapeOf(rng, rank);
    const x = act(rng, base);
    const shapes = Array.from({ length: int(rng, 2, 5) }, () => base.map((d, a) => (a === ax ? int(rng, 1, 3) : d)));
    const data = shapes.map((s) => values(rng, count(s), 'int8'));
    const outShape = base.map((d, a) => (a === ax ? shapes.reduce((p, s) => p + (s[a] as number), 0) : d));
    const exp = Array.from({ length: count(outShape) }, (_, i) => {
      const c = unravel(i, outShape);
      let k = 0;
      while ((c[ax] as number) >= ((shapes[k] as number[])[ax] as number)) c[ax] = (c[ax] as number) - ((shapes[k] as number[])[ax] as number), k++;
      return (data[k] as number[])[ravel(c, shapes[k] as number[])] as number;
    });
    return mk(label, 'concatenation', { axis, activation: 'none' }, shapes.map((s) => ({ ...x, shape: s })), [{ ...x, shape: outShape }], data, [exp]);
  },
  reshape: (rng, label) => {
    const shape = shapeOf(rng, int(rng, 1, 4), 5);
    const outShape = rng() < 0.5 ? [count(shape)] : [...shape].reverse();
    const x = act(rng, shape);
    const data = values(rng, count(shape), 'int8');
    return mk(label, 'reshape', { newShape: null }, [x, i32([outShape.length], outShape)], [{ ...x, shape: outShape }], [data], [data]);
  },
  split: (rng, label) => {
    const rank = int(rng, 1, 4);
    const axis = int(rng, -rank, rank - 1);
    const ax = axis < 0 ? axis + rank : axis;
    const n = int(rng, 1, 4);
    const part = int(rng, 1, 3);
    const shape = shapeOf(rng, rank).map((d, a) => (a === ax ? n * part : d));
    return splitCase(label, rng, 'split', shape, ax, axis, new Array<number>(n).fill(part));
  },
  splitV: (rng, label) => {
    const rank = int(rng, 1, 4);
    const axis = int(rng, -rank, rank - 1);
    const ax = axis < 0 ? axis + rank : axis;
    const sizes = Array.from({ length: int(rng, 1, 4) }, () => int(rng, 1, 3));
    const shape = shapeOf(rng, rank).map((d, a) => (a === ax ? sizes.reduce((p, s) => p + s, 0) : d));
    return splitCase(label, rng, 'splitV', shape, ax, axis, sizes);
  },
  stridedSlice: (rng, label) => {
    for (;;) {
      const shape = shapeOf(rng, int(rng, 1, 4), 6);
      const strides = shape.map(() => pick(rng, [-2, -1, 1, 1, 2, 3]));
      const begin = shape.map((d) => int(rng, -d - 1, d + 1));
      const end = shape.map((d) => int(rng, -d - 1, d + 1));
      const bits = (p: number): number => shape.reduce((m, _, a) => (rng() < p ? m | (1 << a) : m), 0);
      const beginMask = bits(0.25);
      const endMask = bits(0.25);
      // Shrink only where TFLM writes the element: positive stride, begin inside the axis.
      const shrinkAxisMask = bits(0.2) & shape.reduce((m, d, a) => ((strides[a] as number) > 0 && (begin[a] as number) >= -d && (begin[a] as number) < d ? m | (1 << a) : m), 0);
      const lists = shape.map((d, a) => sliceIndices(d, begin[a] as number, end[a] as number, strides[a] as number, (beginMask >> a) & 1 ? true : false, (endMask >> a) & 1 ? true : false, ((shrinkAxisMask >> a) & 1) === 1));
      const dims = lists.map((l) => l.length);
      if (count(dims) === 0) continue;
      const outShape = dims.filter((_, a) => ((shrinkAxisMask >> a) & 1) === 0);
      const x = act(rng, shape);
      const data = values(rng, count(shape), 'int8');
      const exp = Array.from({ length: count(dims) }, (_, i) => data[ravel(unravel(i, dims).map((k, a) => (lists[a] as number[])[k] as number), shape)] as number);
      const o = { beginMask, endMask, ellipsisMask: 0, newAxisMask: 0, shrinkAxisMask, offset: false };
      const r = shape.length;
      return mk(label, 'stridedSlice', o, [x, i32([r], begin), i32([r], end), i32([r], strides)], [{ ...x, shape: outShape }], [data], [exp]);
    }
  },
  transpose: (rng, label) => {
    const dtype = pick<DType>(rng, ['int8', 'int8', 'int16']);
    const shape = shapeOf(rng, int(rng, 1, 5));
    const perm = shape.map((_, a) => a).sort(() => rng() - 0.5);
    const outShape = perm.map((p) => shape[p] as number);
    const x = act(rng, shape, dtype);
    const data = values(rng, count(shape), dtype).map((v) => (dtype === 'int16' ? Math.max(-32768, Math.min(32767, v)) : v));
    const exp = Array.from({ length: count(outShape) }, (_, i) => {
      const o = unravel(i, outShape);
      const c = new Array<number>(shape.length).fill(0);
      perm.forEach((p, a) => (c[p] = o[a] as number));
      return data[ravel(c, shape)] as number;
    });
    return mk(label, 'transpose', {}, [x, i32([perm.length], perm)], [{ ...x, shape: outShape }], [data], [exp]);
  },
};

function splitCase(label: string, rng: Rng, kind: 'split' | 'splitV', shape: number[], ax: number, axis: number, sizes: number[]): Case {
  const x = act(rng, shape);
  const data = values(rng, count(shape), 'int8');
  const outs = sizes.map((s) => shape.map((d, a) => (a === ax ? s : d)));
  let off = 0;
  const exp = outs.map((os, k) => {
    const base = off;
    off += sizes[k] as number;
    return Array.from({ length: count(os) }, (_, i) => {
      const c = unravel(i, os);
      c[ax] = (c[ax] as number) + base;
      return data[ravel(c, shape)] as number;
    });
  });
  const axisT = i32(rng() < 0.5 ? [] : [1], [axis]);
  const outDescs = outs.map((s) => ({ ...x, shape: s }));
  if (kind === 'split') return mk(label, 'split', { numSplits: sizes.length }, [axisT, x], outDescs, [data], exp);
  const given = sizes.map((s, k) => (k === 0 && rng() < 0.3 ? -1 : s));
  return mk(label, 'splitV', { numSplits: sizes.length }, [x, i32([given.length], given), axisT], outDescs, [data], exp);
}

function propertyCases(): Case[] {
  return Object.entries(GENERATORS).flatMap(([kind, gen]) =>
    Array.from({ length: 25 }, (_, i) => gen(seedrandom(`move-${kind}-${i}`), `seed move-${kind}-${i}`)));
}

describe('data-movement property cases (seeded)', () => {
  const cases = propertyCases();
  it('fast == reference == traced, walk == trace for every kind', () => {
    for (const { setup, label } of cases) {
      const r = execute(setup);
      expect(r.fast.map(hex), label).toEqual(setup.expected.map(hex));
      expect(r.traced.map(hex), label).toEqual(setup.expected.map(hex));
      expect(r.walkMatchesTrace, label).toBe(true);
    }
  });
});

function constraintIds(s: ConformanceSetup): string[] {
  try {
    prepareOp(s.graph, 0);
  } catch (e) {
    expect(e).toBeInstanceOf(McusimError);
    expect((e as McusimError).code).toBe('E_KERNEL_CONSTRAINT');
    return ((e as { issues?: { message: string }[] }).issues ?? []).map((i) => /^\[([^\]]+)\]/.exec(i.message)?.[1] ?? '');
  }
  return [];
}

describe('data-movement constraints', () => {
  const q = { scale: 0.02, zeroPoint: 1 };
  const x = (shape: number[], quant = q): TensorDesc => ({ dtype: 'int8', shape, quant });
  it('concatenation with differing int8 qparams is a constraint error, as in TFLM', () => {
    const s = setupOp('concatenation', { axis: -1, activation: 'none' }, [x([1, 2]), x([1, 3], { scale: 0.03, zeroPoint: 1 })], [x([1, 5])], [], []);
    expect(constraintIds(s)).toEqual(['concatenation.qparams']);
    const z = setupOp('concatenation', { axis: 1, activation: 'none' }, [x([1, 2]), x([1, 3], { scale: 0.02, zeroPoint: 2 })], [x([1, 5])], [], []);
    expect(constraintIds(z)).toEqual(['concatenation.qparams']);
  });
  it('strided slice rejects ellipsis and new-axis masks', () => {
    const o = { beginMask: 0, endMask: 0, ellipsisMask: 1, newAxisMask: 0, shrinkAxisMask: 0, offset: false };
    const s = setupOp('stridedSlice', o, [x([4]), i32([1], [0]), i32([1], [4]), i32([1], [1])], [x([4])], [], []);
    expect(constraintIds(s)).toContain('stridedSlice.masks');
  });
  it('non-constant index tensors and bad permutations are rejected', () => {
    const pad = setupOp('pad', {}, [x([2]), { dtype: 'int32', shape: [1, 2] }], [x([4])], [], []);
    expect(constraintIds(pad)).toContain('pad.paddings');
    const split = setupOp('split', { numSplits: 2 }, [{ dtype: 'int32', shape: [] }, x([4])], [x([2]), x([2])], [], []);
    expect(constraintIds(split)).toContain('split.axis');
    const tr = setupOp('transpose', {}, [x([2, 3]), i32([2], [0, 0])], [x([3, 2])], [], []);
    expect(constraintIds(tr)).toContain('transpose.perm');
  });
});

describe.skipIf(!hasGcc)('data-movement emitted C (one gcc batch)', () => {
  it('reproduces every 5th oracle vector and the property cases', () => {
    const vectorSetups = OPS.flatMap((op) => loadCases(op).filter((_, i) => i % 5 === 0).map(setupVectorCase));
    const setups = [...vectorSetups, ...propertyCases().map((c) => c.setup)];
    const lines = runC(setups);
    const expected = setups.flatMap((s) => s.expected.map(hex));
    expect(lines.length).toBe(expected.length);
    lines.forEach((l, i) => expect(l, `setup line ${i}`).toBe(expected[i]));
  });
});
