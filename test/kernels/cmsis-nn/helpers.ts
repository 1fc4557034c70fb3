// Seeded single-op conv-family cases and a runner that executes any KernelSpec (not only the
// registry's) on a chosen arena layout: fast JS, traced JS and the address walk, so the CMSIS-NN
// specs can be compared with the reference specs and their access orders inspected.
import type { Activation, Graph, Padding, Tensor } from '../../../src/ir/index.ts';
import { byteSize, convOutputSize } from '../../../src/ir/index.ts';
import type { CKernel, KernelInstance, KernelSpec, TraceEvent } from '../../../src/kernels/index.ts';
import {
  checkConstraints, compileKernel, decodeTraceEvent, emitCKernel, emitCUnit, instantiateOp, makeArenaViews, makeOpContext, walkAddresses,
} from '../../../src/kernels/index.ts';
import { cKernelCall, compileAndRunC } from '../replay-helpers.ts';

export type Rng = () => number;
export const int = (r: Rng, lo: number, hi: number): number => lo + Math.floor(r() * (hi - lo + 1));
const pick = <T,>(r: Rng, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
const ACTS: readonly Activation[] = ['none', 'relu', 'relu6', 'reluN1To1'];

export interface OpCase {
  readonly graph: Graph;
  /** Bytes of each non-constant input tensor, by tensor index. */
  readonly inputs: ReadonlyMap<number, Uint8Array>;
  readonly output: number;
}

const bytes8 = (r: Rng, n: number): Uint8Array => Uint8Array.from({ length: n }, () => int(r, 0, 255));
function int32s(values: readonly number[]): Uint8Array {
  const out = new Uint8Array(4 * values.length);
  const dv = new DataView(out.buffer);
  values.forEach((v, i) => dv.setInt32(4 * i, v, true));
  return out;
}

function tensor(name: string, shape: readonly number[], scale: readonly number[], zp: readonly number[], qd = 0, data: Uint8Array | null = null, dtype: 'int8' | 'int32' = 'int8'): Tensor {
  return { name, dtype, shape, quant: { scale: scale.map(Math.fround), zeroPoint: [...zp], quantizedDimension: qd }, data, isVariable: false } as Tensor;
}

export interface ConvShape {
  readonly n: number; readonly h: number; readonly w: number; readonly ic: number; readonly oc: number;
  readonly fh: number; readonly fw: number; readonly sh: number; readonly sw: number; readonly dh: number; readonly dw: number;
  readonly padding: Padding; readonly depthMult?: number; readonly bias?: boolean;
}

/** A random conv2d (or depthwise, with `depthMult`) case of shape `s`, random quantization. */
export function convCase(r: Rng, kind: 'conv2d' | 'depthwiseConv2d', s: ConvShape): OpCase | null {
  const oh = convOutputSize(s.padding, s.h, s.fh, s.sh, s.dh);
  const ow = convOutputSize(s.padding, s.w, s.fw, s.sw, s.dw);
  if (oh <= 0 || ow <= 0) return null;
  const dw = kind === 'depthwiseConv2d';
  const oc = dw ? s.ic * (s.depthMult ?? 1) : s.oc;
  const perChannel = r() < 0.5;
  const fScale = Array.from({ length: perChannel ? oc : 1 }, () => 0.001 + r() * 0.01);
  const fShape = dw ? [1, s.fh, s.fw, oc] : [oc, s.fh, s.fw, s.ic];
  const fCount = fShape.reduce((a, b) => a * b, 1);
  const hasBias = s.bias ?? r() < 0.8;
  const tensors: Tensor[] = [
    tensor('in', [s.n, s.h, s.w, s.ic], [0.005 + r() * 0.1], [int(r, -20, 20)]),
    tensor('filter', fShape, fScale, fScale.map(() => 0), dw ? 3 : 0, bytes8(r, fCount)),
    ...(hasBias ? [tensor('bias', [oc], [0], [0], 0, int32s(Array.from({ length: oc }, () => int(r, -5000, 5000))), 'int32')] : []),
    tensor('out', [s.n, oh, ow, oc], [0.02 + r() * 0.28], [int(r, -20, 20)]),
  ];
  const out = tensors.length - 1;
  const base = { padding: s.padding, strideH: s.sh, strideW: s.sw, dilationH: s.dh, dilationW: s.dw, activation: pick(r, ACTS) };
  const options = dw ? { ...base, depthMultiplier: s.depthMult ?? 1 } : base;
  const graph = {
    name: `${kind}-cmsis`, tensors,
    ops: [{ kind, inputs: [0, 1, hasBias ? 2 : -1], outputs: [out], options }],
    inputs: [0], outputs: [out],
  } as unknown as Graph;
  return { graph, inputs: new Map([[0, bytes8(r, byteSize('int8', tensors[0]!.shape))]]), output: out };
}

/** A random shape for the conv family (small, every path reachable). */
export function randomConvShape(r: Rng, kind: 'conv2d' | 'depthwiseConv2d'): ConvShape {
  const oneByOne = r() < 0.3;
  const k = (): number => (oneByOne ? 1 : int(r, 1, 3));
  const plain = r() < 0.6;
  return {
    n: plain ? 1 : int(r, 1, 2), h: int(r, 1, 9), w: int(r, 1, 9), ic: int(r, 1, 9), oc: int(r, 1, 7),
    fh: k(), fw: k(), sh: int(r, 1, 3), sw: int(r, 1, 3), dh: plain ? 1 : int(r, 1, 2), dw: plain ? 1 : int(r, 1, 2),
    padding: pick(r, ['same', 'valid'] as const),
    ...(kind === 'depthwiseConv2d' ? { depthMult: pick(r, [1, 1, 1, 2, 4, 8]) } : {}),
  };
}

export interface SpecRun {
  readonly output: Uint8Array;
  readonly traced: Uint8Array;
  readonly events: readonly TraceEvent[];
  readonly walkMatchesTrace: boolean;
  readonly scratchBytes: readonly number[];
}

interface Placed { readonly inst: KernelInstance; readonly tensorOffsets: readonly (number | null)[]; readonly arenaBytes: number; readonly scratchBytes: readonly number[] }

/** Op 0 of `c` prepared by `spec` and bound to the layout runSpec describes. */
export function instanceFor(spec: KernelSpec, c: OpCase, offsets?: ReadonlyMap<number, number>): Placed {
  const issues = checkConstraints(spec, makeOpContext(c.graph, 0));
  if (issues.length) throw new Error(issues.map((i) => i.message).join('; '));
  const prepared = spec.prepare(makeOpContext(c.graph, 0));
  let next = 0;
  const align = (x: number): number => Math.ceil(x / 16) * 16;
  const tensorOffsets = c.graph.tensors.map((t, i) => {
    if (t.data !== null) return null;
    const off = offsets?.get(i) ?? next;
    next = Math.max(next, align(off + byteSize(t.dtype, t.shape)));
    return off;
  });
  const scratchOffsets = prepared.scratch.map((d) => {
    const off = next;
    next = align(next + d.sizeBytes);
    return off;
  });
  const inst = instantiateOp(c.graph, { opIndex: 0, spec, prepared }, tensorOffsets, scratchOffsets);
  return { inst, tensorOffsets, arenaBytes: Math.max(16, align(next)), scratchBytes: prepared.scratch.map((d) => d.sizeBytes) };
}

/**
 * Run `spec` on op 0 of `c`: tensors laid out one after the other (16-aligned), then the spec's
 * scratch, unless `offsets` places them (tensor index -> byte offset; scratch after the largest end).
 */
export function runSpec(spec: KernelSpec, c: OpCase, offsets?: ReadonlyMap<number, number>): SpecRun {
  const { inst, tensorOffsets, arenaBytes, scratchBytes } = instanceFor(spec, c, offsets);
  const runOnce = (traced: boolean): { out: Uint8Array; events: TraceEvent[] } => {
    const buf = new ArrayBuffer(arenaBytes);
    const views = makeArenaViews(buf);
    for (const [t, b] of c.inputs) views.u8.set(b, tensorOffsets[t] ?? 0);
    const k = compileKernel(inst, views);
    const events: TraceEvent[] = [];
    if (traced) k.runTraced((_op, log, n) => { for (let i = 0; i < n; i++) events.push(decodeTraceEvent(log, i)); });
    else k.run();
    const t = c.graph.tensors[c.output]!;
    const o = tensorOffsets[c.output] ?? 0;
    return { out: views.u8.slice(o, o + byteSize(t.dtype, t.shape)), events };
  };
  const fast = runOnce(false);
  const traced = runOnce(true);
  const walked: TraceEvent[] = [];
  walkAddresses(inst, (_op, log, n) => { for (let i = 0; i < n; i++) walked.push(decodeTraceEvent(log, i)); });
  const walkMatchesTrace = walked.length === traced.events.length && walked.every((e, i) => JSON.stringify(e) === JSON.stringify(traced.events[i]));
  return { output: fast.out, traced: traced.out, events: traced.events, walkMatchesTrace, scratchBytes };
}

export interface TransposeShape {
  readonly n: number; readonly h: number; readonly w: number; readonly ic: number; readonly oc: number;
  readonly fh: number; readonly fw: number; readonly sh: number; readonly sw: number; readonly padding: Padding;
  readonly activation?: Activation; readonly bias?: boolean;
}

/** A random int8 transposeConv case ([output_shape, filter, input, bias?] as TFLite orders them). */
export function transposeConvCase(r: Rng, s: TransposeShape): OpCase {
  const oh = s.padding === 'same' ? s.h * s.sh : (s.h - 1) * s.sh + s.fh;
  const ow = s.padding === 'same' ? s.w * s.sw : (s.w - 1) * s.sw + s.fw;
  const perChannel = r() < 0.5;
  const fScale = Array.from({ length: perChannel ? s.oc : 1 }, () => 0.001 + r() * 0.01);
  const hasBias = s.bias ?? r() < 0.8;
  const tensors: Tensor[] = [
    { ...tensor('shape', [4], [0], [0], 0, int32s([s.n, oh, ow, s.oc]), 'int32'), quant: null },
    tensor('filter', [s.oc, s.fh, s.fw, s.ic], fScale, fScale.map(() => 0), 0, bytes8(r, s.oc * s.fh * s.fw * s.ic)),
    tensor('in', [s.n, s.h, s.w, s.ic], [0.005 + r() * 0.1], [int(r, -20, 20)]),
    ...(hasBias ? [tensor('bias', [s.oc], [0], [0], 0, int32s(Array.from({ length: s.oc }, () => int(r, -5000, 5000))), 'int32')] : []),
    tensor('out', [s.n, oh, ow, s.oc], [0.02 + r() * 0.28], [int(r, -20, 20)]),
  ];
  const out = tensors.length - 1;
  const graph = {
    name: 'transposeConv-cmsis', tensors,
    ops: [{ kind: 'transposeConv', inputs: [0, 1, 2, ...(hasBias ? [3] : [])], outputs: [out], options: { padding: s.padding, strideH: s.sh, strideW: s.sw, activation: s.activation ?? 'none' } }],
    inputs: [2], outputs: [out],
  } as unknown as Graph;
  return { graph, inputs: new Map([[2, bytes8(r, byteSize('int8', tensors[2]!.shape))]]), output: out };
}

/** A random transposeConv shape; `reverse` picks CMSIS-NN's reverse-conv path (depth > 16, strides <= 2). */
export function randomTransposeShape(r: Rng, reverse: boolean): TransposeShape {
  return {
    n: int(r, 1, 2), h: int(r, 1, 5), w: int(r, 1, 7), ic: reverse ? int(r, 17, 24) : int(r, 1, 16), oc: int(r, 1, 6),
    fh: int(r, 1, 4), fw: int(r, 1, 4), sh: int(r, 1, reverse ? 2 : 3), sw: int(r, 1, reverse ? 2 : 3), padding: pick(r, ['same', 'valid'] as const),
  };
}

const list = (xs: ArrayLike<number>): string => (xs.length ? Array.from(xs).join(', ') : '0');

/** The emitted C of each (spec, case), built with gcc and run: one hex line per case's output. */
export function runSpecsC(runs: readonly (readonly [KernelSpec, OpCase])[]): string[] {
  const placed = runs.map(([spec, c]) => instanceFor(spec, c));
  const kernels: CKernel[] = placed.map((p) => emitCKernel(p.inst));
  const unit = emitCUnit(kernels);
  let data = '';
  let body = '';
  placed.forEach((p, i) => {
    const k = kernels[i]!;
    const c = runs[i]![1];
    const call = cKernelCall(i, k, p.arenaBytes);
    data += call.data;
    const args = call.args;
    for (const [t, bytes] of c.inputs) {
      data += `static const uint8_t in${i}_${t}[] = { ${list(bytes)} };\n`;
      body += `  memcpy((uint8_t*)arena${i} + ${p.tensorOffsets[t]}, in${i}_${t}, ${bytes.length});\n`;
    }
    const out = c.graph.tensors[c.output]!;
    body += `  ${unit.functionNames[i]}(${args.join(', ')});\n  dump((uint8_t*)arena${i} + ${p.tensorOffsets[c.output]}, ${byteSize(out.dtype, out.shape)});\n`;
  });
  const src = `${unit.source}\n#include <stdio.h>\n#include <string.h>\nstatic void dump(const uint8_t* p, int n) { for (int i = 0; i < n; ++i) printf("%02x", p[i]); printf("\\n"); }\n${data}\n__attribute__((optimize("O0"))) int main(void) {\n${body}  return 0;\n}\n`;
  const text = compileAndRunC(src).trim();
  return text === '' ? [] : text.split('\n');
}
