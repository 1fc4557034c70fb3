// mcusim's public entry (`import { ... } from 'mcusim'`, docs/api.md): the API layer's task-level
// functions plus the few layer types and classes they take and return. Named exports only;
// nothing here touches files, the console or the process.
export {
  checkOverlapFormula, describeOverlapOp, estimateLatency, inspectModel, loadModel, needsMcusimOps, optimizeModel, optimizeWithReport, overlapFormulaKinds, overlapReport,
  planModel, randomOverlapSpec, runModel, safeOverlap, saveModel, verify, zooModel, zooModels,
} from './api/index.ts';
export type {
  ArenaComparison, CheckOverlapFormulaOptions, EstimateLatencyOptions, GraphOp, OptimizeReport, OptimizeRun, OptimizeRunOptions, InspectReport, Inspection, OptimizeOptions, OverlapFormula,
  OverlapFormulaCase, OverlapFormulaCheck, OverlapOp, PlanModelOptions, RunModelOptions, RunModelResult, SafeOverlapOptions,
  VerifyMismatch, VerifyOptions, VerifyResult, VerifyStorageOptions, VerifyStorageReport, VerifyViolation,
} from './api/index.ts';
export { InternalError, KernelError, McusimError, ModelError, PlanError, UsageError, VerificationError } from './ir/index.ts';
export type { BuiltinKind, DType, ErrorCode, Graph, Issue, Model, Op, Padding, Tensor, ZooModelInfo } from './ir/index.ts';
export type { TraceSink } from './kernels/index.ts';
export { CORTEX_M_CPUS, DEFAULT_CMSIS_NN_CPU, KERNEL_LIBRARY_NAMES, kernelRegistry } from './kernels/index.ts';
export type { CortexMCpu, KernelLibraryName, KernelRegistry } from './kernels/index.ts';
export { OVERLAP_METHODS, PLANNERS, arenaTotals, buildSingleOpGraph, passNames, plannerNames, preparePlannedModel, randomInputs, runPlanned } from './optimizer/index.ts';
export type { ArenaTotals, OverlapMethod, OverlapReport, PassReport, PipelineResult, Plan, PlannedModel, PlannedRunResult, SingleOpSpec } from './optimizer/index.ts';
export { KERNEL_LIBRARIES, STORAGE_KINDS, TracePlot, Tracer, getTarget, listTargets, renderTraceSvg, teeTraceSinks } from './sim/index.ts';
export type { KernelLibrary, LatencyReport, StorageKind, TargetProfile, TracePlotData, TraceRecord, TraceViolation, TraceViolationKind, TracerOptions } from './sim/index.ts';
