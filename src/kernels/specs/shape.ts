// Shape: TFLM shape.cc writes the input's dims into the int32 output (the only output type TFLM
// supports); the input's data is never read. The dims are prepare-time constants.
import { For, Store } from '../nest.ts';
import type { KernelSpec } from '../spec.ts';
import { constraint } from './common.ts';
import { TFLITE_SHAPE_PARAMS, stock } from '../tflm-memory.ts';

export const shapeSpec: KernelSpec<'shape'> = {
  kind: 'shape',
  tflmPersistent: stock(TFLITE_SHAPE_PARAMS, null),
  constraints: [
    constraint('shape.output-type', 'output must be an int32 tensor (TFLM supports no other out_type)', (c) => c.output(0).dtype === 'int32'),
    constraint('shape.output-shape', 'output must be 1-D with one element per input dim', (c) => {
      const y = c.output(0).shape;
      return y.length === 1 && y[0] === (c.input(0)?.shape.length ?? -1);
    }),
  ],
  prepare(c) {
    const dims = Int32Array.from(c.input(0)?.shape ?? []);
    return { scalars: { n: dims.length }, arrays: { dims }, buffers: { output: { kind: 'output', slot: 0 } }, scratch: [] };
  },
  body: [For('i', '0', 'n', [Store('output', 'i', 'dims[i]')])],
};
