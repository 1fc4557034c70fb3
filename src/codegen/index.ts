// Public surface of the codegen layer: a planned model as a C99 project (host + Cortex-M7/QEMU).
export * from './project.ts';
export { CODEGEN_TARGETS, QEMU_COMMAND } from './makefile.ts';
export type { CodegenTarget } from './makefile.ts';
export { C_ARENA_ALIGNMENT_BYTES, emitModelSources } from './model-source.ts';
export type { ModelSourceInput, ModelSources } from './model-source.ts';
export { byteStringLiteral } from './c-literals.ts';
export { storageLayout } from './storage-runtime.ts';
export type { CodegenSlot, StorageLayout } from './storage-runtime.ts';
export * from './tflm/index.ts';
