// Diagonal memory optimisation (DMO paper §II-D, §IV): the `dmo` pass lays each op's output over
// its dying input by the safe overlap O_s and writes the plan as offline offsets. The planner itself
// lives in ../planners (dmo-planner.ts). This index is the folder's only door.
export * from './dmo-pass.ts';
