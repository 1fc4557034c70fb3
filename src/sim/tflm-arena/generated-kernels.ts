// TFLM's arena when the application links mcusim's generated kernels (`codegen --tflm`, issue 45,
// docs/deploy-tflm.md): every mcusim custom op (MergeAccumulators, Spill, Fetching, FusedConv2D)
// and the TRANSPOSE_CONV variants stock TFLM ignores run as TFLMRegistrations whose requests are
// fixed here and emitted by src/codegen/tflm (the two must change together). A custom op parses
// nothing (micro_interpreter.cc keeps custom_options in the flatbuffer), its Init allocates one
// McusimOpData, its Prepare requests exactly the scratch buffers the op's spec in the build's
// kernel registry declares and allocates nothing (params are const tables in flash). A replaced
// TRANSPOSE_CONV keeps stock parsing and stock Init (transpose_conv.cc: its OpData holds the
// McusimOpData) and likewise requests only its spec's scratch. With CMSIS-NN (cmsis_nn/
// transpose_conv.cc needs no output-sized scratch, and its spec has no mcusim-only variant) no
// TRANSPOSE_CONV is replaced: stock CMSIS-NN runs them all.
import type { Graph, Op } from '../../ir/index.ts';
import { REFERENCE_KERNELS, cArray, cStruct, kernelSpecOf } from '../../kernels/index.ts';
import type { KernelRegistry, StockTflmPersistent, TflmPersistent } from '../../kernels/index.ts';

/** Most scratch buffers a generated kernel requests (Spill: I/O + histogram; FusedConv2D: I/O + row window). */
export const MCUSIM_TFLM_MAX_SCRATCH = 3;

/** What a generated kernel's Init allocates: its site in the generated tables, its scratch handles. */
export const MCUSIM_TFLM_OP_DATA = cStruct('McusimOpData', [['site', 'int32'], ['scratch', cArray('int32', MCUSIM_TFLM_MAX_SCRATCH)]]);

/** Custom codes with a generated registration, by op kind. */
export const GENERATED_CUSTOM_KINDS = ['merge', 'spill', 'fetching', 'fetchingConv2d'] as const;
export type GeneratedCustomKind = (typeof GENERATED_CUSTOM_KINDS)[number];

export function isGeneratedCustomKind(kind: string): kind is GeneratedCustomKind {
  return (GENERATED_CUSTOM_KINDS as readonly string[]).includes(kind);
}

/**
 * Whether `op` is a TRANSPOSE_CONV whose options pick a variant only the generated kernel runs: an
 * option the registry's spec lists as mcusim-only (reference: scratchFree, scratchInt16; the
 * cmsis-nn spec lists none, its stock kernel runs every TRANSPOSE_CONV).
 */
export function isReplacedTransposeConv(op: Op, registry: KernelRegistry = REFERENCE_KERNELS): boolean {
  if (op.kind !== 'transposeConv') return false;
  const tflm = kernelSpecOf(op.kind, registry)?.tflmPersistent as TflmPersistent | undefined;
  if (tflm === undefined || !tflm.stock) return false;
  const options = op.options as unknown as Readonly<Record<string, unknown>>;
  return (tflm.mcusimOptions ?? []).some((k) => options[k] === true);
}

/** Whether op `op` runs on a generated kernel (`codegen --tflm`) in a build linking `registry`. */
export function runsGeneratedKernel(op: Op, registry: KernelRegistry = REFERENCE_KERNELS): boolean {
  return isGeneratedCustomKind(op.kind) || isReplacedTransposeConv(op, registry);
}

const CUSTOM: StockTflmPersistent = { stock: true, builtinData: null, opData: MCUSIM_TFLM_OP_DATA };

/**
 * The persistent footprint of op `index` in a TFLM build with the generated kernels linked; null
 * when the op is neither generated nor a builtin mcusim knows (then stock TFLM cannot run it).
 * Scratch requests default to the spec's declared scratch (kernels/scratchRequests), which the
 * generated Prepare requests one by one.
 */
export function generatedKernelPersistent(graph: Graph, index: number, registry: KernelRegistry = REFERENCE_KERNELS): StockTflmPersistent | null {
  const op = graph.ops[index];
  if (op === undefined || op.kind === 'custom') return null;
  if (isGeneratedCustomKind(op.kind)) return CUSTOM;
  const tflm = kernelSpecOf(op.kind, registry)?.tflmPersistent as TflmPersistent | undefined;
  if (tflm === undefined || !tflm.stock) return null;
  if (!isReplacedTransposeConv(op, registry)) return tflm;
  return { stock: true, builtinData: tflm.builtinData, opData: tflm.opData };
}
