// Block counts of CMSIS-NN 4ab83cc3's fully connected code off MVE: arm_fully_connected_s8 calls
// arm_nn_vec_mat_mult_t_s8 once per batch row; its zero-filter-offset branch takes filter rows in
// pairs, the input 4 values a pass on DSP (SXTAB16 / SMLAD) then one at a time, and an odd last row.
import type { Blocks } from './blocks.ts';
import { addBlock, addUnrolled4, floorDiv } from './blocks.ts';

/** arm_fully_connected_s8 over `batches` rows of `k` inputs to `n` outputs. */
export function fullyConnectedBlocks(b: Blocks, batches: number, k: number, n: number, lsh: readonly number[], dsp: boolean): void {
  // One shift for the whole call: gcc unswitches the loops on its sign (L: left shift, R: right).
  const f = `arm_nn_vec_mat_mult_t_s8.${(lsh[0] ?? 0) > 0 ? 'L' : 'R'}`;
  addBlock(b, 'arm_fully_connected_s8.call', 1);
  addBlock(b, 'arm_fully_connected_s8.batch', batches);
  const pairs = floorDiv(n, 2);
  const odd = n % 2;
  const k4 = dsp ? floorDiv(k, 4) : 0;
  const k1 = dsp ? k % 4 : k;
  addBlock(b, `${f}.call`, batches);
  addBlock(b, `${f}.rowPair`, batches * pairs);
  // gcc -O2 unrolls the SXTAB16 / SMLAD loops four times here (leftover passes first).
  addUnrolled4(b, `${f}.rowPair.k4`, k4, batches * pairs);
  addUnrolled4(b, `${f}.rowPair.k1`, k1, batches * pairs);
  addBlock(b, `${f}.rowOdd`, batches * odd);
  addUnrolled4(b, `${f}.rowOdd.k4`, k4, batches * odd);
  addUnrolled4(b, `${f}.rowOdd.k1`, k1, batches * odd);
  addBlock(b, `${f}.call.anyPair`, pairs > 0 ? batches : 0);
}
