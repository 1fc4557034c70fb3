// Block counts of CMSIS-NN 4ab83cc3's fully connected code off MVE: arm_fully_connected_s8 calls
// arm_nn_vec_mat_mult_t_s8 once per batch row; its zero-filter-offset branch takes filter rows in
// pairs, the input 4 values a pass on DSP (SXTAB16 / SMLAD) then one at a time, and an odd last row.
import type { Blocks } from './blocks.ts';
import { addBlock, addUnrolled4, floorDiv } from './blocks.ts';

/** arm_fully_connected_s8 over `batches` rows of `k` inputs to `n` outputs. */
export function fullyConnectedBlocks(b: Blocks, batches: number, k: number, n: number, lsh: readonly number[], dsp: boolean): void {
  addBlock(b, 'arm_fully_connected_s8.call', 1);
  addBlock(b, 'arm_fully_connected_s8.batch', batches);
  vecMatMultTBlocks(b, batches, k, n, (lsh[0] ?? 0) > 0, dsp, true);
}

/**
 * arm_nn_vec_mat_mult_t_s8 (zero filter offset), `calls` times over `k` inputs to `n` outputs; without
 * a bias (arm_svdf_s8) each row's accumulators start from zero instead (`.noBias`).
 */
export function vecMatMultTBlocks(b: Blocks, calls: number, k: number, n: number, leftShift: boolean, dsp: boolean, bias: boolean): void {
  // One shift for the whole call: gcc unswitches the loops on its sign (L: left shift, R: right).
  const f = `arm_nn_vec_mat_mult_t_s8.${leftShift ? 'L' : 'R'}`;
  const pairs = floorDiv(n, 2);
  const odd = n % 2;
  const k4 = dsp ? floorDiv(k, 4) : 0;
  const k1 = dsp ? k % 4 : k;
  addBlock(b, `${f}.call`, calls);
  addBlock(b, `${f}.rowPair`, calls * pairs);
  if (!bias) addBlock(b, `${f}.rowPair.noBias`, calls * pairs);
  // gcc -O2 unrolls the SXTAB16 / SMLAD loops four times here (leftover passes first).
  addUnrolled4(b, `${f}.rowPair.k4`, k4, calls * pairs);
  addUnrolled4(b, `${f}.rowPair.k1`, k1, calls * pairs);
  addBlock(b, `${f}.rowOdd`, calls * odd);
  if (!bias) addBlock(b, `${f}.rowOdd.noBias`, calls * odd);
  addUnrolled4(b, `${f}.rowOdd.k4`, k4, calls * odd);
  addUnrolled4(b, `${f}.rowOdd.k1`, k1, calls * odd);
  addBlock(b, `${f}.call.anyPair`, pairs > 0 ? calls : 0);
}
