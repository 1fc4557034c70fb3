// The inference engine around the kernels: TFLM's interpreter (its per-op glue and its Invoke loop are
// part of the instruction model, measured) or an ahead-of-time compiled graph (microTVM AOT, ONNC) that
// calls the same CMSIS-NN kernels directly with prebuilt argument structs.
import { UsageError } from '../../../ir/index.ts';

export type Engine = 'tflm' | 'aot';

export const ENGINES: readonly Engine[] = ['tflm', 'aot'];

/**
 * Instructions an ahead-of-time graph spends per op besides the kernel: loading constant struct
 * pointers and the call (~12 argument moves and stores, the call and return, the status test).
 * ESTIMATE from microTVM's generated C calling CMSIS-NN (one call per op); not measured.
 */
export const AOT_OP_INSTRUCTIONS = 40;

export function parseEngine(name: string): Engine {
  const e = ENGINES.find((x) => x === name);
  if (e === undefined) throw new UsageError(`unknown --engine '${name}'; known: ${ENGINES.join(', ')}`);
  return e;
}
