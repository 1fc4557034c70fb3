// The CMSIS-NN dispatch the cost model mirrors (arm_convolve_wrapper_s8, arm_depthwise_conv_wrapper_s8)
// on the MLPerf Tiny models, the 2x2 blocking's MAC accounting, the flash stall model, and the
// engine overhead: each checked against counts worked out by hand.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadModel } from '../../../../src/api/index.ts';
import type { FlashReadTiming } from '../../../../src/sim/index.ts';
import { ENGINE_OP_CYCLES, blockedMacs, flashStall, getTarget, opComputeCycles, validTaps } from '../../../../src/sim/index.ts';
import { ORACLE } from '../../../oracle-paths.ts';

const kws = loadModel(readFileSync(`${ORACLE}/models-real/mlperf_kws_dscnn.tflite`)).graph;
const ic = loadModel(readFileSync(`${ORACLE}/models-real/mlperf_ic_resnet8.tflite`)).graph;
const m4 = getTarget('nucleo-l4r5zi');
const m85 = getTarget('ek-ra8d1');

describe('CMSIS-NN code paths', () => {
  it('KWS: im2col conv, 3x3 depthwise, 1x1 fast pointwise, vec-mat FC; Helium takes the depthwise _opt path', () => {
    const paths = kws.ops.map((_, i) => opComputeCycles(kws, i, m4, 'cmsis-nn').path);
    expect(paths.slice(0, 3)).toEqual(['arm_convolve_s8 (im2col + mat-mult)', 'arm_depthwise_conv_3x3_s8', 'arm_convolve_1x1_s8_fast']);
    expect(paths[11]).toBe('arm_fully_connected_s8 (arm_nn_vec_mat_mult_t_s8)');
    expect(opComputeCycles(kws, 1, m85, 'cmsis-nn').path).toBe('arm_depthwise_conv_s8_opt');
    expect(opComputeCycles(kws, 1, m4, 'reference').path).toBe('reference DepthwiseConvPerChannel');
  });
  it('IC: the strided 1x1 shortcut is arm_convolve_1x1_s8 (one mat-mult call per output row)', () => {
    expect(opComputeCycles(ic, 6, m4, 'cmsis-nn').path).toBe('arm_convolve_1x1_s8');
    expect(opComputeCycles(ic, 3, m4, 'cmsis-nn').path).toBe('arm_elementwise_add_s8');
  });
  it('the engine adds its per-op cycles outside the family constant', () => {
    const t = opComputeCycles(kws, 2, m4, 'cmsis-nn', 'tflm', 1);
    const a = opComputeCycles(kws, 2, m4, 'cmsis-nn', 'aot', 1);
    expect(t.cycles - a.cycles).toBeCloseTo(ENGINE_OP_CYCLES.tflm - ENGINE_OP_CYCLES.aot, 6);
    const k2 = opComputeCycles(kws, 2, m4, 'cmsis-nn', 'aot', 2);
    expect(k2.cycles - k2.engineCycles).toBeCloseTo(2 * (a.cycles - a.engineCycles), 6);
  });
});

describe('blockedMacs / validTaps', () => {
  it('splits a 3 x 5 x 7 mat-mult into 2x2-block, k-tail and edge MACs that add up', () => {
    // rows 3 -> 2 blocked, cols 5 -> 4 blocked, k 7 -> 4 in blocks: 2*4*4 = 32 block, 2*4*3 = 24 tail.
    const m = blockedMacs(3, 5, 7, 'mmMac');
    expect(m).toEqual({ mmMac: 32, tailMac: 24, edgeMac: (15 - 8) * 7 });
    expect((m.mmMac ?? 0) + (m.tailMac ?? 0) + (m.edgeMac ?? 0)).toBe(3 * 5 * 7);
  });
  it('counts taps inside the input: 3-wide same padding over 5 outputs loses one tap at each edge', () => {
    expect(validTaps(5, 5, 3, 1, 1, 1)).toBe(15 - 2);
    expect(validTaps(3, 6, 3, 2, 1, 0)).toBe(9 - 1);
  });
});

describe('flashStall', () => {
  const flash: FlashReadTiming = { waitStates: 5, accessBytes: 8, accelerator: 'test', dataCacheBytes: 256, dataPrefetch: false };
  it('charges wait states per line, once when half the cache holds the weights, every pass when not', () => {
    expect(flashStall({ bytes: 128, passes: 10 }, 1000, flash)).toBe((128 / 8) * 5);
    expect(flashStall({ bytes: 1024, passes: 10 }, 1000, flash)).toBe(((1024 * 10) / 8) * 5);
  });
  it('with a data prefetch only the wait states beyond the compute per line stall', () => {
    const pf = { ...flash, dataPrefetch: true };
    // compute per line = 10240 / 10240 B * 8 = 8 cycles >= 5 wait states: hidden.
    expect(flashStall({ bytes: 1024, passes: 10 }, 10_240, pf)).toBe(0);
    // 2 cycles per line: 3 of the 5 wait states stall.
    expect(flashStall({ bytes: 1024, passes: 10 }, 2560, pf)).toBeCloseTo(((1024 * 10) / 8) * 3, 6);
  });
});
