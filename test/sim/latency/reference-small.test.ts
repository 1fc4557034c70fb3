// TFLM's own GATHER, PACK, UNPACK, SQUEEZE, EXPAND_DIMS and PRELU kernels in the instruction model
// (src/sim/latency/instructions/reference-small.ts): block counts worked out by hand from their C
// loops, and predictions against lab measurements of the real CMSIS-NN builds typed in below.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadModel } from '../../../src/api/index.ts';
import type { Blocks } from '../../../src/sim/index.ts';
import { M55_MVE_BUILD, M7_DSP_BUILD, M7_REFERENCE_BUILD, opInstructions } from '../../../src/sim/index.ts';
import { fusedBinaryLoops, gatherBlocks, packBlocks, preluBlocks } from '../../../src/sim/latency/instructions/reference-small.ts';
import { OP_MODELS } from '../../oracle-paths.ts';

describe('block counts of TFLM\'s data-movement kernels and PReLU', () => {
  it('gather: one memcpy per index, its alignment path from the index value', () => {
    const b: Blocks = {};
    // [5, 6] on axis 0 with indices 0, 4, 1, 2: rows of 6 bytes to output offsets 0, 6, 12, 18 from 0, 24, 6, 12.
    expect(gatherBlocks(b, [5, 6], 0, 0, [4], [0, 4, 1, 2])).toBe(true);
    expect(b['glue.gather.coord']).toBe(4);
    expect(b['memcpy.call']).toBe(4);
    // Only the first copy has both pointers word aligned; the others take the unaligned short path.
    expect(b['memcpy.main']).toBe(1);
    expect(b['memcpy.unaligned']).toBe(3);
    // Runtime indices: the alignment is unknown unless the rows are whole words.
    expect(gatherBlocks({}, [5, 6], 0, 0, [4], null)).toBe(false);
    expect(gatherBlocks({}, [5, 8], 0, 0, [4], null)).toBe(true);
  });
  it('pack: per input and outer index a byte loop of the copy size', () => {
    const b: Blocks = {};
    // Three [2, 4] inputs packed on axis 1 into [2, 3, 4]: outer 2, copy 4.
    packBlocks(b, 'pack', [2, 3, 4], 1, 3, 2);
    expect(b).toEqual({ 'glue.pack.dim': 4, 'glue.pack.tensor': 3, 'glue.pack.outer': 6, 'glue.pack.elem': 24 });
  });
  it('PReLU: BroadcastBinaryOpSimple fuses [1,4,5,3] x alpha [1,1,3] into loops of 3 (both contiguous) and 20 (alpha stride 0)', () => {
    expect(fusedBinaryLoops([1, 4, 5, 3], [1, 1, 3], [1, 4, 5, 3])).toEqual({ extent: [3, 20], aStride: [1, 3], bStride: [1, 0] });
    const b: Blocks = {};
    // Two alpha values of three above the zero point: of the 30 negative inputs, 20 give a negative product.
    preluBlocks(b, [1, 4, 5, 3], [1, 1, 3], [1, 4, 5, 3], 1, -7, 2 / 3);
    expect(b['glue.prelu.loop']).toBe(1);
    expect(b['glue.prelu.inner']).toBe(20);
    expect(b['glue.prelu.elem']).toBe(60);
    expect(b['MultiplyByQuantizedMultiplier.L.nonNegative']).toBe(30);
    expect(b['MultiplyByQuantizedMultiplier.R.negative']).toBe(20);
    expect(b['MultiplyByQuantizedMultiplier.R.nonNegative']).toBeCloseTo(10, 9);
  });
});

/**
 * Lab measurements of the op-models (testdata/op-models) on TFLM 90b983c + CMSIS-NN 4ab83cc3 built
 * for cortex-m7+fp and cortex-m55 (as costs-m7-dsp.ts / costs-m55-mve.ts say), QEMU 7.2 with the
 * exact instruction counter, the op's window minus the profiler hooks' 11 instructions, seed-1
 * inputs; not in the sweeps the tables were fitted on. [model, M7, M55]
 */
const MEASURED: readonly (readonly [string, number, number])[] = [
  ['GATHER_1', 359, 356], ['GATHER_2', 682, 678], ['GATHER_3', 592, 588],
  ['PACK_1', 360, 341], ['PACK_2', 470, 454], ['PACK_3', 579, 602],
  ['UNPACK_1', 339, 338], ['UNPACK_2', 570, 561], ['UNPACK_3', 458, 470],
  ['PRELU_1', 4663, 4226], ['PRELU_2', 8247, 7127], ['PRELU_3', 6999, 6076],
  ['SQUEEZE_1', 245, 236], ['SQUEEZE_2', 234, 229], ['SQUEEZE_3', 235, 228],
  ['EXPAND_DIMS_1', 184, 165], ['EXPAND_DIMS_2', 155, 144], ['EXPAND_DIMS_3', 160, 147],
];

describe('the op-models against the lab measurements of the real builds', () => {
  for (const [name, m7, m55] of MEASURED) {
    it(`${name}: within 2% on the M7 DSP and M55 MVE builds; estimated on the unmeasured reference build`, () => {
      const graph = loadModel(readFileSync(join(OP_MODELS, `${name}.tflite`))).graph;
      for (const [build, measured] of [[M7_DSP_BUILD, m7], [M55_MVE_BUILD, m55]] as const) {
        expect(Math.abs(opInstructions(graph, 0, build).instructions / measured - 1)).toBeLessThan(0.02);
      }
      expect(() => opInstructions(graph, 0, M7_REFERENCE_BUILD)).toThrow(/has no measured cost/);
    });
  }
});
