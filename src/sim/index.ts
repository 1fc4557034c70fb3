// Public surface of the simulator layer.
export * from './arena.ts';
export * from './runtime.ts';
export * from './conformance.ts';
export * from './storage/index.ts';
export * from './targets/index.ts';
export * from './tracer.ts';
export * from './trace-format.ts';
export * from './trace-plot.ts';
export * from './spill-store.ts';
export * from './latency.ts';
export * from './latency/compute-cost.ts';
export * from './latency/storage-traffic.ts';
export * from './timeline-svg.ts';
export * from './target-overrides.ts';
export * from './random-inputs.ts';
export * from './tflm-arena/index.ts';
export * from './svg-text.ts';
