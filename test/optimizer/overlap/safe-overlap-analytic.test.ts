// Analytic O_s (DMO paper §III-D) against a brute-force oracle written here only: walk each
// TFLM reference loop nest's reads of the input and writes of the output in order and apply the
// minR/maxW definition at byte granularity. Also the paper's Table II number.
import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import { DTYPE_BYTES, convOutputSize, convPadding } from '../../../src/ir/index.ts';
import type { DType, Graph, Op, Tensor } from '../../../src/ir/index.ts';
import { analyticSafeOverlap, primaryInputPosition } from '../../../src/optimizer/overlap/index.ts';

type Rng = () => number;
const int = (rng: Rng, lo: number, hi: number): number => lo + Math.floor(rng() * (hi - lo + 1));

function act(name: string, shape: number[], dtype: DType = 'int8'): Tensor {
  return { name, dtype, shape, quant: null, data: null, isVariable: false };
}
function ints(name: string, values: number[]): Tensor {
  const data = new Uint8Array(values.length * 4);
  const view = new DataView(data.buffer);
  values.forEach((v, i) => view.setInt32(i * 4, v, true));
  return { name, dtype: 'int32', shape: [values.length], quant: null, data, isVariable: false };
}
function strides(shape: readonly number[]): number[] {
  const s = shape.map(() => 1);
  for (let d = shape.length - 2; d >= 0; d--) s[d] = (s[d + 1] ?? 1) * (shape[d + 1] ?? 1);
  return s;
}
function count(shape: readonly number[]): number {
  return shape.reduce((a, b) => a * b, 1);
}
/** All index tuples of `shape` in row-major order. */
function* tuples(shape: readonly number[]): Generator<number[]> {
  const n = count(shape);
  for (let i = 0; i < n; i++) {
    let r = i;
    const t = shape.map(() => 0);
    for (let d = shape.length - 1; d >= 0; d--) {
      const s = shape[d] ?? 1;
      t[d] = r % s;
      r = Math.floor(r / s);
    }
    yield t;
  }
}

/** minR/maxW at byte granularity: O_s = OB + min over reads after writes of (ti*r - maxWriteEnd). */
class Oracle {
  private maxWriteEnd = -1;
  private minDiff = Infinity;
  constructor(
    private readonly ti: number,
    private readonly to: number,
  ) {}
  read(r: number): void {
    if (this.maxWriteEnd >= 0) this.minDiff = Math.min(this.minDiff, this.ti * r - this.maxWriteEnd);
  }
  write(w: number): void {
    this.maxWriteEnd = Math.max(this.maxWriteEnd, this.to * (w + 1));
  }
  result(ob: number): number {
    return Math.max(0, Math.min(ob, ob + Math.min(0, this.minDiff)));
  }
}

interface Case {
  readonly graph: Graph;
  readonly op: Op;
  readonly inputPosition: number;
  readonly outputPosition?: number;
  /** Walks the reference loop nest, reporting reads of that input and writes of output 0. */
  readonly walk: (o: Oracle) => void;
}

function graphOf(tensors: Tensor[], op: Op): Graph {
  return { name: 't', tensors, ops: [op], inputs: [0], outputs: op.outputs.slice() };
}

function windowCase(rng: Rng, kind: 'conv2d' | 'depthwiseConv2d' | 'maxPool2d'): Case {
  const [b, ih, iw, ic] = [int(rng, 1, 2), int(rng, 1, 9), int(rng, 1, 9), int(rng, 1, 4)];
  const [fh, fw] = [int(rng, 1, 4), int(rng, 1, 4)];
  const [sh, sw] = [int(rng, 1, 3), int(rng, 1, 3)];
  const [dh, dw] = kind === 'maxPool2d' ? [1, 1] : [int(rng, 1, 2), int(rng, 1, 2)];
  const padding = rng() < 0.5 ? 'same' : 'valid';
  const oh = Math.max(1, convOutputSize(padding, ih, fh, sh, dh));
  const ow = Math.max(1, convOutputSize(padding, iw, fw, sw, dw));
  const m = kind === 'depthwiseConv2d' ? int(rng, 1, 3) : 1;
  const oc = kind === 'conv2d' ? int(rng, 1, 5) : ic * m;
  const ph = convPadding(sh, dh, ih, fh, oh).before;
  const pw = convPadding(sw, dw, iw, fw, ow).before;
  const tensors = [act('in', [b, ih, iw, ic]), act('f', [kind === 'depthwiseConv2d' ? 1 : oc, fh, fw, kind === 'depthwiseConv2d' ? oc : ic]), act('out', [b, oh, ow, oc])];
  const conv = { padding, strideH: sh, strideW: sw, dilationH: dh, dilationW: dw, activation: 'none' } as const;
  const op: Op =
    kind === 'conv2d'
      ? { kind, inputs: [0, 1, -1], outputs: [2], options: conv }
      : kind === 'depthwiseConv2d'
        ? { kind, inputs: [0, 1, -1], outputs: [2], options: { ...conv, depthMultiplier: m } }
        : { kind, inputs: [0], outputs: [2], options: { padding, strideH: sh, strideW: sw, filterH: fh, filterW: fw, activation: 'none' } };
  const inIdx = (bb: number, y: number, x: number, c: number): number => ((bb * ih + y) * iw + x) * ic + c;
  const window = (o: Oracle, bb: number, y: number, x: number, c: number | null): void => {
    for (let ky = 0; ky < fh; ky++) {
      for (let kx = 0; kx < fw; kx++) {
        const iy = y * sh - ph + ky * dh;
        const ix = x * sw - pw + kx * dw;
        if (iy < 0 || iy >= ih || ix < 0 || ix >= iw) continue;
        if (c === null) for (let cc = 0; cc < ic; cc++) o.read(inIdx(bb, iy, ix, cc));
        else o.read(inIdx(bb, iy, ix, c));
      }
    }
  };
  const walk = (o: Oracle): void => {
    let w = 0;
    for (let bb = 0; bb < b; bb++)
      for (let y = 0; y < oh; y++)
        for (let x = 0; x < ow; x++) {
          if (kind === 'depthwiseConv2d') {
            for (let c = 0; c < ic; c++) for (let mm = 0; mm < m; mm++) (window(o, bb, y, x, c), o.write(w++));
          } else {
            for (let c = 0; c < oc; c++) (window(o, bb, y, x, kind === 'conv2d' ? null : c), o.write(w++));
          }
        }
  };
  return { graph: graphOf(tensors, op), op, inputPosition: 0, walk };
}

function outputOrdered(n: number, read: (w: number) => number | null): (o: Oracle) => void {
  return (o) => {
    for (let w = 0; w < n; w++) {
      const r = read(w);
      if (r !== null) o.read(r);
      o.write(w);
    }
  };
}

function randomShape(rng: Rng, rank: number, max = 4): number[] {
  return Array.from({ length: rank }, () => int(rng, 1, max));
}

function miscCase(rng: Rng, kind: string): Case {
  const rank = int(rng, 1, 4);
  const shape = randomShape(rng, rank);
  const n = count(shape);
  switch (kind) {
    case 'fullyConnected': {
      const [b, d, u] = [int(rng, 1, 3), int(rng, 1, 6), int(rng, 1, 6)];
      const op: Op = { kind, inputs: [0, 1, -1], outputs: [2], options: { activation: 'none', weightsFormat: 'default', keepNumDims: false, asymmetricQuantizeInputs: false } };
      const walk = (o: Oracle): void => {
        for (let bb = 0; bb < b; bb++) for (let uu = 0; uu < u; uu++) {
          for (let dd = 0; dd < d; dd++) o.read(bb * d + dd);
          o.write(bb * u + uu);
        }
      };
      return { graph: graphOf([act('in', [b, d]), act('w', [u, d]), act('out', [b, u])], op), op, inputPosition: 0, walk };
    }
    case 'concatenation': {
      const axis = int(rng, 0, rank - 1);
      const k = int(rng, 1, 3);
      const ins = Array.from({ length: k }, () => shape.map((s, d) => (d === axis ? int(rng, 1, 3) : s)));
      const out = shape.map((s, d) => (d === axis ? ins.reduce((a, x) => a + (x[axis] ?? 0), 0) : s));
      const pos = int(rng, 0, k - 1);
      const op: Op = { kind, inputs: ins.map((_, i) => i), outputs: [k], options: { axis: rng() < 0.3 ? axis - rank : axis, activation: 'none' } };
      const inner = count(shape.slice(axis + 1));
      const outer = count(shape.slice(0, axis));
      const walk = (o: Oracle): void => {
        let w = 0;
        for (let oo = 0; oo < outer; oo++) ins.forEach((s, i) => {
          const copy = (s[axis] ?? 0) * inner;
          for (let t = 0; t < copy; t++) (i === pos && o.read(oo * copy + t), o.write(w++));
        });
      };
      return { graph: graphOf([...ins.map((s, i) => act(`in${i}`, s)), act('out', out)], op), op, inputPosition: pos, walk };
    }
    case 'add': {
      const inShape = shape.map((s) => (rng() < 0.4 ? 1 : s)).slice(int(rng, 0, rank - 1));
      const padded = [...Array<number>(rank - inShape.length).fill(1), ...inShape];
      const st = strides(padded);
      const op: Op = { kind, inputs: [0, 1], outputs: [2], options: { activation: 'none', potScaleInt16: false } };
      const all = [...tuples(shape)];
      const read = (w: number): number => (all[w] ?? []).reduce((s, v, d) => s + ((padded[d] ?? 1) === 1 ? 0 : v * (st[d] ?? 0)), 0);
      return { graph: graphOf([act('a', inShape), act('b', shape), act('out', shape)], op), op, inputPosition: 0, walk: outputOrdered(n, read) };
    }
    case 'dequantize':
    case 'quantize':
    case 'relu': {
      const [di, dout]: [DType, DType] = kind === 'dequantize' ? ['int8', 'float32'] : kind === 'quantize' ? ['float32', 'int8'] : ['int8', 'int8'];
      const op: Op = { kind, inputs: [0], outputs: [1], options: {} };
      return { graph: graphOf([act('in', shape, di), act('out', shape, dout)], op), op, inputPosition: 0, walk: outputOrdered(n, (w) => w) };
    }
    case 'softmax': {
      const depth = shape[rank - 1] ?? 1;
      const op: Op = { kind, inputs: [0], outputs: [1], options: { beta: 1 } };
      const walk = (o: Oracle): void => {
        for (let row = 0; row < n / depth; row++) {
          for (let pass = 0; pass < 2; pass++) for (let c = 0; c < depth; c++) o.read(row * depth + c);
          for (let c = 0; c < depth; c++) (o.read(row * depth + c), o.write(row * depth + c));
        }
      };
      return { graph: graphOf([act('in', shape), act('out', shape, rng() < 0.5 ? 'int8' : 'int16')], op), op, inputPosition: 0, walk };
    }
    case 'pad': {
      const pads = shape.flatMap(() => [int(rng, 0, 2), int(rng, 0, 2)]);
      const out = shape.map((s, d) => s + (pads[2 * d] ?? 0) + (pads[2 * d + 1] ?? 0));
      const st = strides(shape);
      const all = [...tuples(out)];
      const read = (w: number): number | null => {
        const t = all[w] ?? [];
        const inside = t.every((v, d) => v >= (pads[2 * d] ?? 0) && v < (pads[2 * d] ?? 0) + (shape[d] ?? 0));
        return inside ? t.reduce((s, v, d) => s + (v - (pads[2 * d] ?? 0)) * (st[d] ?? 0), 0) : null;
      };
      const tensors = [act('in', shape), ints('pads', pads), act('out', out)];
      const op: Op = { kind, inputs: [0, 1], outputs: [2], options: {} };
      return { graph: graphOf(tensors, op), op, inputPosition: 0, walk: outputOrdered(count(out), read) };
    }
    case 'mean': {
      const [b, h, w, c] = randomShape(rng, 4) as [number, number, number, number];
      const op: Op = { kind, inputs: [0, 1], outputs: [2], options: { keepDims: true } };
      // TFLM's int8 MEAN zeroes its whole output before it reads the input.
      const walk = (o: Oracle): void => {
        for (let i = 0; i < b * c; i++) o.write(i);
        for (let bb = 0; bb < b; bb++) for (let cc = 0; cc < c; cc++) {
          for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) o.read(((bb * h + y) * w + x) * c + cc);
          o.write(bb * c + cc);
        }
      };
      return { graph: graphOf([act('in', [b, h, w, c]), ints('axes', rng() < 0.5 ? [1, 2] : [2, -3]), act('out', [b, 1, 1, c])], op), op, inputPosition: 0, walk };
    }
    case 'split': {
      const axis = int(rng, 0, rank - 1);
      const parts = int(rng, 1, 3);
      const sizes = Array.from({ length: parts }, () => int(rng, 1, 3));
      const inShape = shape.map((s, d) => (d === axis ? sizes.reduce((a, x) => a + x, 0) : s));
      const outs = sizes.map((sz) => shape.map((s, d) => (d === axis ? sz : s)));
      const pick = int(rng, 0, parts - 1);
      const op: Op = { kind: 'splitV', inputs: [0, 1, 2], outputs: outs.map((_, i) => 3 + i), options: { numSplits: parts } };
      const inner = count(shape.slice(axis + 1));
      const outer = count(shape.slice(0, axis));
      const walk = (o: Oracle): void => {
        let r = 0;
        let w = 0;
        for (let oo = 0; oo < outer; oo++) sizes.forEach((sz, i) => {
          for (let t = 0; t < sz * inner; t++) (o.read(r++), i === pick && o.write(w++));
        });
      };
      const tensors = [act('in', inShape), ints('sizes', sizes), ints('axis', [axis]), ...outs.map((s, i) => act(`out${i}`, s))];
      return { graph: graphOf(tensors, op), op, inputPosition: 0, outputPosition: pick, walk };
    }
    case 'stridedSlice': {
      const begin = shape.map((s) => int(rng, -s, s - 1));
      const stride = shape.map(() => int(rng, 1, 3));
      const end = shape.map((s) => int(rng, -s, s));
      const beginMask = int(rng, 0, 15);
      const endMask = int(rng, 0, 15);
      const start = shape.map((s, d) => ((beginMask >> d) & 1 ? 0 : Math.min(Math.max((begin[d] ?? 0) < 0 ? (begin[d] ?? 0) + s : (begin[d] ?? 0), 0), s)));
      const stop = shape.map((s, d) => ((endMask >> d) & 1 ? s : Math.min(Math.max((end[d] ?? 0) < 0 ? (end[d] ?? 0) + s : (end[d] ?? 0), 0), s)));
      const ext = shape.map((_, d) => Math.max(0, Math.ceil(((stop[d] ?? 0) - (start[d] ?? 0)) / (stride[d] ?? 1))));
      const st = strides(shape);
      const all = [...tuples(ext)];
      const read = (w: number): number => (all[w] ?? []).reduce((s, v, d) => s + ((start[d] ?? 0) + v * (stride[d] ?? 1)) * (st[d] ?? 0), 0);
      const op: Op = { kind, inputs: [0, 1, 2, 3], outputs: [4], options: { beginMask, endMask, ellipsisMask: 0, newAxisMask: 0, shrinkAxisMask: 0, offset: false } };
      const tensors = [act('in', shape), ints('b', begin), ints('e', end), ints('s', stride), act('out', ext)];
      return { graph: graphOf(tensors, op), op, inputPosition: 0, walk: outputOrdered(count(ext), read) };
    }
    default: {
      // transpose
      const perm = shape.map((_, i) => i).sort(() => rng() - 0.5);
      const out = perm.map((p) => shape[p] ?? 1);
      const st = strides(shape);
      const all = [...tuples(out)];
      const read = (w: number): number => (all[w] ?? []).reduce((s, v, k) => s + v * (st[perm[k] ?? 0] ?? 0), 0);
      const op: Op = { kind: 'transpose', inputs: [0, 1], outputs: [2], options: {} };
      return { graph: graphOf([act('in', shape), ints('perm', perm), act('out', out)], op), op, inputPosition: 0, walk: outputOrdered(n, read) };
    }
  }
}

const KINDS = ['conv2d', 'depthwiseConv2d', 'maxPool2d', 'fullyConnected', 'concatenation', 'add', 'relu', 'quantize', 'dequantize', 'softmax', 'pad', 'mean', 'split', 'stridedSlice', 'transpose'] as const;

function makeCase(rng: Rng, kind: (typeof KINDS)[number]): Case {
  return kind === 'conv2d' || kind === 'depthwiseConv2d' || kind === 'maxPool2d' ? windowCase(rng, kind) : miscCase(rng, kind);
}

describe('analyticSafeOverlap', () => {
  it('reproduces DMO Table II: MobileNet DW op of Table I, float32 -> 1,193,376 B', () => {
    const tensors = [act('in', [1, 112, 112, 96]), act('f', [1, 3, 3, 96]), act('out', [1, 56, 56, 96])];
    const op: Op = {
      kind: 'depthwiseConv2d',
      inputs: [0, 1, -1],
      outputs: [2],
      options: { padding: 'same', strideH: 2, strideW: 2, dilationH: 1, dilationW: 1, activation: 'none', depthMultiplier: 1 },
    };
    const graph = graphOf(tensors, op);
    expect(analyticSafeOverlap(op, graph, 4)).toBe(1_193_376);
    expect(analyticSafeOverlap(op, graph, 4, { form: 'tight' })).toBeLessThanOrEqual(1_204_224);
    expect(analyticSafeOverlap(op, graph)).toBe(1_193_376 / 4);
  });

  it('rejects a bad element size with E_USAGE', () => {
    const c = makeCase(seedrandom('x'), 'relu');
    expect(() => analyticSafeOverlap(c.op, c.graph, 0)).toThrow(expect.objectContaining({ code: 'E_USAGE' }));
  });

  for (const kind of KINDS) {
    it(`is a lower bound of the brute-force O_s for ${kind} (seeded random configurations)`, () => {
      const seed = `os-${kind}`;
      const rng = seedrandom(seed);
      let exactSum = 0;
      let paperSum = 0;
      let tightSum = 0;
      let equal = 0;
      const trials = 400;
      for (let trial = 0; trial < trials; trial++) {
        const c = makeCase(rng, kind);
        const outputPosition = c.outputPosition ?? 0;
        const input = c.graph.tensors[c.op.inputs[c.inputPosition] ?? 0];
        const output = c.graph.tensors[c.op.outputs[outputPosition] ?? 0];
        if (!input || !output) throw new Error('bad case');
        const ti = DTYPE_BYTES[input.dtype];
        const to = DTYPE_BYTES[output.dtype];
        const oracle = new Oracle(ti, to);
        c.walk(oracle);
        const ob = count(output.shape) * to;
        const exact = oracle.result(ob);
        const opts = { inputPosition: c.inputPosition, outputPosition };
        const paper = analyticSafeOverlap(c.op, c.graph, undefined, opts);
        const tight = analyticSafeOverlap(c.op, c.graph, undefined, { ...opts, form: 'tight' });
        const where = `seed ${seed} trial ${trial}: ${JSON.stringify({ op: c.op, shapes: c.graph.tensors.map((t) => t.shape) })}`;
        expect(paper, where).toBeLessThanOrEqual(exact);
        expect(tight, where).toBeLessThanOrEqual(exact);
        expect(paper, where).toBeGreaterThanOrEqual(0);
        exactSum += exact;
        paperSum += paper;
        tightSum += tight;
        if (tight === exact) equal++;
      }
      expect(primaryInputPosition(makeCase(seedrandom('p'), kind).op)).toBe(0);
      // Tightness, printed for the report: share of the exact O_s the bounds recover.
      console.info(`${kind}: paper/exact ${(paperSum / exactSum).toFixed(3)}, tight/exact ${(tightSum / exactSum).toFixed(3)}, tight exact in ${equal}/${trials}`);
    });
  }
});
