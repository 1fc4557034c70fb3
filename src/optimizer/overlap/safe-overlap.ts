// Safe overlap O_s of one op by the DMO paper's three methods (§III-B/C/D): bottom-up from a
// recorded trace of the op running on data (per-byte last-read times against the running maximum
// write end), algorithmic from the address-only walk (the paper's minR/maxW reduction, in one
// forward pass folded into the walk), analytic (analyticSafeOverlap). Convention (DESIGN.md §4): output
// at [o, o+OB), input at o+OB-O_s; O_s is the largest overlap at which no input byte is loaded
// after an output store hit its (shifted) address. Derivations: docs/tracer.md, docs/safe-overlap.md.
import type { Graph, Op } from '../../ir/index.ts';
import { UsageError, byteSize, elementCount } from '../../ir/index.ts';
import type { DiagonalPair, KernelRegistry, TraceSink } from '../../kernels/index.ts';
import { REFERENCE_KERNELS, forgetOverlapWalks, instantiateOp, overlapWalk, prepareOp } from '../../kernels/index.ts';
import { Runtime, crc32, randomInputs, teeTraceSinks } from '../../sim/index.ts';
import { alignUp } from '../planners/index.ts';
import { analyticSafeOverlap, primaryInputPosition } from './safe-overlap-analytic.ts';

export type OverlapMethod = 'trace' | 'algorithmic' | 'analytic';
export const OVERLAP_METHODS: readonly OverlapMethod[] = ['trace', 'algorithmic', 'analytic'];

export interface OverlapOptions {
  readonly method?: OverlapMethod;
  /** Bytes per element (paper Table II: 4 = float32): each int8 element index maps to N bytes. */
  readonly elementBytes?: number;
  /** Position in op.inputs / op.outputs of the pair; default: the op's data input, output 0. */
  readonly inputPosition?: number;
  readonly outputPosition?: number;
  /** Seed of the random input data of the trace method. */
  readonly seed?: number;
  /** Trace method: also feed the op's events here (e.g. a TracePlot). */
  readonly traceSink?: TraceSink;
  /** Whose access order (the kernel library's specs; default reference). The analytic closed forms
   * are the reference kernels': with another library's spec for the op, analytic is refused. */
  readonly registry?: KernelRegistry;
}

export interface OverlapReport {
  readonly inputBytes: number;
  readonly outputBytes: number;
  readonly os: { readonly trace?: number; readonly algorithmic?: number; readonly analytic?: number };
}

/** One op placed in an arena: a one-op graph, offsets and the studied (input, output) pair. */
export interface OpLayout {
  readonly graph: Graph;
  readonly tensorOffsets: readonly (number | null)[];
  readonly scratchOffsets: readonly (readonly number[])[];
  readonly arenaBytes: number;
  readonly input: number;
  readonly output: number;
  readonly inputOffset: number;
  readonly outputOffset: number;
  /** The kernels the op runs with. */
  readonly registry: KernelRegistry;
}

/** The graph holding only op `opIndex` (same tensor indices; its activation inputs are graph inputs). */
export function singleOpGraph(graph: Graph, opIndex: number): Graph {
  const op = graph.ops[opIndex];
  if (op === undefined) throw new UsageError(`no op ${opIndex}`);
  const inputs = [...new Set(op.inputs.filter((t) => t >= 0 && graph.tensors[t]?.data === null))];
  return { ...graph, ops: [op], inputs, outputs: op.outputs.filter((t) => t >= 0) };
}

function pairOf(op: Op, o: OverlapOptions): { input: number; output: number } {
  const ip = o.inputPosition ?? primaryInputPosition(op);
  const input = op.inputs[ip] ?? -1;
  const output = op.outputs[o.outputPosition ?? 0] ?? -1;
  if (input < 0 || output < 0) throw new UsageError(`op ${op.kind} has no input ${ip} / output ${o.outputPosition ?? 0}`);
  return { input, output };
}

const sizeOf = (g: Graph, t: number): number => {
  const x = g.tensors[t];
  return x ? byteSize(x.dtype, x.shape) : 0;
};

/**
 * Lay out op 0 of a one-op graph: output at 0, input right after it (disjoint, overlapBytes null)
 * or at OB - overlapBytes; every other activation and the scratch after both, 16-aligned.
 */
export function layoutOp(g: Graph, overlapBytes: number | null, o: OverlapOptions = {}): OpLayout {
  const op = g.ops[0];
  if (op === undefined || g.ops.length !== 1) throw new UsageError('layoutOp needs a one-op graph');
  const { input, output } = pairOf(op, o);
  const ob = sizeOf(g, output);
  const ib = sizeOf(g, input);
  const inputOffset = overlapBytes === null ? alignUp(ob) : ob - overlapBytes;
  if (inputOffset < 0) throw new UsageError(`overlap ${overlapBytes} exceeds the output size ${ob}`);
  const offsets: (number | null)[] = g.tensors.map(() => null);
  offsets[output] = 0;
  offsets[input] = inputOffset;
  let next = alignUp(Math.max(ob, inputOffset + ib));
  for (const t of [...op.inputs, ...op.outputs]) {
    if (t < 0 || offsets[t] !== null || g.tensors[t]?.data !== null) continue;
    offsets[t] = next;
    next = alignUp(next + sizeOf(g, t));
  }
  const registry = o.registry ?? REFERENCE_KERNELS;
  const scratch = prepareOp(g, 0, registry).prepared.scratch.map((s) => {
    const at = next;
    next = alignUp(next + s.sizeBytes);
    return at;
  });
  return { graph: g, tensorOffsets: offsets, scratchOffsets: [scratch], arenaBytes: Math.max(16, next), input, output, inputOffset, outputOffset: 0, registry };
}

/** Run the laid-out op on seeded random inputs (traced when sinks are given); returns its outputs. */
export function runLayout(l: OpLayout, seed = 1, sinks: readonly TraceSink[] = []): Uint8Array[] {
  const rt = new Runtime({ graph: l.graph, tensorOffsets: l.tensorOffsets, scratchOffsets: l.scratchOffsets, arenaBytes: l.arenaBytes, registry: l.registry });
  const sink = sinks.length === 0 ? undefined : sinks.length === 1 ? sinks[0] : teeTraceSinks(...sinks);
  return rt.run(randomInputs(l.graph, seed), sink ? { trace: sink } : {});
}

/** Where a pair's tensors sit and their element sizes: in the arena (offset, bytes per element) and
 * in the overlap's byte positions (`inB`, `outB`: elementBytes, else the tensor's own). */
export interface OverlapScale {
  readonly inOff: number;
  readonly inW: number;
  readonly inB: number;
  readonly outOff: number;
  readonly outW: number;
  readonly outB: number;
}

/** The scale of a laid-out op's pair (layoutOp), with element size `elementBytes` if given. */
export function overlapScale(l: OpLayout, elementBytes?: number): OverlapScale {
  const ti = l.graph.tensors[l.input];
  const to = l.graph.tensors[l.output];
  const inW = byteSize(ti?.dtype ?? 'int8', [1]);
  const outW = byteSize(to?.dtype ?? 'int8', [1]);
  return { inOff: l.inputOffset, inW, inB: elementBytes ?? inW, outOff: l.outputOffset, outW, outB: elementBytes ?? outW };
}

/** O_s of a laid-out op from its reduction's least (load position - write end so far), clamped to
 * [0, output bytes] (element size `elementBytes` if given; algorithmicReduction's minDiff). */
export function overlapFromDiff(l: OpLayout, minDiff: number, elementBytes?: number): number {
  const ob = outputBytesOf(l, elementBytes);
  return Math.max(0, Math.min(ob, ob + Math.min(0, minDiff)));
}

class Grow {
  a = new Float64Array(1024);
  n = 0;
  push(v: number): void {
    if (this.n === this.a.length) {
      const b = new Float64Array(this.a.length * 2);
      b.set(this.a);
      this.a = b;
    }
    this.a[this.n++] = v;
  }
}

/**
 * The reduction of the algorithmic method (§III-C) over an address walk's events, in one forward
 * pass. The paper keeps, per output store k, maxW[k] (the highest output byte end written so far)
 * and minR[k] (the lowest input byte loaded after store k and before store k+1), then walks them
 * backwards: minD = min over i of (min over j >= i of minR[j]) - maxW[i]. maxW is a running maximum,
 * so it never decreases: for each j the pair (i, j) with the largest maxW[i] is i = j, and minD is
 * the minimum of minR[j] - maxW[j], that is of (load byte - maxW at that load) over every input
 * load after the first output store: two numbers instead of two arrays per store. Byte positions
 * are relative to the tensors' offsets, scaled by `elementBytes` (paper Table II).
 * safeOverlap runs the same reduction inside the walk (overlapWalk): a mobilenet layer's walk makes
 * tens of millions of events, and a log and this sink cost ~15 ns per event, the folded walk ~3.
 * test/optimizer/overlap/algorithmic-reduction.test.ts checks this sink against the paper's arrays
 * on random event streams and the folded walk against this sink on random ops of every kind.
 */
export function algorithmicReduction(s: OverlapScale, input: number, output: number): { readonly sink: TraceSink; minDiff(): number } {
  const { inOff, inW, inB, outOff, outW, outB } = s;
  let maxW = -Infinity;
  let minD = 0;
  const sink: TraceSink = (_op, log, count) => {
    // Locals in the loop: the closure's slots are written back once per chunk.
    let w = maxW;
    let d = minD;
    const end = 2 * count;
    for (let i = 0; i < end; i += 2) {
      const h = log[i] as number;
      if ((h & 8) !== 0) {
        if (h >> 4 !== output) continue;
        const e = (((log[i + 1] as number) - outOff) / outW + 1) * outB;
        if (e > w) w = e;
      } else if (h >> 4 === input) {
        // Before the first store w is -Infinity, and r is +Infinity.
        const r = (((log[i + 1] as number) - inOff) / inW) * inB - w;
        if (r < d) d = r;
      }
    }
    maxW = w;
    minD = d;
  };
  return { sink, minDiff: () => minD };
}

/** The pair and scale as overlapWalk takes them: algorithmicReduction's positions, with
 * ((a - off) / W) * B as (a - off) * (B / W) (W a power of two: both exact). */
export function diagonalPair(l: OpLayout, s: OverlapScale): DiagonalPair {
  return { input: l.input, output: l.output, inOffset: s.inOff, inScale: s.inB / s.inW, outOffset: s.outOff, outScale: s.outB / s.outW, outEnd: s.outB };
}

/** Algorithmic method (§III-C): the minR / maxW reduction (algorithmicReduction) folded into the
 * op's address walk (overlapWalk, the same reduction without the event log). */
function algorithmicOverlap(l: OpLayout, elementBytes: number | undefined): number {
  const s = overlapScale(l, elementBytes);
  const inst = instantiateOp(l.graph, prepareOp(l.graph, 0, l.registry), l.tensorOffsets, l.scratchOffsets[0] ?? []);
  const minD = overlapWalk(inst, diagonalPair(l, s));
  return overlapFromDiff(l, minD, elementBytes);
}

/** Bottom-up method (§III-B): run on data, keep each input element's last load time and the step
 * function of the maximum output write end; the worst pair per element gives O_s. */
function traceOverlap(l: OpLayout, elementBytes: number | undefined, seed: number, extra?: TraceSink): number {
  const s = overlapScale(l, elementBytes);
  const inElems = elementCount(l.graph.tensors[l.input]?.shape ?? []);
  const lastRead = new Float64Array(inElems).fill(-1);
  const wTime = new Grow();
  const wEnd = new Grow();
  let t = 0;
  let cur = -Infinity;
  const sink: TraceSink = (_op, log, count) => {
    for (let i = 0; i < count; i++, t++) {
      const h = log[2 * i] as number;
      const id = h >> 4;
      const addr = log[2 * i + 1] as number;
      if (h & 8) {
        if (id !== l.output) continue;
        const end = ((addr - s.outOff) / s.outW + 1) * s.outB;
        if (end > cur) {
          cur = end;
          wTime.push(t);
          wEnd.push(end);
        }
      } else if (id === l.input) {
        lastRead[(addr - s.inOff) / s.inW] = t;
      }
    }
  };
  runLayout(l, seed, extra ? [sink, extra] : [sink]);
  let minDiff = Infinity;
  for (let e = 0; e < inElems; e++) {
    const tr = lastRead[e] as number;
    if (tr < 0) continue;
    let lo = 0;
    let hi = wTime.n - 1;
    let j = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if ((wTime.a[mid] as number) < tr) (j = mid), (lo = mid + 1);
      else hi = mid - 1;
    }
    if (j >= 0) minDiff = Math.min(minDiff, e * s.inB - (wEnd.a[j] as number));
  }
  return overlapFromDiff(l, minDiff, elementBytes);
}

function outputBytesOf(l: OpLayout, elementBytes: number | undefined): number {
  const t = l.graph.tensors[l.output];
  if (!t) return 0;
  return elementBytes === undefined ? byteSize(t.dtype, t.shape) : elementCount(t.shape) * elementBytes;
}

/** The closed forms model the reference kernels' order: refused for an op another library runs with its own spec. */
function refuseAnalytic(op: Op, registry: KernelRegistry | undefined): void {
  if (registry === undefined || op.kind === 'custom' || registry.specs[op.kind] === REFERENCE_KERNELS.specs[op.kind]) return;
  throw new UsageError(`the analytic O_s of ${op.kind} is derived for the reference kernel's access order, not ${registry.library}'s: use the trace or algorithmic method`);
}

/** Whether the analytic method applies to `op` under `registry` (the op runs the reference spec). */
export function analyticApplies(op: Op, registry: KernelRegistry | undefined): boolean {
  return registry === undefined || op.kind === 'custom' || registry.specs[op.kind] === REFERENCE_KERNELS.specs[op.kind];
}

function checkElementBytes(n: number | undefined): void {
  if (n !== undefined && (!Number.isInteger(n) || n < 1 || n > 8)) throw new UsageError(`element bytes must be an integer in 1..8, got ${n}`);
}

/** O_s in bytes of op `opIndex` of `graph` by one method (default algorithmic). */
export function safeOverlap(graph: Graph, opIndex: number, options: OverlapOptions = {}): number {
  checkElementBytes(options.elementBytes);
  const method = options.method ?? 'algorithmic';
  const op = graph.ops[opIndex];
  if (op === undefined) throw new UsageError(`no op ${opIndex}`);
  if (method === 'analytic') {
    refuseAnalytic(op, options.registry);
    const pos = { ...(options.inputPosition !== undefined ? { inputPosition: options.inputPosition } : {}), ...(options.outputPosition !== undefined ? { outputPosition: options.outputPosition } : {}) };
    return analyticSafeOverlap(op, graph, options.elementBytes, pos);
  }
  const g = singleOpGraph(graph, opIndex);
  if (method === 'trace') return traceOverlap(layoutOp(g, null, options), options.elementBytes, options.seed ?? 1, options.traceSink);
  const key = algorithmicKey(g, options);
  const known = ALGORITHMIC_CACHE.get(key);
  if (known !== undefined) return known;
  const os = algorithmicOverlap(layoutOp(g, null, options), options.elementBytes);
  if (ALGORITHMIC_CACHE.size >= MAX_CACHED) ALGORITHMIC_CACHE.clear();
  ALGORITHMIC_CACHE.set(key, os);
  return os;
}

/**
 * Algorithmic O_s by op: a function of the op alone (kind, options, its tensors' dtype, shape,
 * quantization and constant bytes, which of them are the same tensor), the pair and the element
 * size, so repeated layers (and the planner, the plan check and the passes asking again) walk an
 * op's addresses once per process. Tensors are numbered by first use in the op, so identical layers
 * at different graph positions share an entry; a constant's CRC is computed once per buffer. A
 * miss costs only the op's lowering when overlapWalk remembers a walk of the same code (a layer of
 * the same shape with other weights): this level spares the lowering on repeat asks.
 */
const ALGORITHMIC_CACHE = new Map<string, number>();
const MAX_CACHED = 10_000;
const CONSTANT_CRC = new WeakMap<Uint8Array, number>();

function constantCrc(data: Uint8Array): number {
  let c = CONSTANT_CRC.get(data);
  if (c === undefined) CONSTANT_CRC.set(data, (c = crc32(data)));
  return c;
}

/** Forget every remembered algorithmic O_s, here and overlapWalk's (bench/overlap.ts times the
 * walk itself). */
export function clearAlgorithmicOverlapCache(): void {
  ALGORITHMIC_CACHE.clear();
  forgetOverlapWalks();
}

function algorithmicKey(g: Graph, o: OverlapOptions): string {
  const op = g.ops[0] as Op;
  const local = new Map<number, number>();
  const renumber = (t: number): number => {
    if (t < 0) return t;
    let i = local.get(t);
    if (i === undefined) local.set(t, (i = local.size));
    return i;
  };
  const inputs = op.inputs.map(renumber);
  const outputs = op.outputs.map(renumber);
  const tensors = [...local.keys()].map((i) => {
    const t = g.tensors[i];
    return t === undefined ? null : [t.dtype, t.shape, t.quant, t.isVariable, t.data === null ? null : [t.data.length, constantCrc(t.data)]];
  });
  const { inputs: _i, outputs: _o, ...rest } = op;
  return JSON.stringify([o.registry?.library ?? 'reference', o.registry?.cpu ?? null, rest, inputs, outputs, tensors, g.inputs.map(renumber), g.outputs.map(renumber), o.inputPosition ?? null, o.outputPosition ?? null, o.elementBytes ?? null]);
}

/** Input/output sizes and O_s by each requested method (all three by default). */
export function safeOverlapReport(graph: Graph, opIndex: number, options: OverlapOptions & { readonly methods?: readonly OverlapMethod[] } = {}): OverlapReport {
  checkElementBytes(options.elementBytes);
  const op = graph.ops[opIndex];
  if (op === undefined) throw new UsageError(`no op ${opIndex}`);
  const { input, output } = pairOf(op, options);
  const bytes = (t: number): number => {
    const x = graph.tensors[t];
    if (!x) return 0;
    return options.elementBytes === undefined ? byteSize(x.dtype, x.shape) : elementCount(x.shape) * options.elementBytes;
  };
  const os: Record<string, number> = {};
  const methods = options.methods ?? OVERLAP_METHODS.filter((m) => m !== 'analytic' || analyticApplies(op, options.registry));
  for (const m of methods) os[m] = safeOverlap(graph, opIndex, { ...options, method: m });
  return { inputBytes: bytes(input), outputBytes: bytes(output), os };
}
