// Block counts of CMSIS-NN 4ab83cc3's recurrent kernels as TFLM 90b983c's cmsis_nn kernels call them,
// on the DSP and MVE code paths, from the C loop bounds:
// - UNIDIRECTIONAL_SEQUENCE_LSTM (int8 x int8 -> int16 cell): arm_lstm_unidirectional_s8 zeroes the cell
//   state (memset), then runs arm_nn_lstm_step_s8 per time step (time major: all batches at once;
//   batch major: per batch, after one memcpy of the 220-byte parameter struct). A step computes four
//   gates (arm_nn_lstm_calculate_gate_s8_s16: memset, the input FC, from the second step of a sequence
//   the recurrent FC, both arm_nn_vec_mat_mul_result_acc_s8_s16, then arm_nn_activation_s16), the cell
//   update (arm_elementwise_mul_s16, arm_elementwise_mul_acc_s16), tanh of the cell and the output
//   (arm_elementwise_mul_s16_s8). The FC takes rows in pairs on DSP (4 columns a pass, then 1), in fours
//   on MVE (16 columns a predicated vector); the element-wise s16 kernels 2 elements a pass on DSP, 4 a
//   vector on MVE; the activation is scalar on both.
// - SVDF: arm_svdf_state_s16_s8 (int16 state: arm_nn_vec_mat_mult_t_svdf_s8, rows in pairs on DSP,
//   threes on MVE) or arm_svdf_s8 (int8 state: arm_nn_vec_mat_mult_t_s8 without bias), after shifting
//   the state by one element (DSP: newlib memmove, a byte loop as the source is never word aligned;
//   MVE: arm_memcpy_s8's WLSTP loop); the time dot products (DSP: 2 int16 / 4 int8 a pass, then 1;
//   MVE: scalar), the bias / rank reduction and the requantized output (MVE: 4 a vector).
import type { Blocks } from './blocks.ts';
import { addBlock, floorDiv } from './blocks.ts';
import { vecMatMultTBlocks } from './cmsis-dsp-fc.ts';
import { vecMatMultTMveBlocks } from './cmsis-mve.ts';
import { memcpyBlocks, memsetBlocks } from './libc-counts.ts';

const v16 = (n: number): number => Math.ceil(n / 16);
const v4 = (n: number): number => Math.ceil(n / 4);

export interface LstmShape {
  /** Batches, time steps, input size, units (hidden size). */
  readonly batches: number;
  readonly steps: number;
  readonly inputSize: number;
  readonly units: number;
  readonly timeMajor: boolean;
  /** Requantize shifts of each gate's input and recurrent FC, in CMSIS-NN's gate order (forget, input, cell, output). */
  readonly inputShifts: readonly number[];
  readonly recurrentShifts: readonly number[];
}

/** sizeof(cmsis_nn_lstm_params) in the 32-bit builds: 15 int32 fields and four 40-byte gate structs. */
const LSTM_PARAMS_BYTES = 220;

/**
 * arm_nn_vec_mat_mul_result_acc_s8_s16: `rows` source rows (batch_size) x `units` weight rows of `cols`.
 * The requantize is not unswitched: each output row takes the left- or right-shift path (`.lsh`:
 * the left path's extra cost), and within it branches on signs of the values (averaged by the fit).
 */
function vecMatAccBlocks(b: Blocks, rows: number, cols: number, units: number, shift: number, mve: boolean, times: number): void {
  const f = 'arm_nn_vec_mat_mul_result_acc_s8_s16';
  const left = shift > 0 ? 1 : 0;
  const n = times * rows;
  addBlock(b, `${f}.call`, times);
  addBlock(b, `${f}.batch`, n);
  if (mve) {
    const quads = floorDiv(units, 4);
    const ones = units % 4;
    addBlock(b, `${f}.batch.anyQuad`, quads > 0 ? n : 0);
    addBlock(b, `${f}.batch.anyOne`, ones > 0 ? n : 0);
    addBlock(b, `${f}.quad`, n * quads);
    addBlock(b, `${f}.quad.v16`, n * quads * v16(cols));
    addBlock(b, `${f}.one`, n * ones);
    addBlock(b, `${f}.one.lsh`, n * ones * left);
    addBlock(b, `${f}.one.v16`, n * ones * v16(cols));
    return;
  }
  const pairs = floorDiv(units, 2);
  const odd = units % 2;
  const k4 = floorDiv(cols, 4);
  const k1 = cols % 4;
  for (const [part, m] of [['pair', n * pairs], ['odd', n * odd]] as const) {
    addBlock(b, `${f}.${part}`, m);
    addBlock(b, `${f}.${part}.lsh`, m * left);
    addBlock(b, `${f}.${part}.k4any`, k4 > 0 ? m : 0);
    addBlock(b, `${f}.${part}.k4`, m * k4);
    addBlock(b, `${f}.${part}.k1any`, k1 > 0 ? m : 0);
    addBlock(b, `${f}.${part}.k1`, m * k1);
  }
  addBlock(b, `${f}.batch.anyPair`, pairs > 0 ? n : 0);
}

/**
 * arm_nn_activation_s16 over `n` int16 values, one scalar pass per value (sign and saturation
 * branches averaged by the fit). A step always runs three sigmoids and two tanh of the same size, so
 * one cost per call and per value covers both.
 */
function activationS16Blocks(b: Blocks, n: number, times: number): void {
  const f = 'arm_nn_activation_s16';
  addBlock(b, `${f}.call`, times);
  addBlock(b, `${f}.elem`, times * n);
}

/** `times` passes of an s16 element loop over `n` values (DSP: 2 a pass, then 1; MVE: 4 a vector). */
function s16Loop(b: Blocks, f: string, n: number, mve: boolean, times: number): void {
  if (mve) { addBlock(b, `${f}.v4`, times * v4(n)); return; }
  addBlock(b, `${f}.x2`, times * floorDiv(n, 2));
  addBlock(b, `${f}.x2any`, n >= 2 ? times : 0);
  addBlock(b, `${f}.x1`, times * (n % 2));
}

/** arm_elementwise_mul_s16 / _mul_acc_s16 over `n` values. */
function elementwiseS16Blocks(b: Blocks, fn: 'arm_elementwise_mul_s16' | 'arm_elementwise_mul_acc_s16', n: number, mve: boolean, times: number): void {
  addBlock(b, `${fn}.call`, times);
  s16Loop(b, fn, n, mve, times);
}

/** arm_elementwise_mul_s16_s8: `rows` batches of `units` values into int8. */
function mulS16S8Blocks(b: Blocks, rows: number, units: number, mve: boolean, times: number): void {
  const f = 'arm_elementwise_mul_s16_s8';
  addBlock(b, `${f}.call`, times);
  addBlock(b, `${f}.batch`, times * rows);
  s16Loop(b, f, units, mve, times * rows);
}

/** arm_lstm_unidirectional_s8 (TFLM passes no hidden state: the cell state is zeroed per Invoke). */
export function lstmBlocks(b: Blocks, s: LstmShape, mve: boolean): void {
  const f = 'arm_lstm_unidirectional_s8';
  const u = s.units;
  addBlock(b, `${f}.call`, 1);
  memsetBlocks(b, s.batches * u * 2, 0);
  // Time major: one step per time step over all batches; batch major: per batch, one row per step.
  const rows = s.timeMajor ? s.batches : 1;
  const sequences = s.timeMajor ? 1 : s.batches;
  const steps = sequences * s.steps;
  const recurrent = sequences * Math.max(0, s.steps - 1);
  if (s.timeMajor) addBlock(b, `${f}.tm.step`, steps);
  else {
    addBlock(b, `${f}.bm`, 1);
    memcpyBlocks(b, LSTM_PARAMS_BYTES, 0, 0);
    addBlock(b, `${f}.bm.batch`, sequences);
    addBlock(b, `${f}.bm.step`, steps);
  }
  const n = rows * u;
  addBlock(b, 'arm_nn_lstm_step_s8.call', steps);
  for (let g = 0; g < 4; g++) {
    addBlock(b, 'arm_nn_lstm_calculate_gate_s8_s16.call', steps);
    addBlock(b, 'arm_nn_lstm_calculate_gate_s8_s16.recurrent', recurrent);
    for (let k = 0; k < steps; k++) memsetBlocks(b, n * 2, 0);
    vecMatAccBlocks(b, rows, s.inputSize, u, s.inputShifts[g] ?? 0, mve, steps);
    vecMatAccBlocks(b, rows, u, u, s.recurrentShifts[g] ?? 0, mve, recurrent);
    activationS16Blocks(b, n, steps);
  }
  elementwiseS16Blocks(b, 'arm_elementwise_mul_s16', n, mve, steps);
  elementwiseS16Blocks(b, 'arm_elementwise_mul_acc_s16', n, mve, steps);
  activationS16Blocks(b, n, steps);
  mulS16S8Blocks(b, rows, u, mve, steps);
}

export interface SvdfShape {
  readonly batches: number;
  readonly inputSize: number;
  /** Feature filters (units x rank), memory (time) size, rank. */
  readonly filters: number;
  readonly memory: number;
  readonly rank: number;
  /** int16 weights_time / state (arm_svdf_state_s16_s8) or int8 (arm_svdf_s8). */
  readonly int16: boolean;
  /** Requantize shifts of the feature FC and of the output. */
  readonly shift1: number;
  readonly shift2: number;
}

/**
 * newlib's memmove(dst, dst + k, n) for 0 < k < 4: never both word aligned, so a forward byte loop
 * (`.call`: the misaligned entry; `.small`: the other entry, taken for n <= 15).
 */
export function memmoveForwardMisalignedBlocks(b: Blocks, n: number): void {
  addBlock(b, 'memmove.call', 1);
  if (n <= 15) addBlock(b, 'memmove.small', 1);
  addBlock(b, 'memmove.byte', n);
}

/** arm_nn_vec_mat_mult_t_svdf_s8: `rows` filter rows of `cols` (DSP pairs: 16 / 4 / 1 columns a pass; MVE threes). */
function vecMatSvdfBlocks(b: Blocks, rows: number, cols: number, shift: number, mve: boolean, times: number): void {
  const f = 'arm_nn_vec_mat_mult_t_svdf_s8';
  const left = shift > 0 ? 1 : 0;
  addBlock(b, `${f}.call`, times);
  if (mve) {
    const threes = floorDiv(rows, 3);
    const ones = rows % 3;
    addBlock(b, `${f}.call.anyThree`, threes > 0 ? times : 0);
    addBlock(b, `${f}.call.anyOne`, ones > 0 ? times : 0);
    addBlock(b, `${f}.three`, times * threes);
    addBlock(b, `${f}.three.v16`, times * threes * v16(cols));
    addBlock(b, `${f}.one`, times * ones);
    addBlock(b, `${f}.one.lsh`, times * ones * left);
    addBlock(b, `${f}.one.v16`, times * ones * v16(cols));
    return;
  }
  const pairs = floorDiv(rows, 2) * times;
  const odd = (rows % 2) * times;
  const k16 = floorDiv(cols, 16);
  const k4p = floorDiv(cols % 16, 4);
  const k4 = floorDiv(cols, 4);
  const k1 = cols % 4;
  addBlock(b, `${f}.call.anyPair`, rows >= 2 ? times : 0);
  addBlock(b, `${f}.pair`, pairs);
  addBlock(b, `${f}.pair.lsh`, pairs * left);
  addBlock(b, `${f}.pair.k16`, pairs * k16);
  addBlock(b, `${f}.pair.k4`, pairs * k4p);
  addBlock(b, `${f}.pair.k1`, pairs * k1);
  addBlock(b, `${f}.pair.k16any`, k16 > 0 ? pairs : 0);
  addBlock(b, `${f}.pair.k4any`, k4p > 0 ? pairs : 0);
  addBlock(b, `${f}.pair.k1any`, k1 > 0 ? pairs : 0);
  addBlock(b, `${f}.odd`, odd);
  addBlock(b, `${f}.odd.lsh`, odd * left);
  addBlock(b, `${f}.odd.k4`, odd * k4);
  addBlock(b, `${f}.odd.k1`, odd * k1);
  addBlock(b, `${f}.odd.k4any`, k4 > 0 ? odd : 0);
  addBlock(b, `${f}.odd.k1any`, k1 > 0 ? odd : 0);
}

/** arm_svdf_state_s16_s8 / arm_svdf_s8. */
export function svdfBlocks(b: Blocks, s: SvdfShape, mve: boolean): string {
  const f = s.int16 ? 'arm_svdf_state_s16_s8' : 'arm_svdf_s8';
  const elem = s.int16 ? 2 : 1;
  const units = s.filters / s.rank;
  const stateBytes = (s.batches * s.filters * s.memory - 1) * elem;
  addBlock(b, `${f}.call`, 1);
  // The state shift (MVE: its set-up is in `.call`).
  if (mve) addBlock(b, `${f}.shift.v16`, v16(stateBytes));
  else memmoveForwardMisalignedBlocks(b, stateBytes);
  addBlock(b, `${f}.batch`, s.batches);
  if (s.int16) vecMatSvdfBlocks(b, s.filters, s.inputSize, s.shift1, mve, s.batches);
  else if (mve) vecMatMultTMveBlocks(b, s.batches, s.inputSize, s.filters, s.shift1 > 0);
  else vecMatMultTBlocks(b, s.batches, s.inputSize, s.filters, s.shift1 > 0, true, false);
  // Time: one dot product of `memory` per batch and filter (the batch loop's cost is in `.batch`).
  const filters = s.batches * s.filters;
  addBlock(b, `${f}.time.filter`, filters);
  if (mve) addBlock(b, `${f}.time.m1`, filters * s.memory);
  else {
    const block = s.int16 ? 2 : 4;
    addBlock(b, `${f}.time.m${block}`, filters * floorDiv(s.memory, block));
    addBlock(b, `${f}.time.m${block}any`, s.memory >= block ? filters : 0);
    addBlock(b, `${f}.time.m1`, filters * (s.memory % block));
    // int8: a leftover loop of up to three passes, with its own entry.
    if (!s.int16) addBlock(b, `${f}.time.m1any`, s.memory % block > 0 ? filters : 0);
  }
  // Bias: rank 1 adds it per filter (priced with the filter's time loop); a larger rank reduces
  // `rank` filters per unit (`.reduce.*`: its cost beyond that).
  if (units !== s.filters) {
    addBlock(b, `${f}.reduce`, 1);
    addBlock(b, `${f}.reduce.batch`, s.batches);
    addBlock(b, `${f}.reduce.unit`, s.batches * units);
    addBlock(b, `${f}.reduce.rank`, filters);
  }
  const outs = s.batches * units;
  if (mve) addBlock(b, `${f}.out.v4`, v4(outs));
  else {
    addBlock(b, `${f}.out`, outs);
    addBlock(b, `${f}.out.lsh`, s.shift2 > 0 ? outs : 0);
  }
  return f;
}
