// Public surface of the kernels layer: specs, the registry and the lowerings that read them.
export * from './nest.ts';
export * from './primitives.ts';
export * from './quant.ts';
export * from './spec.ts';
export * from './tflm-memory.ts';
export * from './instance.ts';
export * from './lower-js.ts';
export * from './emit-c.ts';
export * from './registry.ts';
export * from './prepare-op.ts';
export * from './macs.ts';
export * from './scratch-requests.ts';
export * from './storage-binding.ts';
export { bilinearTaps, nearestIndices, resizeSize } from './specs/resize-common.ts';
export * from './specs/storage-io.ts';
export { fetchRowWindow, rowWindowScratch } from './specs/fetching-conv2d.ts';
export type { RowWindow } from './specs/fetching-conv2d.ts';
