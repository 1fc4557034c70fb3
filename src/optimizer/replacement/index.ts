// The replacement strategy (CMSIS-NN replacement paper, Sakr et al., §IV, Table I, eq 1): one
// total buffer, pooling outputs written in place of their dying inputs; the planner and the
// `replacement` pass. This index is the folder's only door.
export * from './replacement-planner.ts';
export * from './replacement-pass.ts';
