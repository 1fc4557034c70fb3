// Pack and Unpack: TFLM pack.cc PackImpl / unpack.cc UnpackImpl. Pack: for each input i in turn,
// for every outer index k, copy `copy_size` elements to output[(k * N + i) * copy_size]. Unpack:
// for each output i in turn, for every k, copy from input[(k * N + i) * copy_size]. Neither has a
// Prepare in TFLM (no requantization); the shapes are checked by the shape rules.
import type { Nest } from '../nest.ts';
import { For, Store } from '../nest.ts';
import type { BufferRef, KernelSpec, OpContext } from '../spec.ts';
import { constraint } from './common.ts';
import { isCopyable, normalizeAxis, product, sameDtype, sameShape } from './copy-common.ts';
import { TFLITE_PACK_PARAMS, TFLITE_UNPACK_PARAMS, stock } from '../tflm-memory.ts';

type PackCtx = OpContext<'pack'>;
type UnpackCtx = OpContext<'unpack'>;
const packAxis = (c: PackCtx): number | null => normalizeAxis(c.op.options.axis, c.output(0).shape.length);
const unpackAxis = (c: UnpackCtx): number | null => normalizeAxis(c.op.options.axis, c.input(0)?.shape.length ?? 0);

export const packSpec: KernelSpec<'pack'> = {
  kind: 'pack',
  tflmPersistent: stock(TFLITE_PACK_PARAMS, null),
  constraints: [
    constraint('pack.types', 'inputs and output must share one dtype, int8 or int32 (TFLM packs no int16)', (c) =>
      ['int8', 'int32'].includes(c.output(0).dtype) && c.op.inputs.every((_, i) => sameDtype(c.input(i), c.output(0)))),
    constraint('pack.axis', 'axis must lie in [-rank, rank) of the output', (c) => packAxis(c) !== null),
    constraint('pack.shape', 'values_count must equal the number of inputs, each shaped as the output without the axis dim, which is values_count', (c) => {
      const axis = packAxis(c);
      const y = c.output(0).shape;
      const n = c.op.inputs.length;
      const slice = y.filter((_, k) => k !== axis);
      return axis !== null && c.op.options.valuesCount === n && y[axis] === n && c.op.inputs.every((_, i) => sameShape(c.input(i)?.shape ?? [], slice));
    }),
  ],
  prepare(c) {
    const axis = packAxis(c) ?? 0;
    const y = c.output(0).shape;
    const n = c.op.inputs.length;
    const copy = product(y, axis + 1);
    const buffers: Record<string, BufferRef> = { output: { kind: 'output', slot: 0 } };
    c.op.inputs.forEach((_, i) => (buffers[`in${i}`] = { kind: 'input', slot: i }));
    return { flags: { inputs: n }, scalars: { outer: product(y, 0, axis), copy, outRow: n * copy }, arrays: {}, buffers, scratch: [] };
  },
  body(p): Nest {
    const n = p.flags?.['inputs'] ?? 0;
    return Array.from({ length: n }, (_, i) =>
      For('k', '0', 'outer', [For('j', '0', 'copy', [Store('output', `k * outRow + ${i} * copy + j`, `in${i}[k * copy + j]`)])]));
  },
};

export const unpackSpec: KernelSpec<'unpack'> = {
  kind: 'unpack',
  tflmPersistent: stock(TFLITE_UNPACK_PARAMS, null),
  constraints: [
    constraint('unpack.types', 'input and outputs must share one dtype (int8, int16 or int32)', (c) =>
      isCopyable(c.input(0)) && c.op.outputs.every((_, i) => sameDtype(c.output(i), c.input(0)))),
    constraint('unpack.axis', 'axis must lie in [-rank, rank) of the input', (c) => unpackAxis(c) !== null),
    constraint('unpack.shape', 'num must equal the number of outputs and the axis dim, each output shaped as the input without the axis', (c) => {
      const axis = unpackAxis(c);
      const x = c.input(0)?.shape ?? [];
      const n = c.op.outputs.length;
      const slice = x.filter((_, k) => k !== axis);
      return axis !== null && c.op.options.num === n && x[axis] === n && c.op.outputs.every((_, i) => sameShape(c.output(i).shape, slice));
    }),
  ],
  prepare(c) {
    const axis = unpackAxis(c) ?? 0;
    const x = c.input(0)?.shape ?? [];
    const n = c.op.outputs.length;
    const copy = product(x, axis + 1);
    const buffers: Record<string, BufferRef> = { input: { kind: 'input', slot: 0 } };
    c.op.outputs.forEach((_, i) => (buffers[`out${i}`] = { kind: 'output', slot: i }));
    return { flags: { outputs: n }, scalars: { outer: product(x, 0, axis), copy, inRow: n * copy }, arrays: {}, buffers, scratch: [] };
  },
  body(p): Nest {
    const n = p.flags?.['outputs'] ?? 0;
    return Array.from({ length: n }, (_, i) =>
      For('k', '0', 'outer', [For('j', '0', 'copy', [Store(`out${i}`, 'k * copy + j', `input[k * inRow + ${i} * copy + j]`)])]));
  },
};
