import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import { ModelError } from '../../src/ir/index.ts';
import { prepareOp, primitiveFunctions, roundHalfAway, scratchRequests } from '../../src/kernels/index.ts';
import type { ConformanceSetup, VectorCase, VectorTensor } from '../../src/sim/index.ts';
import { compareOutputs, setupVectorCase } from '../../src/sim/index.ts';
import { collectTrace, hasGcc, hex, loadCases as load, runC, runSetup, walkTrace } from './replay-helpers.ts';

const OPS = ['ADD', 'MUL', 'LEAKY_RELU', 'MEAN', 'QUANTIZE', 'DEQUANTIZE'];

/** fast == traced bytes and walk == trace events, for one setup; returns the fast outputs. */
function crossCheck(s: ConformanceSetup, label: string): Uint8Array[] {
  const fast = runSetup(s);
  const t = collectTrace();
  const traced = runSetup(s, t.sink);
  expect(traced.map(hex), label).toEqual(fast.map(hex));
  const w = walkTrace(s);
  const b = t.bytes();
  expect(w.length, label).toBe(b.length);
  expect(w.equals(b), label).toBe(true);
  return fast;
}

describe.each(OPS)('%s oracle vectors', (op) => {
  const cases = load(op);

  it('fast, traced and the address walk reproduce TFLM on every case', () => {
    expect(cases.length).toBe(150);
    const failed = cases
      .map((c) => {
        const s = setupVectorCase(c);
        return compareOutputs(c, s.expected, crossCheck(s, `${op} #${c.id}`));
      })
      .filter((r) => !r.pass);
    expect(failed).toEqual([]);
  });

  it.skipIf(!hasGcc)('emitted C reproduces every 5th case', () => {
    const sub = cases.filter((_, i) => i % 5 === 0);
    const setups = sub.map(setupVectorCase);
    const lines = runC(setups);
    const expected = setups.flatMap((s) => s.expected.map(hex));
    expect(lines.length).toBe(expected.length);
    lines.forEach((l, i) => expect(l, `${op} case ${sub[i]?.id}`).toBe(expected[i]));
  });
});

describe('MEAN scratch', () => {
  it('declares the buffers TFLM requests, in request order, and uses the int32 sums', () => {
    for (const c of load('MEAN').slice(0, 20)) {
      const s = setupVectorCase(c);
      const decl = prepareOp(s.graph, 0).prepared.scratch.map((d) => d.sizeBytes);
      const op = s.graph.ops[0];
      if (op === undefined) throw new Error('no op');
      // TFLM's requests: int32 sums per output element, input rank ints, axis-count ints.
      const [input, axis, output] = [op.inputs[0]!, op.inputs[1]!, op.outputs[0]!].map((t) => s.graph.tensors[t]!);
      const count = (shape: readonly number[]): number => shape.reduce((a, b) => a * b, 1);
      expect(decl).toEqual([count(output!.shape) * 4, input!.shape.length * 4, count(axis!.shape) * 4]);
      expect(scratchRequests(s.graph, 0)).toEqual(decl);
      const t = collectTrace();
      runSetup(s, t.sink);
      const words = new Int32Array(new Uint8Array(t.bytes()).buffer);
      let scratchStores = 0;
      for (let i = 0; i < words.length; i += 2) if ((words[i] ?? 0) >> 4 === -1 && (words[i] ?? 0) & 8) scratchStores++;
      const n = s.expected[0]?.length ?? 0;
      const inputs = s.inputs[0]?.length ?? 0;
      expect(scratchStores, `MEAN #${c.id}`).toBe(n + inputs);
    }
  });
});

// ------------------------------------------------------------------ seeded property cases

type Rng = () => number;
const int = (rng: Rng, lo: number, hi: number): number => lo + Math.floor(rng() * (hi - lo + 1));
const pick = <T>(rng: Rng, xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)] as T;
const scale = (rng: Rng): number => Math.fround(0.003 * (0.1 / 0.003) ** rng());
const quant = (rng: Rng): VectorTensor['quant'] => ({ scale: [scale(rng)], zero_point: [pick(rng, [-128, 0, int(rng, -128, 127)])], quantized_dimension: 0 });
const count = (shape: readonly number[]): number => shape.reduce((a, d) => a * d, 1);
const i8data = (rng: Rng, n: number): number[] => Array.from({ length: n }, () => int(rng, -128, 127));
const tensor = (name: string, dtype: string, shape: number[], q: VectorTensor['quant'], data: number[], isConst = false): VectorTensor => ({
  name, dtype, shape, const: isConst, quant: q, data,
});
const out8 = (rng: Rng, shape: number[]): VectorTensor => tensor('output', 'int8', shape, quant(rng), new Array<number>(count(shape)).fill(0));
const ACTS = ['NONE', 'RELU', 'RELU6', 'RELU_N1_TO_1'];

function binaryCase(rng: Rng, op: 'ADD' | 'MUL', id: number): VectorCase {
  const r = int(rng, 1, 6);
  const out = Array.from({ length: r }, () => int(rng, 1, 4));
  const side = (): number[] => {
    const s = out.map((d) => (rng() < 0.3 ? 1 : d));
    return s.slice(rng() < 0.3 ? int(rng, 0, r - 1) : 0);
  };
  const a = rng() < 0.3 ? [...out] : side();
  const b = rng() < 0.3 ? [...out] : side();
  const full = out.map((d, k) => Math.max(a[k - (r - a.length)] ?? 1, b[k - (r - b.length)] ?? 1));
  return {
    op, id, options: { fused_activation: pick(rng, ACTS) },
    inputs: [tensor('input1', 'int8', a, quant(rng), i8data(rng, count(a))), tensor('input2', 'int8', b, quant(rng), i8data(rng, count(b)))],
    outputs: [out8(rng, full)],
  };
}

function meanCase(rng: Rng, id: number): VectorCase {
  const r = int(rng, 1, 5);
  const shape = Array.from({ length: r }, () => int(rng, 1, 6));
  const axes = rng() < 0.1 ? [] : Array.from({ length: int(rng, 1, r) }, () => int(rng, -r, r - 1));
  const resolved = new Set(axes.map((x) => (x < 0 ? x + r : x)));
  const keep = rng() < 0.5;
  const outShape = axes.length === 0 ? [...shape] : shape.flatMap((d, k) => (resolved.has(k) ? (keep ? [1] : []) : [d]));
  return {
    op: 'MEAN', id, options: { keep_dims: keep },
    inputs: [tensor('input', 'int8', shape, quant(rng), i8data(rng, count(shape))), tensor('axis', 'int32', [axes.length], null, axes, true)],
    outputs: [out8(rng, outShape)],
  };
}

function unaryCase(rng: Rng, op: 'LEAKY_RELU' | 'QUANTIZE' | 'DEQUANTIZE', id: number): VectorCase {
  const shape = Array.from({ length: int(rng, 1, 4) }, () => int(rng, 1, 7));
  const n = count(shape);
  if (op === 'DEQUANTIZE') {
    return { op, id, options: {}, inputs: [tensor('input', 'int8', shape, quant(rng), i8data(rng, n))], outputs: [tensor('output', 'float32', shape, null, new Array<number>(n).fill(0))] };
  }
  const output = out8(rng, shape);
  if (op === 'QUANTIZE' && rng() < 0.6) {
    const s = output.quant?.scale[0] ?? 1;
    // Exact ties (k + 0.5) * scale, huge values, and plain random floats.
    const data = Array.from({ length: n }, () => Math.fround(rng() < 0.3 ? (int(rng, -300, 300) + 0.5) * s : rng() < 0.1 ? (rng() - 0.5) * 1e12 : (rng() - 0.5) * 300 * s));
    return { op, id, options: {}, inputs: [tensor('input', 'float32', shape, null, data)], outputs: [output] };
  }
  const options = op === 'LEAKY_RELU' ? { alpha: Math.fround(pick(rng, [0, 0.1, 0.2, -0.5, 1.5, rng() * 2 - 0.5])) } : {};
  return { op, id, options, inputs: [tensor('input', 'int8', shape, quant(rng), i8data(rng, n))], outputs: [output] };
}

describe('seeded property cases beyond the vectors (fast == traced == C, walk == trace)', () => {
  const seed = 'elementwise-props-1';
  const rng = seedrandom(seed);
  const cases: VectorCase[] = [];
  for (let i = 0; i < 40; i++) {
    cases.push(binaryCase(rng, 'ADD', i), binaryCase(rng, 'MUL', i), meanCase(rng, i));
    cases.push(unaryCase(rng, 'LEAKY_RELU', i), unaryCase(rng, 'QUANTIZE', i), unaryCase(rng, 'DEQUANTIZE', i));
  }

  it(`traced and walk agree with fast (seed ${seed})`, () => {
    cases.map(setupVectorCase).forEach((s, i) => crossCheck(s, `seed ${seed} ${cases[i]?.op} #${cases[i]?.id}`));
  });

  it.skipIf(!hasGcc)(`emitted C equals the fast executor (seed ${seed})`, () => {
    const setups = cases.map(setupVectorCase);
    const lines = runC(setups);
    const expected = setups.flatMap((s) => runSetup(s).map(hex));
    expect(lines.length).toBe(expected.length);
    lines.forEach((l, i) => expect(l, `seed ${seed} output ${i} (${cases[i]?.op} #${cases[i]?.id})`).toBe(expected[i]));
  });
});

describe('constraints', () => {
  const rng = seedrandom('elementwise-constraints-1');
  const failure = (c: VectorCase): { code: string; ids: string[] } => {
    try {
      prepareOp(setupVectorCase(c).graph, 0);
    } catch (e) {
      if (!(e instanceof ModelError)) throw e;
      return { code: e.code, ids: e.issues.map((i) => /\[([^\]]+)\]/.exec(i.message)?.[1] ?? '') };
    }
    return { code: 'none', ids: [] };
  };

  it('reject non-broadcastable shapes, bad axes and wrong dtypes with coded issues', () => {
    const add = binaryCase(rng, 'ADD', 0);
    const bad = { ...add, inputs: [{ ...add.inputs[0]!, shape: [3], data: [1, 2, 3] }, { ...add.inputs[1]!, shape: [2], data: [1, 2] }] };
    expect(failure(bad)).toEqual({ code: 'E_KERNEL_CONSTRAINT', ids: ['add.broadcast'] });
    const mean = meanCase(rng, 0);
    const axis = { ...mean.inputs[1]!, shape: [1], data: [7] };
    expect(failure({ ...mean, inputs: [mean.inputs[0]!, axis] }).ids).toContain('mean.axis');
    const deq = unaryCase(rng, 'DEQUANTIZE', 0);
    expect(failure({ ...deq, outputs: [{ ...deq.outputs[0]!, dtype: 'int8' }] }).ids).toEqual(['dequantize.types']);
  });
});

describe('float32 primitives', () => {
  const P = primitiveFunctions();
  const fromBits = P['f32FromBits'] as (b: number) => number;
  const quantizeF32 = P['quantizeF32'] as (v: number, sb: number) => number;
  const seed = 'f32-prims-1';
  const rng = seedrandom(seed);
  const bitsOf = (x: number): number => new Int32Array(new Float32Array([x]).buffer)[0] ?? 0;
  const floatOf = (b: number): number => new Float32Array(new Int32Array([b]).buffer)[0] ?? NaN;

  it(`f32FromBits decodes every class of binary32 (seed ${seed})`, () => {
    const special = [0, -2147483648, 1, 8388607, 8388608, 2139095040, -8388608, 2139095041, 2139095039];
    for (const b of [...special, ...Array.from({ length: 5000 }, () => Math.floor(rng() * 2 ** 32) - 2 ** 31)]) {
      expect(Object.is(fromBits(b), floatOf(b)) || (Number.isNaN(fromBits(b)) && Number.isNaN(floatOf(b))), `bits ${b}`).toBe(true);
    }
  });

  it(`quantizeF32 is round-half-away of the float32 quotient (seed ${seed})`, () => {
    for (let i = 0; i < 5000; i++) {
      const s = Math.fround(0.001 + rng());
      const v = Math.fround(rng() < 0.5 ? (Math.floor(rng() * 600) - 300 + 0.5) * s : (rng() - 0.5) * 1000);
      const q = Math.fround(v / s);
      expect(quantizeF32(v, bitsOf(s)), `v=${v} s=${s}`).toBe(roundHalfAway(q));
    }
    expect(quantizeF32(Math.fround(3e38), bitsOf(Math.fround(1e-3)))).toBe(2 ** 30);
    expect(quantizeF32(NaN, bitsOf(1))).toBe(0);
  });
});
