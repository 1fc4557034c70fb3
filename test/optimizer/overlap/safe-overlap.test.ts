// Safe overlap O_s by three methods on seeded random one-op graphs of every kernel kind: trace ==
// algorithmic >= analytic; the input placed at output_end - O_s runs bit-exact with a clean tracer
// report; at O_s + 1 the tracer reports a clobber (when O_s is below both buffer sizes). Plus the
// DMO paper's Table II op (float32 element size).
import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import type { BuiltinKind, Padding } from '../../../src/ir/index.ts';
import { byteSize } from '../../../src/ir/index.ts';
import { KERNELS } from '../../../src/kernels/index.ts';
import type { SingleOpSpec, OpLayout } from '../../../src/optimizer/index.ts';
import { buildSingleOpGraph, layoutOp, runLayout, safeOverlap, safeOverlapReport } from '../../../src/optimizer/index.ts';
import { Tracer } from '../../../src/sim/index.ts';

type Rng = () => number;
const int = (rng: Rng, lo: number, hi: number): number => lo + Math.floor(rng() * (hi - lo + 1));
const pick = <T>(rng: Rng, xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)] as T;

function shape4(rng: Rng, maxHw = 7, maxC = 5): number[] {
  return [int(rng, 1, 2), int(rng, 1, maxHw), int(rng, 1, maxHw), int(rng, 1, maxC)];
}
function shapeN(rng: Rng): number[] {
  return Array.from({ length: int(rng, 1, 4) }, () => int(rng, 1, 5));
}

/** A random valid spec of `kind` (seeded). */
function randomSpec(kind: BuiltinKind, rng: Rng, seed: string): SingleOpSpec {
  const padding: Padding = pick(rng, ['same', 'valid'] as const);
  const base = { kind, seed };
  switch (kind) {
    case 'conv2d':
    case 'depthwiseConv2d': {
      const input = shape4(rng);
      const kh = int(rng, 1, Math.min(3, padding === 'valid' ? (input[1] as number) : 3));
      const kw = int(rng, 1, Math.min(3, padding === 'valid' ? (input[2] as number) : 3));
      const dil = padding === 'same' && rng() < 0.2 ? 2 : 1;
      return { ...base, input, padding, filter: [kh, kw], stride: [int(rng, 1, 3), int(rng, 1, 3)], dilation: [dil, dil], outChannels: int(rng, 1, 5), depthMultiplier: int(rng, 1, 2) };
    }
    case 'maxPool2d':
    case 'averagePool2d': {
      const input = shape4(rng);
      const kh = int(rng, 1, padding === 'valid' ? Math.min(3, input[1] as number) : 3);
      const kw = int(rng, 1, padding === 'valid' ? Math.min(3, input[2] as number) : 3);
      return { ...base, input, padding, filter: [kh, kw], stride: [int(rng, 1, 3), int(rng, 1, 3)] };
    }
    case 'transposeConv':
      return { ...base, input: shape4(rng, 4, 3), padding, filter: [int(rng, 1, 3), int(rng, 1, 3)], stride: [int(rng, 1, 2), int(rng, 1, 2)], outChannels: int(rng, 1, 4) };
    case 'fullyConnected':
      return { ...base, input: [int(rng, 1, 3), int(rng, 1, 12)], outChannels: int(rng, 1, 8) };
    case 'add':
    case 'mul': {
      const input = shapeN(rng);
      const second = rng() < 0.3 ? input.map((d) => (rng() < 0.5 ? 1 : d)) : input;
      return { ...base, input, second };
    }
    case 'concatenation': {
      const input = shapeN(rng);
      return { ...base, input, axis: int(rng, 0, input.length - 1), second: int(rng, 1, 4) };
    }
    case 'mean':
      return { ...base, input: shape4(rng) };
    case 'pad': {
      const input = shapeN(rng);
      return { ...base, input, pads: input.flatMap(() => [int(rng, 0, 2), int(rng, 0, 2)]) };
    }
    case 'transpose': {
      const input = shapeN(rng);
      const perm = input.map((_, k) => k).sort(() => rng() - 0.5);
      return { ...base, input, perm };
    }
    case 'split':
    case 'splitV': {
      const input = shapeN(rng);
      const axis = int(rng, 0, input.length - 1);
      const dim = input[axis] as number;
      if (kind === 'split') {
        const divisors = Array.from({ length: dim }, (_, k) => k + 1).filter((d) => dim % d === 0);
        return { ...base, input, axis, splits: pick(rng, divisors) };
      }
      const sizes: number[] = [];
      let left = dim;
      while (left > 0) {
        const s = int(rng, 1, left);
        sizes.push(s);
        left -= s;
      }
      return { ...base, input, axis, splits: sizes };
    }
    case 'stridedSlice': {
      const input = shapeN(rng);
      const begin = input.map((d) => int(rng, 0, d - 1));
      const end = input.map((d, k) => int(rng, (begin[k] as number) + 1, d));
      return { ...base, input, slice: { begin, end, strides: input.map(() => int(rng, 1, 2)) } };
    }
    case 'prelu': {
      const input = shapeN(rng);
      return { ...base, input, second: input.slice(int(rng, 0, input.length - 1)).map((d) => (rng() < 0.4 ? 1 : d)) };
    }
    case 'resizeNearestNeighbor':
    case 'resizeBilinear': {
      const alignCorners = rng() < 0.4;
      const halfPixelCenters = rng() < 0.4 && !(kind === 'resizeBilinear' && alignCorners);
      return { ...base, input: shape4(rng, 6, 4), resize: { size: [int(rng, 1, 11), int(rng, 1, 11)], alignCorners, halfPixelCenters } };
    }
    default:
      return { ...base, input: shapeN(rng) };
  }
}

function tracedRun(l: OpLayout): { outputs: Uint8Array[]; tracer: Tracer } {
  const tracer = new Tracer({ graph: l.graph, tensorOffsets: l.tensorOffsets, scratchOffsets: l.scratchOffsets, arenaBytes: l.arenaBytes });
  const outputs = runLayout(l, 7, [tracer.sink]);
  tracer.finish();
  return { outputs, tracer };
}

/** Storage ops (TinySeg spill / fetch) have no single-op overlap case. */
const STORAGE_KINDS = new Set<string>(['spill', 'fetching', 'fetchingConv2d', 'merge']);
const KINDS = (Object.keys(KERNELS) as BuiltinKind[]).filter((k) => !STORAGE_KINDS.has(k));
const PER_KIND = Math.ceil(1000 / KINDS.length);

describe('safe overlap by three methods', () => {
  it('Table II op (Table I, float32): algorithmic 1204224 = trace, analytic 1193376', () => {
    const g = buildSingleOpGraph({ kind: 'depthwiseConv2d', input: [1, 112, 112, 96], filter: [3, 3], stride: [2, 2], padding: 'same' });
    const r = safeOverlapReport(g, 0, { elementBytes: 4 });
    expect(r).toEqual({ inputBytes: 4816896, outputBytes: 1204224, os: { trace: 1204224, algorithmic: 1204224, analytic: 1193376 } });
  });

  for (const kind of KINDS) {
    it(`${kind}: ${PER_KIND} random configs`, () => {
      for (let i = 0; i < PER_KIND; i++) {
        const seed = `${kind}-${i}`;
        const spec = randomSpec(kind, seedrandom(seed), seed);
        const ctx = `seed ${seed} spec ${JSON.stringify(spec)}`;
        const g = buildSingleOpGraph(spec);
        const trace = safeOverlap(g, 0, { method: 'trace' });
        const alg = safeOverlap(g, 0, { method: 'algorithmic' });
        const ana = safeOverlap(g, 0, { method: 'analytic' });
        expect(trace, ctx).toBe(alg);
        expect(alg, ctx).toBeGreaterThanOrEqual(ana);
        const disjoint = tracedRun(layoutOp(g, null));
        expect(disjoint.tracer.violations(), ctx).toEqual([]);
        const at = tracedRun(layoutOp(g, alg));
        expect(at.tracer.violations().map((v) => v.message), ctx).toEqual([]);
        expect(at.outputs, ctx).toEqual(disjoint.outputs);
        const l = layoutOp(g, null);
        const ob = byteSize(g.tensors[l.output]!.dtype, g.tensors[l.output]!.shape);
        const ib = byteSize(g.tensors[l.input]!.dtype, g.tensors[l.input]!.shape);
        if (alg < ob && alg < ib) {
          const over = tracedRun(layoutOp(g, alg + 1));
          expect(over.tracer.violationCounts().clobber, ctx).toBeGreaterThan(0);
        }
      }
    });
  }

  it('transposeConv scratch-free gather form: 60 random configs', () => {
    for (let i = 0; i < 60; i++) {
      const seed = `transposeConv-gather-${i}`;
      const plain = buildSingleOpGraph(randomSpec('transposeConv', seedrandom(seed), seed));
      const g = { ...plain, ops: plain.ops.map((o) => (o.kind === 'transposeConv' ? { ...o, options: { ...o.options, scratchFree: true } } : o)) };
      const ctx = `seed ${seed}`;
      const alg = safeOverlap(g, 0, { method: 'algorithmic' });
      expect(safeOverlap(g, 0, { method: 'trace' }), ctx).toBe(alg);
      expect(alg, ctx).toBeGreaterThanOrEqual(safeOverlap(g, 0, { method: 'analytic' }));
      const disjoint = tracedRun(layoutOp(g, null));
      const at = tracedRun(layoutOp(g, alg));
      expect(at.tracer.violations().map((v) => v.message), ctx).toEqual([]);
      expect(at.outputs, ctx).toEqual(disjoint.outputs);
      expect(at.outputs, ctx).toEqual(tracedRun(layoutOp(plain, null)).outputs);
      const l = layoutOp(g, null);
      const ob = byteSize(g.tensors[l.output]!.dtype, g.tensors[l.output]!.shape);
      const ib = byteSize(g.tensors[l.input]!.dtype, g.tensors[l.input]!.shape);
      if (alg < ob && alg < ib) expect(tracedRun(layoutOp(g, alg + 1)).tracer.violationCounts().clobber, ctx).toBeGreaterThan(0);
    }
  });

  it('element scaling multiplies exact O_s consistently (trace == algorithmic at 4 B)', () => {
    const rng = seedrandom('scale');
    for (let i = 0; i < 20; i++) {
      const spec = randomSpec(pick(rng, ['conv2d', 'depthwiseConv2d', 'maxPool2d', 'averagePool2d'] as const), rng, `scale-${i}`);
      const g = buildSingleOpGraph(spec);
      const t = safeOverlap(g, 0, { method: 'trace', elementBytes: 4 });
      expect(t, `scale-${i}`).toBe(safeOverlap(g, 0, { method: 'algorithmic', elementBytes: 4 }));
      expect(t, `scale-${i}`).toBeGreaterThanOrEqual(safeOverlap(g, 0, { method: 'analytic', elementBytes: 4 }));
    }
  });

  it('bad element size is a usage error', () => {
    const g = buildSingleOpGraph({ kind: 'relu', input: [4] });
    expect(() => safeOverlap(g, 0, { elementBytes: 0 })).toThrow(expect.objectContaining({ code: 'E_USAGE' }));
  });
});
