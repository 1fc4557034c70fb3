// Public surface of the simulator layer.
export * from './arena.ts';
export * from './runtime.ts';
export * from './conformance.ts';
export * from './storage/index.ts';
export * from './targets/index.ts';
