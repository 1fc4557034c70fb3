// The whole arena a model needs (issue 12, docs/tflm-arena.md): TFLM's persistent tail for a 64-bit
// host or 32-bit Cortex-M build plus the planned head, board fit, and builtin-only graphs that need
// mcusim's kernel variants.
export * from './arch.ts';
export { alignUp, structLayout } from './struct-layout.ts';
export { ARENA_ALIGNMENT_BYTES, MAX_SCRATCH_BUFFERS_PER_OP, modelArenaEvents, modelPersistent, modelPersistentBytes } from './model-persistent.ts';
export type { ArenaEvent, NonStockUse, PersistentModel, TailAllocation } from './model-persistent.ts';
export { ARENA_RUNTIMES, DEFAULT_ARENA_RUNTIME, runtimeArena, tflmGeneratedArena, wholeArena } from './whole-arena.ts';
export { GREEDY_PLANNER_BYTES_PER_BUFFER, declareBytes, replayArena } from './declare-bytes.ts';
export type { ArenaReplay } from './declare-bytes.ts';
export { GENERATED_CUSTOM_KINDS, MCUSIM_TFLM_MAX_SCRATCH, MCUSIM_TFLM_OP_DATA, generatedKernelPersistent, isGeneratedCustomKind, isReplacedTransposeConv, runsGeneratedKernel } from './generated-kernels.ts';
export type { GeneratedCustomKind } from './generated-kernels.ts';
export type { TflmKernelSet } from './model-persistent.ts';
export type { ArenaReport, ArenaRuntime, PlanSize, RuntimeArenaOptions, WholeArena } from './whole-arena.ts';
export { boardFit, weightsBytes } from './board-fit.ts';
export type { BoardFit } from './board-fit.ts';
export { asStockTflm, mcusimKernelUses } from './stock-variant.ts';
export type { McusimKernelUse } from './stock-variant.ts';
