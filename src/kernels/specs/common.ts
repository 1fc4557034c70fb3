// Prepare-time helpers shared by specs: quantization accessors, per-channel multipliers as TFLM's
// PopulateConvolutionQuantizationParams computes them, reusable constraints and the Prepared of
// one-input one-output kernels.
import type { BuiltinKind, Tensor } from '../../ir/index.ts';
import { elementCount } from '../../ir/index.ts';
import { quantizeMultiplier } from '../quant.ts';
import type { Constraint, OpContext, Prepared } from '../spec.ts';

export function scaleOf(t: Tensor | null, i = 0): number {
  return Math.fround(t?.quant?.scale[i] ?? 0);
}
export function zeroPointOf(t: Tensor | null, i = 0): number {
  return t?.quant?.zeroPoint[i] ?? 0;
}
export function isInt8Quantized(t: Tensor | null): boolean {
  return t !== null && t.dtype === 'int8' && t.quant !== null && t.quant.scale.length >= 1;
}

/** Multiplier/shift arrays for `n` channels from real multipliers (per-tensor broadcast). */
export function multiplierArrays(n: number, realOf: (c: number) => number): { mult: Int32Array; shift: Int32Array } {
  const mult = new Int32Array(n);
  const shift = new Int32Array(n);
  for (let c = 0; c < n; c++) {
    const q = quantizeMultiplier(realOf(c));
    mult[c] = q.multiplier;
    shift[c] = q.shift;
  }
  return { mult, shift };
}

/** double(in_s) * double(w_s[c]) / double(out_s), w_s broadcast when per-tensor. */
export function convMultipliers(input: Tensor, filter: Tensor, output: Tensor, channels: number): { mult: Int32Array; shift: Int32Array } {
  const inS = scaleOf(input);
  const outS = scaleOf(output);
  const ws = filter.quant?.scale ?? [];
  return multiplierArrays(channels, (c) => (inS * Math.fround(ws.length > 1 ? (ws[c] ?? 0) : (ws[0] ?? 0))) / outS);
}

export function rank(t: Tensor | null): number {
  return t?.shape.length ?? -1;
}
export function dim(t: Tensor | null, i: number): number {
  const s = t?.shape ?? [];
  return s[i < 0 ? s.length + i : i] ?? 0;
}
export function count(t: Tensor | null): number {
  return t === null ? 0 : elementCount(t.shape);
}

export function constraint<K extends BuiltinKind>(id: string, text: string, holds: (ctx: OpContext<K>) => boolean): Constraint<K> {
  return { id, text, holds };
}

/** Activations the int8 kernels can fuse. */
export function fusableActivation(a: string): boolean {
  return a === 'none' || a === 'relu' || a === 'relu6' || a === 'reluN1To1';
}

/** `<kind>.activation`: a fusable activation. */
export function activationConstraint<K extends BuiltinKind>(kind: K, activation: (c: OpContext<K>) => string): Constraint<K> {
  return constraint(`${kind}.activation`, 'fused activation must be none, relu, relu6 or reluN1To1', (c: OpContext<K>) => fusableActivation(activation(c)));
}

/** The Prepared of a kernel reading input slot 0 into output slot 0, with no arrays and no scratch. */
export function unaryPrepared(scalars: Readonly<Record<string, number>>, flags?: Readonly<Record<string, number>>): Prepared {
  return {
    ...(flags ? { flags } : {}),
    scalars,
    arrays: {},
    buffers: { input: { kind: 'input', slot: 0 }, output: { kind: 'output', slot: 0 } },
    scratch: [],
  };
}
