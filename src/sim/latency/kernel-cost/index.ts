// Public surface of the per-kernel cost model (issue 44): work per op, unit costs per core family,
// flash stalls, engine overhead, the fitted constants.
export * from './work.ts';
export * from './op-work.ts';
export * from './unit-costs.ts';
export * from './engine.ts';
export * from './family-constants.ts';
export * from './kernel-cycles.ts';
