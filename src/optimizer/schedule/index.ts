// Memory-aware operator scheduling (fused tiling / FDT paper §4.1): a topological op order with the
// least peak of live bytes, by the series-parallel algorithm, an exact DP for small graphs, or the
// hill-valley heuristic; the op-level memory model they share. This index is the folder's only door.
export * from './memory-model.ts';
export * from './schedule.ts';
export * from './schedule-series-parallel.ts';
export * from './schedule-hill-valley.ts';
