// Safe overlap O_s (DMO paper §III): how many bytes an op's dying primary input may overlap its
// output, by trace (running the kernel on seeded inputs, §III-B/C), bottom-up search, or the analytic
// bound (§III-D eqs 1-15); one-op graphs for overlap studies and the per-graph overlap pairs the DMO
// and replacement planners consume. This index is the folder's only door.
export * from './single-op-graph.ts';
export * from './safe-overlap-analytic.ts';
export * from './safe-overlap.ts';
export * from './overlap-pairs.ts';
export * from './op-trace-svg.ts';
