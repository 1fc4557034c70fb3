// Public surface of the optimizer layer: the only module other layers import from src/optimizer.
export * from './plan-types.ts';
export * from './buffer-requests.ts';
export * from './greedy-planner.ts';
export * from './linear-planner.ts';
export * from './verify-plan.ts';
export * from './planners.ts';
export * from './plan-ascii.ts';
export * from './plan-svg.ts';
export * from './run-planned.ts';
