// Per-op runtime overhead of the inference engine around the kernels: TFLM's interpreter (MicroGraph::
// InvokeSubgraph -> the registration's Eval: GetEvalInput/Output virtual lookups, RuntimeShape copies,
// the CMSIS-NN dims/params structs, GetScratchBuffer) vs ahead-of-time graphs (microTVM AOT, ONNC) that
// call the same CMSIS-NN kernels directly with prebuilt structs. ESTIMATES counted from those call paths.
import { UsageError } from '../../../ir/index.ts';

export type Engine = 'tflm' | 'aot';

export const ENGINES: readonly Engine[] = ['tflm', 'aot'];

/** Core cycles the engine adds to each op's kernel call. */
export const ENGINE_OP_CYCLES: Readonly<Record<Engine, number>> = {
  // ~3 GetEvalInput/Output (virtual MicroContext calls, ~25 cycles each), ~4 RuntimeShape copies
  // (~40 each), ~40 struct stores, scratch lookup, profiler scope and dispatch: ~800 cycles.
  tflm: 800,
  // One direct call with constant argument structs: ~100 cycles.
  aot: 100,
};

export function parseEngine(name: string): Engine {
  const e = ENGINES.find((x) => x === name);
  if (e === undefined) throw new UsageError(`unknown --engine '${name}'; known: ${ENGINES.join(', ')}`);
  return e;
}
