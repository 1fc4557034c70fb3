// Public surface of the optimizer layer: the only module other layers import from src/optimizer.
// One folder per technique (planners, overlap, dmo, replacement, schedule, tinyseg, tiling), each
// entered only through its index.ts; at the top: the pass interface, the planner table by name,
// the planned runner, model latency, the pipeline (pass registry) and the `auto` pass.
export * from './planners/index.ts';
export * from './overlap/index.ts';
export * from './dmo/index.ts';
export * from './replacement/index.ts';
export * from './schedule/index.ts';
export * from './tinyseg/index.ts';
export * from './tiling/index.ts';
export * from './pass.ts';
export * from './plan-by-name.ts';
export * from './run-planned.ts';
export * from './pass-output.ts';
export * from './model-latency.ts';
export * from './pipeline.ts';
export * from './auto-pass.ts';
export * from './arena-totals.ts';
export * from './prepared-totals.ts';
export * from './total-guard.ts';
export * from './evaluator.ts';
export * from './candidate-eval.ts';
export * from './latency-validation.ts';
export * from './instruction-validation.ts';
