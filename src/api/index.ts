// Public surface of the API layer (above codegen, below cli): task-level functions over the
// layers, one per job a user has: load / inspect / plan / run / optimize a model, verify an
// optimized one, estimate latency, and study safe overlap O_s. src/index.ts re-exports it.
export { loadModel, saveModel, zooModel, zooModels } from './models.ts';
export { INSPECT_RUNTIMES, inspectModel, planModel } from './inspect.ts';
export type { InspectReport, InspectRuntime, Inspection, OpJson, PlanBufferJson, PlanModelOptions, TensorJson } from './inspect.ts';
export { estimateLatency, optimizeModel, runModel } from './run-model.ts';
export type { EstimateLatencyOptions, OptimizeOptions, RunModelOptions, RunModelResult } from './run-model.ts';
export { checkSeeds, combineVerifyResults, joinSeedRuns, openVerifySession, reportVerification, verify, verifyModels, verifyPassed } from './verify.ts';
export type { VerifyHeader, VerifyKernelFeed, VerifyKernels, VerifyReferencePart, VerifySeedResult, VerifySession, VerifyTracedPart, VerifyMismatch, VerifyOptions, VerifyReport, VerifyResult, VerifyStorageOptions, VerifyStorageReport, VerifyViolation } from './verify.ts';
export { needsMcusimOps, optimizeWithReport } from './optimize.ts';
export type { ArenaComparison, OptimizeReport, OptimizeRun, OptimizeRunOptions } from './optimize.ts';
export { overlapReport, safeOverlap } from './overlap.ts';
export type { GraphOp, SafeOverlapOptions } from './overlap.ts';
export { checkOverlapFormula, describeOverlapOp, overlapFormulaKinds, randomOverlapSpec } from './overlap-formula.ts';
export type { CheckOverlapFormulaOptions, OverlapFormula, OverlapFormulaCase, OverlapFormulaCheck, OverlapOp } from './overlap-formula.ts';
