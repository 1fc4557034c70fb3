// Arena planners: TFLM's buffer requests (lifetimes, offline offsets) and the plans laid over them:
// TFLM's greedy and linear planners reproduced exactly, the exact branch-and-bound planner (FDT paper
// §4.2), the DMO overlap-aware planner (DMO paper §II-D, §IV; shared with replacement), plan checks
// and plan pictures (ASCII, SVG). The registry here knows request-only planners; graph-aware ones
// (dmo, replacement) join the by-name table above (../plan-by-name.ts). This index is the folder's only door.
export * from './plan-types.ts';
export * from './buffer-requests.ts';
export * from './greedy-planner.ts';
export * from './linear-planner.ts';
export * from './exact-planner.ts';
export * from './verify-plan.ts';
export * from './dmo-planner.ts';
export * from './planner-registry.ts';
export * from './plan-ascii.ts';
export * from './plan-svg.ts';
export * from './plan-steps.ts';
