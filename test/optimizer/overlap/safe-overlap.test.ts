// Safe overlap O_s by three methods on seeded random one-op graphs of every kernel kind: trace ==
// algorithmic >= analytic; the input placed at output_end - O_s runs bit-exact with a clean tracer
// report; at O_s + 1 the tracer reports a clobber (when O_s is below both buffer sizes). Plus the
// DMO paper's Table II op (float32 element size).
import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import type { BuiltinKind } from '../../../src/ir/index.ts';
import { byteSize } from '../../../src/ir/index.ts';
import { KERNELS } from '../../../src/kernels/index.ts';
import type { SingleOpSpec, OpLayout } from '../../../src/optimizer/index.ts';
import { buildSingleOpGraph, layoutOp, runLayout, safeOverlap, safeOverlapReport } from '../../../src/optimizer/index.ts';
import { Tracer } from '../../../src/sim/index.ts';
import { randomOverlapSpec as randomSpec } from '../../../src/api/index.ts';

type Rng = () => number;
const pick = <T>(rng: Rng, xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)] as T;



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

  it('algorithmic O_s is remembered per op, keyed on everything the walk reads (constant indices included)', () => {
    // Same kind, shapes and options; only the constant indices differ, and so does O_s.
    const specs = [[0, 1, 2, 3, 4, 5, 6, 7], [7, 6, 5, 4, 3, 2, 1, 0], [0, 1, 2, 3, 4, 5, 6, 7]].map((indices) => buildSingleOpGraph({ kind: 'gather', input: [8, 4, 3], indices }));
    const alg = specs.map((g) => safeOverlap(g, 0, { method: 'algorithmic' }));
    const trace = specs.map((g) => safeOverlap(g, 0, { method: 'trace' }));
    expect(alg).toEqual(trace);
    expect(alg[0]).not.toBe(alg[1]);
    expect(safeOverlap(specs[1]!, 0, { method: 'algorithmic', elementBytes: 4 })).toBe(4 * (alg[1] ?? 0));
  });

  it('the algorithmic cache key is the op alone: the same layer elsewhere in a graph shares it, other constants do not', () => {
    const walked = (g: ReturnType<typeof buildSingleOpGraph>): number => safeOverlap(g, 0, { method: 'algorithmic' });
    const a = buildSingleOpGraph({ kind: 'gather', input: [8, 4, 3], indices: [3, 1, 2, 0, 4, 5, 7, 6] });
    // The same op with an unrelated tensor in front (other tensor indices) and one with other indices.
    const shifted = { ...a, tensors: [{ ...a.tensors[0]!, name: 'unused' }, ...a.tensors], ops: a.ops.map((op) => ({ ...op, inputs: op.inputs.map((t) => (t < 0 ? t : t + 1)), outputs: op.outputs.map((t) => t + 1) })), inputs: a.inputs.map((t) => t + 1), outputs: a.outputs.map((t) => t + 1) } as typeof a;
    const other = buildSingleOpGraph({ kind: 'gather', input: [8, 4, 3], indices: [7, 6, 5, 4, 3, 2, 1, 0] });
    expect(walked(shifted)).toBe(walked(a));
    expect(walked(shifted)).toBe(safeOverlap(shifted, 0, { method: 'trace' }));
    expect(walked(other)).toBe(safeOverlap(other, 0, { method: 'trace' }));
    expect(walked(other)).not.toBe(walked(a));
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

  it('every input/output pair of pack, unpack, sub and squaredDifference: trace = algorithmic >= analytic, clean at O_s', () => {
    for (const kind of ['pack', 'unpack', 'sub', 'squaredDifference'] as const) {
      for (let i = 0; i < 12; i++) {
        const seed = `${kind}-pairs-${i}`;
        const spec = randomSpec(kind, seedrandom(seed), seed);
        const g = buildSingleOpGraph(spec);
        const op = g.ops[0]!;
        const inputs = kind === 'unpack' ? [0] : op.inputs.map((_, k) => k);
        for (const inputPosition of inputs) {
          for (const outputPosition of op.outputs.map((_, k) => k)) {
            const o = { inputPosition, outputPosition };
            const ctx = `seed ${seed} pair ${inputPosition}->${outputPosition} spec ${JSON.stringify(spec)}`;
            const alg = safeOverlap(g, 0, { ...o, method: 'algorithmic' });
            expect(safeOverlap(g, 0, { ...o, method: 'trace' }), ctx).toBe(alg);
            expect(alg, ctx).toBeGreaterThanOrEqual(safeOverlap(g, 0, { ...o, method: 'analytic' }));
            expect(tracedRun(layoutOp(g, alg, o)).tracer.violations(), ctx).toEqual([]);
          }
        }
      }
    }
  });

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
