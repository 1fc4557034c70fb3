// Public surface of the IR layer: the only module other layers import from src/ir.
export * from './errors.ts';
export * from './dtype.ts';
export * from './graph.ts';
export * from './padding.ts';
export * from './zoo/index.ts';
export { checkedByteSize, findModelIssues, tensorIssues, validateModel, TFLITE_SCHEMA_VERSION } from './validate.ts';
export { broadcastShapes, checkOpRules, constInts, formatShape, OP_RULES } from './shape-rules.ts';
export type { OpRule, OpRuleContext } from './shape-rules.ts';
export { OFFLINE_PLAN_METADATA_NAME, PLAN_KERNELS_METADATA_NAME, readOfflinePlan, readPlanKernels, recordsPlanKernels, withOfflinePlan, withPlanKernels } from './offline-plan.ts';
export type { PlanKernels } from './offline-plan.ts';
export { importTflite } from './tflite/import-tflite.ts';
export { exportTflite } from './tflite/export-tflite.ts';
export { MERGE_CUSTOM_CODE } from './tflite/merge-options.ts';
export * from './custom-ops.ts';
