// Found by the real-library check on Cortex-M55 (testdata/real-builds/cmsis-nn): CMSIS-NN 4ab83cc3's MVE
// arm_depthwise_conv_s8_opt passes `bias + block_offset` to arm_nn_depthwise_conv_nt_t_s8, so an op
// without bias reads the bias of its second 124-channel block from address 496 (firmware bytes):
// the spec refuses such an op (constraint depthwiseConv2d.cmsis-nn-mve-no-bias) and accepts it with
// a bias, with at most 124 channels, with fewer than 4 output pixels (the left-over loop tests the
// original pointer) and on DSP.
import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import { checkConstraints, kernelRegistry, makeOpContext } from '../../../src/kernels/index.ts';
import type { KernelSpec } from '../../../src/kernels/index.ts';
import { convCase } from './helpers.ts';
import type { ConvShape } from './helpers.ts';

const shape: ConvShape = { n: 1, h: 4, w: 2, ic: 136, oc: 0, fh: 1, fw: 2, sh: 1, sw: 3, dh: 1, dw: 1, padding: 'valid', depthMult: 1, bias: false };
const refusals = (cpu: string, s: ConvShape): string[] => {
  const c = convCase(seedrandom('dw-mve-bias'), 'depthwiseConv2d', s)!;
  return checkConstraints(kernelRegistry('cmsis-nn', cpu).specs.depthwiseConv2d as KernelSpec, makeOpContext(c.graph, 0)).map((i) => i.message);
};

describe('CMSIS-NN MVE depthwise opt without bias beyond 124 channels', () => {
  it('is refused on MVE (4 output pixels, 136 channels, no bias)', () => {
    expect(refusals('cortex-m55', shape).join()).toMatch(/depthwiseConv2d\.cmsis-nn-mve-no-bias/);
  });
  it('is accepted with a bias, with 124 channels, with 3 output pixels, and on DSP', () => {
    expect(refusals('cortex-m55', { ...shape, bias: true })).toEqual([]);
    expect(refusals('cortex-m55', { ...shape, ic: 124 })).toEqual([]);
    expect(refusals('cortex-m55', { ...shape, h: 3 })).toEqual([]);
    expect(refusals('cortex-m7', shape)).toEqual([]);
  });
});
