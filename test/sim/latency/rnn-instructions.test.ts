// The recurrent kernels' instruction model (src/sim/latency/instructions/cmsis-rnn.ts and the
// FULLY_CONNECTED arm_convolve_1x1_s8_fast branch in paths-cmsis.ts): block counts worked out by
// hand from CMSIS-NN 4ab83cc3's loops on small shapes, which ops are measured on which build, and
// predicted against lab measurements of the real builds typed in below.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadModel } from '../../../src/api/index.ts';
import type { Blocks } from '../../../src/sim/index.ts';
import { M55_MVE_BUILD, M7_DSP_BUILD, estimateLatency, getTarget, opBlocks, opInstructions } from '../../../src/sim/index.ts';
import { lstmBlocks, svdfBlocks } from '../../../src/sim/latency/instructions/cmsis-rnn.ts';
import { dataPath, describeWithData, fetchedParts } from '../../oracle-paths.ts';

const sumOf = (b: Blocks, prefix: string): number => Object.entries(b).filter(([k]) => k.startsWith(prefix)).reduce((a, [, n]) => a + n, 0);

describe('LSTM block counts (arm_lstm_unidirectional_s8)', () => {
  it('DSP, batch major: 2 batches x 3 steps, input 5, 3 units; the first step of each sequence has no recurrent FC', () => {
    const b: Blocks = {};
    lstmBlocks(b, { batches: 2, steps: 3, inputSize: 5, units: 3, timeMajor: false, inputShifts: [1, -2, -2, -2], recurrentShifts: [-3, -3, -3, -3] }, false);
    // Batch major: 2 sequences of 3 steps, one row each; 2 x 2 steps read the previous output.
    expect(b['arm_lstm_unidirectional_s8.bm.step']).toBe(6);
    expect(b['arm_nn_lstm_step_s8.call']).toBe(6);
    expect(b['arm_nn_lstm_calculate_gate_s8_s16.call']).toBe(24);
    expect(b['arm_nn_lstm_calculate_gate_s8_s16.recurrent']).toBe(16);
    const f = 'arm_nn_vec_mat_mul_result_acc_s8_s16';
    // 24 input FCs + 16 recurrent FCs, each one row of 3 units: a pair and an odd row.
    expect(b[`${f}.call`]).toBe(40);
    expect(b[`${f}.pair`]).toBe(40);
    expect(b[`${f}.odd`]).toBe(40);
    // Input rows of 5: one 4-column pass and one single column; recurrent rows of 3: three single columns.
    expect(b[`${f}.pair.k4`]).toBe(24);
    expect(b[`${f}.pair.k1`]).toBe(24 + 16 * 3);
    expect(b[`${f}.pair.k4any`]).toBe(24);
    // Only the forget gate's input FC shifts left: 6 calls, one pair each.
    expect(b[`${f}.pair.lsh`]).toBe(6);
    // memset: the cell state once, then each gate's buffer (24); memcpy: the parameter struct once (220 B, aligned).
    expect(b['memset.call']).toBe(25);
    expect(b['memcpy.call']).toBe(1);
    expect(b['memcpy.w64']).toBe(3);
    // Three sigmoids, the cell gate's tanh and the cell's tanh per step, 3 values each.
    expect(b['arm_nn_activation_s16.call']).toBe(30);
    expect(b['arm_nn_activation_s16.elem']).toBe(90);
    expect(b['arm_elementwise_mul_s16.x2']).toBe(6);
    expect(b['arm_elementwise_mul_s16.x1']).toBe(6);
    expect(b['arm_elementwise_mul_s16_s8.batch']).toBe(6);
  });
  it('MVE, time major: 2 steps over 2 batches at once, input 20, 5 units (a group of four rows and one)', () => {
    const b: Blocks = {};
    lstmBlocks(b, { batches: 2, steps: 2, inputSize: 20, units: 5, timeMajor: true, inputShifts: [-2, -2, -2, -2], recurrentShifts: [-2, -2, -2, -2] }, true);
    expect(b['arm_lstm_unidirectional_s8.tm.step']).toBe(2);
    expect(b['memcpy.call']).toBeUndefined();
    const f = 'arm_nn_vec_mat_mul_result_acc_s8_s16';
    // 8 input FCs and 4 recurrent FCs of 2 rows each.
    expect(b[`${f}.batch`]).toBe(24);
    expect(b[`${f}.quad`]).toBe(24);
    expect(b[`${f}.one`]).toBe(24);
    // 20 inputs: two 16-lane vectors; 5 recurrent columns: one.
    expect(b[`${f}.quad.v16`]).toBe(16 * 2 + 8);
    expect(b[`${f}.pair`]).toBeUndefined();
    // The element-wise kernels: 10 values, three 4-lane vectors; the s16 -> s8 output per batch row: two.
    expect(b['arm_elementwise_mul_acc_s16.v4']).toBe(2 * 3);
    expect(b['arm_elementwise_mul_s16_s8.v4']).toBe(2 * 2 * 2);
  });
});

describe('SVDF block counts', () => {
  it('DSP, int16 state (arm_svdf_state_s16_s8): rank 2, 6 filters, input 20, memory 5', () => {
    const b: Blocks = {};
    const fn = svdfBlocks(b, { batches: 1, inputSize: 20, filters: 6, memory: 5, rank: 2, int16: true, shift1: 1, shift2: -9 }, false);
    expect(fn).toBe('arm_svdf_state_s16_s8');
    // The state shift: memmove of (6 x 5 - 1) int16 = 58 bytes, byte by byte (source 2 bytes past the destination).
    expect(b['memmove.call']).toBe(1);
    expect(b['memmove.byte']).toBe(58);
    expect(b['memmove.small']).toBeUndefined();
    const f = 'arm_nn_vec_mat_mult_t_svdf_s8';
    // 3 row pairs; 20 columns = one 16-column pass + one 4-column pass; a left shift on every pair.
    expect(b[`${f}.pair`]).toBe(3);
    expect(b[`${f}.pair.k16`]).toBe(3);
    expect(b[`${f}.pair.k4`]).toBe(3);
    expect(b[`${f}.pair.k1`]).toBeUndefined();
    expect(b[`${f}.pair.lsh`]).toBe(3);
    expect(b[`${f}.odd`]).toBeUndefined();
    // Time: 6 filters x (two pairs of int16 + one single); rank 2 reduces 6 filters into 3 units.
    expect(b['arm_svdf_state_s16_s8.time.m2']).toBe(12);
    expect(b['arm_svdf_state_s16_s8.time.m1']).toBe(6);
    expect(b['arm_svdf_state_s16_s8.reduce.unit']).toBe(3);
    expect(b['arm_svdf_state_s16_s8.reduce.rank']).toBe(6);
    expect(b['arm_svdf_state_s16_s8.out']).toBe(3);
    expect(b['arm_svdf_state_s16_s8.out.lsh']).toBeUndefined();
  });
  it('MVE, int8 state (arm_svdf_s8): 2 batches, rank 1, 7 filters, input 33, memory 3', () => {
    const b: Blocks = {};
    const fn = svdfBlocks(b, { batches: 2, inputSize: 33, filters: 7, memory: 3, rank: 1, int16: false, shift1: -7, shift2: -5 }, true);
    expect(fn).toBe('arm_svdf_s8');
    // arm_memcpy_s8 of 2 x 7 x 3 - 1 = 41 bytes: three 16-byte beats.
    expect(b['arm_svdf_s8.shift.v16']).toBe(3);
    // arm_nn_vec_mat_mult_t_s8 per batch: one group of 4 rows and 3 single rows, 33 columns = 3 vectors.
    expect(b['arm_nn_vec_mat_mult_t_s8.call']).toBe(2);
    expect(b['arm_nn_vec_mat_mult_t_s8.row4.v16']).toBe(2 * 3);
    expect(b['arm_nn_vec_mat_mult_t_s8.row1']).toBe(2 * 3);
    // Scalar time loop on MVE; 14 outputs in 4-lane vectors; rank 1 has no reduction.
    expect(b['arm_svdf_s8.time.m1']).toBe(14 * 3);
    expect(b['arm_svdf_s8.out.v4']).toBe(4);
    expect(sumOf(b, 'arm_svdf_s8.reduce')).toBe(0);
  });
});

/**
 * Lab measurements (TFLM 90b983c + CMSIS-NN 4ab83cc3 built for cortex-m7+fp and cortex-m55 as in
 * costs-m7-dsp.ts / costs-m55-mve.ts, QEMU 7.2 with the exact instruction counter, the op's window
 * minus the 11 instructions of the profiler hooks, seed-1 inputs). None of these ops is in the
 * sweeps the tables were fitted on.
 */
const MEASURED: readonly { readonly file: string; readonly op: number; readonly m7: number; readonly m55: number; readonly path: string }[] = [
  { file: 'op-models/UNIDIRECTIONAL_SEQUENCE_LSTM_1.tflite', op: 0, m7: 16_139, m55: 12_040, path: 'arm_lstm_unidirectional_s8' },
  { file: 'op-models/UNIDIRECTIONAL_SEQUENCE_LSTM_2.tflite', op: 0, m7: 39_015, m55: 25_086, path: 'arm_lstm_unidirectional_s8' },
  { file: 'op-models/UNIDIRECTIONAL_SEQUENCE_LSTM_3.tflite', op: 0, m7: 14_480, m55: 11_227, path: 'arm_lstm_unidirectional_s8' },
  { file: 'op-models/SVDF_1.tflite', op: 0, m7: 2062, m55: 1353, path: 'arm_svdf_state_s16_s8' },
  { file: 'op-models/SVDF_2.tflite', op: 0, m7: 2091, m55: 1398, path: 'arm_svdf_state_s16_s8' },
  { file: 'op-models/SVDF_3.tflite', op: 0, m7: 2582, m55: 1683, path: 'arm_svdf_s8' },
  { file: 'models-extra/dtln_noise_suppression.tflite', op: 0, m7: 296_830, m55: 92_684, path: 'arm_lstm_unidirectional_s8' },
  { file: 'models-extra/dtln_noise_suppression.tflite', op: 1, m7: 174_518, m55: 58_844, path: 'arm_lstm_unidirectional_s8' },
  { file: 'models-extra/dtln_noise_suppression.tflite', op: 2, m7: 179_355, m55: 19_760, path: 'fully connected as arm_convolve_1x1_s8_fast' },
  { file: 'models-extra/trained_lstm_int8.tflite', op: 0, m7: 553_703, m55: 252_372, path: 'arm_lstm_unidirectional_s8' },
  { file: 'models-extra/micro_speech_lstm.tflite', op: 0, m7: 12_047_795, m55: 3_598_604, path: 'arm_lstm_unidirectional_s8' },
];

describeWithData(fetchedParts(...MEASURED.map((m) => m.file)), 'LSTM, SVDF and rank-3 FC against the lab measurements of the real builds', () => {
  for (const m of MEASURED) {
    it(`${m.file} op ${m.op} (${m.path}): within 2% on the M7 DSP and M55 MVE builds`, () => {
      const graph = loadModel(readFileSync(dataPath(m.file))).graph;
      for (const [build, measured] of [[M7_DSP_BUILD, m.m7], [M55_MVE_BUILD, m.m55]] as const) {
        const p = opInstructions(graph, m.op, build);
        expect(p.path).toBe(m.path);
        expect(Math.abs(p.instructions / measured - 1)).toBeLessThan(0.02);
      }
    });
  }
});

describeWithData(fetchedParts('models-extra/dtln_noise_suppression.tflite'), 'which builds price the recurrent ops', () => {
  it('DTLN: measured on the M7 and M55 builds; the plain-C (M0+) build has no LSTM or rank-3 FC model and says so', () => {
    const graph = loadModel(readFileSync(dataPath('models-extra/dtln_noise_suppression.tflite'))).graph;
    for (const board of ['nucleo-h743zi2', 'ensemble-e7']) expect(estimateLatency(graph, { target: getTarget(board), library: 'cmsis-nn' }).estimatedOps).toEqual([]);
    expect(estimateLatency(graph, { target: getTarget('rpi-pico'), library: 'cmsis-nn' }).estimatedOps).toEqual([0, 1, 2]);
    expect(() => opBlocks(graph, 0, 'c')).toThrow(/no instruction model/);
  });
});
