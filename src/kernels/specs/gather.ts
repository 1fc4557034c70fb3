// Gather: TFLM gather.cc Gather<InputT, CoordsT>: for batch, outer, coord (in that order) it
// memcpy's `inner` elements from input[((batch * outer + o) * axis_size + coords[batch * coord_size
// + coord]) * inner] to the output, sequentially. Indices are int32 and must be a constant tensor
// here (their values become addresses, which mcusim's address walk must know without data) within
// [0, axis_size) (TFLM's DCHECKs); batch_dims <= axis as Prepare requires.
import { For, Let, Store } from '../nest.ts';
import type { KernelSpec, OpContext } from '../spec.ts';
import { constraint } from './common.ts';
import { constInt32s, normalizeAxis, product, sameDtype, sameShape } from './copy-common.ts';
import { TFLITE_GATHER_PARAMS, stock, writableDimsBytes } from '../tflm-memory.ts';

interface Geometry {
  readonly batch: number;
  readonly outer: number;
  readonly axisSize: number;
  readonly inner: number;
  readonly coordSize: number;
  readonly shape: readonly number[];
}

function geometry(c: OpContext<'gather'>): Geometry | null {
  const x = c.input(0)?.shape ?? [];
  const idx = c.input(1)?.shape ?? [];
  const axis = normalizeAxis(c.op.options.axis, x.length);
  const b = c.op.options.batchDims < 0 ? c.op.options.batchDims + idx.length : c.op.options.batchDims;
  if (axis === null || b < 0 || b > axis || b > idx.length || x.slice(0, b).some((d, i) => d !== idx[i])) return null;
  return {
    batch: product(x, 0, b),
    outer: product(x, b, axis),
    axisSize: x[axis] ?? 0,
    inner: product(x, axis + 1),
    coordSize: product(idx, b),
    shape: [...x.slice(0, axis), ...idx.slice(b), ...x.slice(axis + 1)],
  };
}

export const gatherSpec: KernelSpec<'gather'> = {
  kind: 'gather',
  // No Init; Prepare copies the output dims to the persistent arena.
  tflmPersistent: { ...stock(TFLITE_GATHER_PARAMS, null), prepareBuffers: (c) => [writableDimsBytes(c.output(0))] },
  constraints: [
    constraint('gather.types', 'params and output must be int8 (TFLM gathers float32 and int8 only)', (c) => c.input(0)?.dtype === 'int8' && sameDtype(c.input(0), c.output(0))),
    constraint('gather.geometry', 'axis must lie in [-rank, rank) and batch_dims in [0, axis] with matching leading dims; output dims params[:axis] + indices[batch_dims:] + params[axis+1:]', (c) => {
      const g = geometry(c);
      return g !== null && sameShape(g.shape, c.output(0).shape);
    }),
    constraint('gather.indices', 'indices must be a constant int32 tensor with every value in [0, axis size) (non-constant indices are not supported)', (c) => {
      const v = constInt32s(c.input(1));
      const g = geometry(c);
      return v !== null && g !== null && v.every((i) => i >= 0 && i < g.axisSize);
    }),
  ],
  prepare(c) {
    const g = geometry(c) as Geometry;
    return {
      scalars: { batch: g.batch, outer: g.outer, axisSize: g.axisSize, inner: g.inner, coordSize: g.coordSize },
      arrays: { coords: Int32Array.from(constInt32s(c.input(1)) ?? []) },
      buffers: { input: { kind: 'input', slot: 0 }, output: { kind: 'output', slot: 0 } },
      scratch: [],
    };
  },
  body: [
    For('b', '0', 'batch', [
      For('o', '0', 'outer', [
        Let('bo', 'b * outer + o'),
        For('k', '0', 'coordSize', [
          Let('outAt', '(bo * coordSize + k) * inner'),
          Let('inAt', '(bo * axisSize + coords[b * coordSize + k]) * inner'),
          For('j', '0', 'inner', [Store('output', 'outAt + j', 'input[inAt + j]')]),
        ]),
      ]),
    ]),
  ],
};
