// TinySeg Spill (paper §4.2.1, Table 1): copies its one input, element by element in order, into
// the storage staging buffer of slot `id`; the runtime then writes that buffer to the storage
// device as one CRC-checked block. The staging buffer is bound as an extra output slot (slot 0)
// by storage-binding.ts: the op itself has no outputs in the graph.
import { For, Store } from '../nest.ts';
import type { KernelSpec } from '../spec.ts';
import { constraint } from './common.ts';
import { countOf, isCopyable } from './copy-common.ts';
import { mcusimOnly, stagingBytes } from '../tflm-memory.ts';

export const spillSpec: KernelSpec<'spill'> = {
  kind: 'spill',
  tflmPersistent: mcusimOnly('custom op Spill (TinySeg): not a TFLM builtin', (c) => stagingBytes(c.input(0))),
  constraints: [
    constraint('spill.arity', 'spill takes exactly one input and has no outputs', (c) => c.op.inputs.length === 1 && c.op.outputs.length === 0),
    constraint('spill.input', 'the spilled tensor must be an int8, int16 or int32 activation (not a constant)', (c) => {
      const t = c.input(0);
      return isCopyable(t) && t !== null && t.data === null;
    }),
    constraint('spill.id', 'slot id must be a non-negative int32', (c) => Number.isInteger(c.op.options.id) && c.op.options.id >= 0 && c.op.options.id <= 0x7fffffff),
  ],
  prepare(c) {
    return {
      scalars: { count: countOf(c.input(0)) },
      arrays: {},
      buffers: { input: { kind: 'input', slot: 0 }, storage: { kind: 'output', slot: 0 } },
      scratch: [],
    };
  },
  body: [For('i', '0', 'count', [Store('storage', 'i', 'input[i]')])],
};
