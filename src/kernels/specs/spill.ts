// TinySeg Spill (paper §4.2.1, Table 1): streams its one input from the arena to storage slot `id`
// as one CRC-checked block, one device unit at a time through the planned I/O buffer (the
// runtime's transfer, sim/spill-store.ts and the C port's model_spill); with MFV compression
// (§5.1) a planned 256-entry histogram picks the representative value first. No loop nest: the
// transfer is the runtime's, the buffers here are what the planner reserves for it.
import type { KernelSpec } from '../spec.ts';
import { constraint } from './common.ts';
import { countOf, isCopyable } from './copy-common.ts';
import { mcusimOnly } from '../tflm-memory.ts';
import { MFV_HISTOGRAM_SCRATCH, STORAGE_IO_SCRATCH } from './storage-io.ts';

export const spillSpec: KernelSpec<'spill'> = {
  kind: 'spill',
  tflmPersistent: mcusimOnly('custom op Spill (TinySeg): not a TFLM builtin'),
  requestsScratch: true,
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
      buffers: { input: { kind: 'input', slot: 0 }, io: { kind: 'scratch', index: 0 } },
      scratch: [STORAGE_IO_SCRATCH, MFV_HISTOGRAM_SCRATCH],
    };
  },
  body: [],
};
