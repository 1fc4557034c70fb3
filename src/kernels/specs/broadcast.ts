// Shared shape logic and loop nests of the int8 binary elementwise ops (ADD, MUL): numpy-style
// right-aligned broadcasting as TFLM's NdArrayDescsForElementwiseBroadcast resolves it, the flat
// loop of reference_integer_ops::ElementWise when the (rank-extended) shapes are equal, and the
// row-major output loop of BroadcastBinaryFunction6DSlow otherwise (stride 0 on broadcast dims);
// also the constraints and Prepared parts both ops share (int8 types, offsets, activation range).
import type { BuiltinKind, Tensor } from '../../ir/index.ts';
import { broadcastShapes } from '../../ir/index.ts';
import type { Nest, Stmt } from '../nest.ts';
import { For, Let } from '../nest.ts';
import { activationRange } from '../quant.ts';
import type { Constraint, OpContext, Prepared } from '../spec.ts';
import { constraint, isInt8Quantized, scaleOf, zeroPointOf } from './common.ts';

type BinaryCtx = OpContext<'add'> | OpContext<'mul'> | OpContext<'sub'>;

/** TFLM's broadcast kernels extend every shape to 6-D. */
export const MAX_BROADCAST_RANK = 6;

/** Shape `s` left-padded with 1s to rank `r`. */
export function extendShape(s: readonly number[], r: number): number[] {
  return [...Array.from({ length: Math.max(0, r - s.length) }, () => 1), ...s];
}

/** Element strides of `s` read along `out` (same rank): 0 on dims where `s` broadcasts. */
export function broadcastStrides(s: readonly number[], out: readonly number[]): number[] {
  const strides = new Array<number>(s.length).fill(0);
  let acc = 1;
  for (let k = s.length - 1; k >= 0; k--) {
    const d = s[k] ?? 1;
    strides[k] = d === 1 && (out[k] ?? 1) !== 1 ? 0 : acc;
    acc *= d;
  }
  return strides;
}

/** Whether two shapes are equal after extension to a common rank (TFLM: no broadcast needed). */
export function sameExtendedShape(a: readonly number[], b: readonly number[]): boolean {
  const r = Math.max(a.length, b.length);
  const x = extendShape(a, r);
  const y = extendShape(b, r);
  return x.every((d, k) => d === y[k]);
}

/** True when input shapes broadcast to exactly the output shape, within TFLM's 6-D limit. */
export function broadcastsTo(in1: Tensor | null, in2: Tensor | null, out: Tensor, maxRank = MAX_BROADCAST_RANK): boolean {
  if (in1 === null || in2 === null) return false;
  const b = broadcastShapes(in1.shape, in2.shape);
  if (b === null || b.length > maxRank) return false;
  const r = Math.max(b.length, out.shape.length);
  const x = extendShape(b, r);
  const y = extendShape(out.shape, r);
  return x.every((d, k) => d === y[k]);
}

export interface BroadcastParams {
  readonly flags: { readonly broadcast: number; readonly rank: number };
  readonly scalars: Record<string, number>;
}

/**
 * Flags and scalars of the binary loop: `n` (flat size), and for the broadcast case per output
 * dim k the extent `od<k>` and the element strides `sa<k>`, `sb<k>` of input1 and input2.
 */
export function broadcastParams(in1: Tensor, in2: Tensor, out: Tensor): BroadcastParams {
  const n = out.shape.reduce((a, d) => a * d, 1);
  if (sameExtendedShape(in1.shape, in2.shape)) return { flags: { broadcast: 0, rank: 0 }, scalars: { n } };
  const r = Math.max(in1.shape.length, in2.shape.length, out.shape.length);
  const od = extendShape(out.shape, r);
  const sa = broadcastStrides(extendShape(in1.shape, r), od);
  const sb = broadcastStrides(extendShape(in2.shape, r), od);
  const scalars: Record<string, number> = { n };
  od.forEach((d, k) => {
    scalars[`od${k}`] = d;
    scalars[`sa${k}`] = sa[k] ?? 0;
    scalars[`sb${k}`] = sb[k] ?? 0;
  });
  return { flags: { broadcast: 1, rank: r }, scalars };
}

/** `<kind>.types`: both inputs and the output are int8 quantized. */
export function binaryTypesConstraint<K extends BuiltinKind>(kind: K): Constraint<K> {
  return constraint(`${kind}.types`, 'inputs and output must be int8 quantized tensors', (c: OpContext<K>) =>
    isInt8Quantized(c.input(0)) && isInt8Quantized(c.input(1)) && isInt8Quantized(c.output(0)));
}

/** `<kind>.broadcast`: the input shapes broadcast to the output shape. */
export function broadcastConstraint<K extends BuiltinKind>(kind: K, maxRank = MAX_BROADCAST_RANK): Constraint<K> {
  return constraint(`${kind}.broadcast`, `input shapes must broadcast (numpy rules, rank <= ${maxRank}) to the output shape`, (c: OpContext<K>) =>
    broadcastsTo(c.input(0), c.input(1), c.output(0), maxRank));
}

export interface BinaryQuant {
  readonly offsets: { readonly input1Offset: number; readonly input2Offset: number; readonly outputOffset: number };
  readonly act: { readonly actMin: number; readonly actMax: number };
}

/** Zero-point offsets (inputs negated) and the output's fused activation range. */
export function binaryQuant(c: BinaryCtx): BinaryQuant {
  const output = c.output(0);
  const act = activationRange(c.op.options.activation, scaleOf(output), zeroPointOf(output));
  return {
    offsets: { input1Offset: -zeroPointOf(c.input(0)), input2Offset: -zeroPointOf(c.input(1)), outputOffset: zeroPointOf(output) },
    act: { actMin: act.min, actMax: act.max },
  };
}

/** Broadcast flags, the loop scalars then the op's `scalars`, and the input1 / input2 / output bindings. */
export function binaryPrepared(c: Pick<OpContext, 'input' | 'output'>, scalars: Readonly<Record<string, number>>): Prepared {
  const bc = broadcastParams(c.input(0)!, c.input(1)!, c.output(0));
  return {
    flags: bc.flags,
    scalars: { ...bc.scalars, ...scalars },
    arrays: {},
    buffers: { input1: { kind: 'input', slot: 0 }, input2: { kind: 'input', slot: 1 }, output: { kind: 'output', slot: 0 } },
    scratch: [],
  };
}

/**
 * The loop nest of a binary op: `value(a, b)` gives the statements computing and storing one
 * output element at index `o` from the element indices `a` (input1) and `b` (input2).
 */
export function binaryNest(flags: Readonly<Record<string, number>>, value: (a: string, b: string, o: string) => Nest): Nest {
  if (!flags['broadcast']) return [For('i', '0', 'n', value('i', 'i', 'i'))];
  const rank = flags['rank'] ?? 0;
  const level = (k: number): Stmt[] => {
    if (k === rank) return [...value(`a${k - 1}`, `b${k - 1}`, `o${k - 1}`)];
    const prev = (p: string): string => (k === 0 ? '0' : `${p}${k - 1}`);
    return [
      For(`i${k}`, '0', `od${k}`, [
        Let(`a${k}`, `${prev('a')} + i${k} * sa${k}`),
        Let(`b${k}`, `${prev('b')} + i${k} * sb${k}`),
        Let(`o${k}`, `${prev('o')} * od${k} + i${k}`),
        ...level(k + 1),
      ]),
    ];
  };
  return level(0);
}
