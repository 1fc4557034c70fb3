// Public surface of the per-op cycle pieces around the instruction model: the engine, the weights'
// flash stalls, the fitted family constants.
export * from './engine.ts';
export * from './family-constants.ts';
export * from './kernel-cycles.ts';
