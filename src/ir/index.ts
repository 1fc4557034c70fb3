// Public surface of the IR layer: the only module other layers import from src/ir.
export * from './errors.ts';
export * from './dtype.ts';
export * from './graph.ts';
export * from './padding.ts';
