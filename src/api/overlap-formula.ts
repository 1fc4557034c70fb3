// Checks a user's closed-form O_s formula (DMO paper §III-D style) against the exact O_s on seeded
// random one-op configurations: the exact value by the trace and algorithmic methods (§III-B/C);
// every case where the formula claims more is placed in an arena at output_end - formula and run
// under the memory tracer, whose first clobber is reported; tightness = formula / exact.
import seedrandom from 'seedrandom';
import type { BuiltinKind, Graph, Padding } from '../ir/index.ts';
import { InternalError, UsageError, byteSize } from '../ir/index.ts';
import { KERNELS } from '../kernels/index.ts';
import type { SingleOpSpec } from '../optimizer/index.ts';
import { buildSingleOpGraph, layoutOp, runLayout, safeOverlap } from '../optimizer/index.ts';
import type { TraceViolation } from '../sim/index.ts';
import { Tracer } from '../sim/index.ts';

/** What a formula sees of one configuration; window fields are null for ops without a window. */
export interface OverlapOp {
  readonly kind: BuiltinKind;
  /** Shape of the op's streamed input (NHWC for window ops) and of its output 0. */
  readonly input: readonly number[];
  readonly output: readonly number[];
  readonly inputBytes: number;
  readonly outputBytes: number;
  /** [height, width] */
  readonly filter: readonly [number, number] | null;
  readonly stride: readonly [number, number] | null;
  readonly dilation: readonly [number, number] | null;
  readonly padding: Padding | null;
  readonly depthMultiplier: number | null;
  /** The full spec (buildSingleOpGraph / safeOverlap take it as is). */
  readonly spec: SingleOpSpec;
}

export type OverlapFormula = (op: OverlapOp) => number;

export interface CheckOverlapFormulaOptions {
  /** Op kinds to draw configurations of, taken in turn (default ['depthwiseConv2d']). */
  readonly kinds?: readonly BuiltinKind[];
  /** Number of configurations (default 100). */
  readonly cases?: number;
  /** Seed of the configuration stream (default 'mcusim'); case i uses `${seed}/${kind}/${i}`. */
  readonly seed?: string | number;
}

export interface OverlapFormulaCase {
  readonly index: number;
  readonly seed: string;
  readonly op: OverlapOp;
  /** Exact O_s in bytes by the two exact methods (always equal; both kept as a cross-check). */
  readonly exact: { readonly trace: number; readonly algorithmic: number };
  readonly formula: number;
  /** formula <= exact O_s. */
  readonly safe: boolean;
  /** formula / exact for safe cases (1 when both are 0); null for unsafe ones. */
  readonly tightness: number | null;
  /** Unsafe cases: the tracer's first clobber with the input placed at output_end - formula. */
  readonly clobber: TraceViolation | null;
  /** Unsafe cases: whether that placement also changed output bytes (vs a disjoint placement). */
  readonly outputsCorrupted: boolean | null;
  /** Unsafe cases the arena cannot show (formula above the output size): why. */
  readonly note: string | null;
}

export interface OverlapFormulaCheck {
  readonly cases: readonly OverlapFormulaCase[];
  readonly unsafe: readonly OverlapFormulaCase[];
  readonly safe: boolean;
  /** Over the safe cases: mean and minimum of formula / exact, and how many hit exact. */
  readonly tightness: { readonly mean: number; readonly min: number; readonly exactCases: number };
  /** Human-readable result naming every unsafe case (up to 20) and its clobber. */
  readonly summary: string;
}

type Rng = () => number;
const int = (rng: Rng, lo: number, hi: number): number => lo + Math.floor(rng() * (hi - lo + 1));
const pick = <T>(rng: Rng, xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)] as T;
const shape4 = (rng: Rng, maxHw = 7, maxC = 5): number[] => [int(rng, 1, 2), int(rng, 1, maxHw), int(rng, 1, maxHw), int(rng, 1, maxC)];
const shapeN = (rng: Rng): number[] => Array.from({ length: int(rng, 1, 4) }, () => int(rng, 1, 5));

/** Ops without a single-op overlap case (storage ops need a device; merge is an FDT artifact). */
const NO_OVERLAP_CASE = new Set<string>(['spill', 'fetching', 'fetchingConv2d', 'merge']);

/** Kinds checkOverlapFormula can draw. */
export function overlapFormulaKinds(): BuiltinKind[] {
  return (Object.keys(KERNELS) as BuiltinKind[]).filter((k) => !NO_OVERLAP_CASE.has(k));
}

/** A small valid random configuration of `kind` (seeded; every kernel kind but the storage ops). */
export function randomOverlapSpec(kind: BuiltinKind, rng: Rng, seed: string): SingleOpSpec {
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
    case 'mul':
    case 'sub':
    case 'squaredDifference':
    case 'maximum':
    case 'minimum': {
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
      const perm = input.map((_, k) => k);
      for (let k = perm.length - 1; k > 0; k--) {
        const j = int(rng, 0, k);
        [perm[k], perm[j]] = [perm[j] as number, perm[k] as number];
      }
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
    case 'svdf':
      return { ...base, input: [int(rng, 1, 3), int(rng, 1, 12)], outChannels: int(rng, 1, 6), filter: [int(rng, 1, 2), int(rng, 1, 5)] };
    case 'unidirectionalSequenceLstm':
      return { ...base, input: [int(rng, 1, 2), int(rng, 1, 5), int(rng, 1, 6)], outChannels: int(rng, 1, 6) };
    case 'gather': {
      const input = shapeN(rng);
      const axis = int(rng, 0, input.length - 1);
      return { ...base, input, axis, indices: Array.from({ length: int(rng, 1, 5) }, () => int(rng, 0, (input[axis] as number) - 1)) };
    }
    case 'pack': {
      const input = shapeN(rng);
      return { ...base, input, axis: int(rng, 0, input.length), splits: int(rng, 1, 3) };
    }
    case 'unpack':
    case 'expandDims': {
      const input = shapeN(rng);
      return { ...base, input, axis: int(rng, 0, input.length - (kind === 'unpack' ? 1 : 0)) };
    }
    case 'squeeze':
      return { ...base, input: shapeN(rng).map((d) => (rng() < 0.4 ? 1 : d)) };
    case 'spaceToDepth':
    case 'depthToSpace': {
      const b = int(rng, 1, 3);
      const input = kind === 'spaceToDepth'
        ? [int(rng, 1, 2), b * int(rng, 1, 3), b * int(rng, 1, 3), int(rng, 1, 4)]
        : [int(rng, 1, 2), int(rng, 1, 3), int(rng, 1, 3), b * b * int(rng, 1, 3)];
      return { ...base, input, block: b };
    }
    case 'spaceToBatchNd': {
      const [bh, bw] = [int(rng, 1, 3), int(rng, 1, 3)];
      const [pt, pl] = [int(rng, 0, 2), int(rng, 0, 2)];
      const [h, w] = [bh * int(rng, 1, 3), bw * int(rng, 1, 3)];
      const pads = [pt, bh - ((h + pt) % bh || bh), pl, bw - ((w + pl) % bw || bw)];
      return { ...base, input: [int(rng, 1, 2), h, w, int(rng, 1, 3)], block: [bh, bw], pads };
    }
    case 'batchToSpaceNd': {
      const [bh, bw] = [int(rng, 1, 3), int(rng, 1, 3)];
      const [h, w] = [int(rng, 1, 3), int(rng, 1, 3)];
      const pads = [int(rng, 0, Math.min(1, h * bh - 1)), 0, 0, int(rng, 0, Math.min(1, w * bw - 1))];
      return { ...base, input: [int(rng, 1, 2) * bh * bw, h, w, int(rng, 1, 3)], block: [bh, bw], pads };
    }
    default:
      return { ...base, input: shapeN(rng) };
  }
}

const WINDOW_KINDS = new Set<string>(['conv2d', 'depthwiseConv2d', 'maxPool2d', 'averagePool2d', 'transposeConv']);

function describeOp(spec: SingleOpSpec, graph: Graph, input: number, output: number): OverlapOp {
  const t = (i: number) => graph.tensors[i] ?? (() => { throw new InternalError(`one-op graph has no tensor ${i}`); })();
  const ti = t(input);
  const to = t(output);
  const win = WINDOW_KINDS.has(spec.kind);
  return {
    kind: spec.kind,
    input: ti.shape,
    output: to.shape,
    inputBytes: byteSize(ti.dtype, ti.shape),
    outputBytes: byteSize(to.dtype, to.shape),
    filter: win ? spec.filter ?? [3, 3] : null,
    stride: win ? spec.stride ?? [1, 1] : null,
    dilation: spec.kind === 'conv2d' || spec.kind === 'depthwiseConv2d' ? spec.dilation ?? [1, 1] : null,
    padding: win ? spec.padding ?? 'same' : null,
    depthMultiplier: spec.kind === 'depthwiseConv2d' ? spec.depthMultiplier ?? 1 : null,
    spec,
  };
}

const dims = (p: readonly number[] | null): string => (p === null ? '' : p.join('x'));

/** One line naming the configuration: kind, shapes and window. */
export function describeOverlapOp(op: OverlapOp): string {
  const parts = [`${op.kind} input ${dims(op.input)} -> output ${dims(op.output)}`];
  if (op.filter) parts.push(`filter ${dims(op.filter)}`);
  if (op.stride) parts.push(`stride ${dims(op.stride)}`);
  if (op.dilation) parts.push(`dilation ${dims(op.dilation)}`);
  if (op.padding) parts.push(op.padding);
  if (op.depthMultiplier !== null) parts.push(`depth multiplier ${op.depthMultiplier}`);
  return parts.join(', ');
}

function tracedOutputs(graph: Graph, overlap: number | null): { outputs: Uint8Array[]; violations: TraceViolation[] } {
  const l = layoutOp(graph, overlap);
  const tracer = new Tracer({ graph: l.graph, tensorOffsets: l.tensorOffsets, scratchOffsets: l.scratchOffsets, arenaBytes: l.arenaBytes });
  const outputs = runLayout(l, 1, [tracer.sink]);
  tracer.finish();
  return { outputs, violations: tracer.violations() };
}

const sameBytes = (a: readonly Uint8Array[], b: readonly Uint8Array[]): boolean =>
  a.length === b.length && a.every((x, i) => { const y = b[i]; return y !== undefined && x.length === y.length && x.every((v, k) => v === y[k]); });

function checkCase(formula: OverlapFormula, index: number, seed: string, spec: SingleOpSpec): OverlapFormulaCase {
  const graph = buildSingleOpGraph(spec);
  const l = layoutOp(graph, null);
  const op = describeOp(spec, graph, l.input, l.output);
  const trace = safeOverlap(graph, 0, { method: 'trace' });
  const algorithmic = safeOverlap(graph, 0, { method: 'algorithmic' });
  if (trace !== algorithmic) throw new InternalError(`case ${index} (${describeOverlapOp(op)}): trace O_s ${trace} != algorithmic ${algorithmic}`);
  const value = formula(op);
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new UsageError(`the formula returned ${String(value)} for case ${index} (${describeOverlapOp(op)}); it must return a non-negative integer byte count`);
  }
  const common = { index, seed, op, exact: { trace, algorithmic }, formula: value };
  if (value <= algorithmic) {
    const tightness = algorithmic === 0 ? 1 : value / algorithmic;
    return { ...common, safe: true, tightness, clobber: null, outputsCorrupted: null, note: null };
  }
  if (value > op.outputBytes) {
    return { ...common, safe: false, tightness: null, clobber: null, outputsCorrupted: null, note: `the formula exceeds the output size ${op.outputBytes} B (the input would start before the output)` };
  }
  const placed = tracedOutputs(graph, value);
  const clobber = placed.violations.find((v) => v.kind === 'clobber') ?? placed.violations[0] ?? null;
  const outputsCorrupted = !sameBytes(placed.outputs, tracedOutputs(graph, null).outputs);
  return { ...common, safe: false, tightness: null, clobber, outputsCorrupted, note: clobber === null ? 'the tracer reported no violation at this placement' : null };
}

function summarize(cases: readonly OverlapFormulaCase[], kinds: readonly string[], seed: string): Pick<OverlapFormulaCheck, 'tightness' | 'summary'> {
  const safe = cases.filter((c) => c.safe);
  const ratios = safe.map((c) => c.tightness ?? 0);
  const tightness = {
    mean: ratios.length === 0 ? 0 : ratios.reduce((a, b) => a + b, 0) / ratios.length,
    min: ratios.length === 0 ? 0 : Math.min(...ratios),
    exactCases: safe.filter((c) => c.formula === c.exact.algorithmic).length,
  };
  const unsafe = cases.filter((c) => !c.safe);
  const head = `${cases.length} cases of ${kinds.join(', ')} (seed '${seed}'): ${unsafe.length === 0 ? 'all safe' : `${unsafe.length} UNSAFE`}; ` +
    `tightness over ${safe.length} safe cases: mean ${tightness.mean.toFixed(3)}, min ${tightness.min.toFixed(3)}, exact in ${tightness.exactCases}`;
  const lines = unsafe.slice(0, 20).map((c) =>
    `  case ${c.index} (seed '${c.seed}') ${describeOverlapOp(c.op)}: formula ${c.formula} B > exact O_s ${c.exact.algorithmic} B; ` +
    (c.clobber ? `tracer: ${c.clobber.message}${c.outputsCorrupted ? ' (outputs corrupted)' : ''}` : (c.note ?? '')));
  if (unsafe.length > 20) lines.push(`  ... ${unsafe.length - 20} more unsafe cases`);
  return { tightness, summary: [head, ...lines].join('\n') };
}

/** Check `formula` against the exact O_s on `cases` seeded random configurations of `kinds`. */
export function checkOverlapFormula(formula: OverlapFormula, options: CheckOverlapFormulaOptions = {}): OverlapFormulaCheck {
  const kinds = options.kinds ?? ['depthwiseConv2d'];
  const count = options.cases ?? 100;
  const seed = String(options.seed ?? 'mcusim');
  if (typeof formula !== 'function') throw new UsageError('checkOverlapFormula needs a function (op) => bytes');
  if (!Number.isSafeInteger(count) || count < 1) throw new UsageError(`cases must be a positive integer, got ${count}`);
  const known = overlapFormulaKinds();
  const bad = kinds.filter((k) => !known.includes(k));
  if (kinds.length === 0 || bad.length > 0) throw new UsageError(`kinds must name ops with an overlap case (${known.join(', ')}); got ${kinds.length === 0 ? 'none' : bad.join(', ')}`);
  const cases: OverlapFormulaCase[] = [];
  for (let i = 0; i < count; i++) {
    const kind = kinds[i % kinds.length] as BuiltinKind;
    const caseSeed = `${seed}/${kind}/${i}`;
    cases.push(checkCase(formula, i, caseSeed, randomOverlapSpec(kind, seedrandom(caseSeed), caseSeed)));
  }
  const unsafe = cases.filter((c) => !c.safe);
  return { cases, unsafe, safe: unsafe.length === 0, ...summarize(cases, kinds, seed) };
}
