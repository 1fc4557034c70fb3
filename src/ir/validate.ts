// Model validation: every rule on every tensor and op, all problems reported at once (Vela-style
// graph check between passes). Tensor sizes are computed with overflow checks before anything is
// allocated; ops must be in execution order, as TFLM's MicroInterpreter runs them.
import { DTYPE_BYTES, MAX_TENSOR_BYTES } from './dtype.ts';
import type { DType } from './dtype.ts';
import { ModelError } from './errors.ts';
import type { ErrorCode, Issue } from './errors.ts';
import type { Model, Op, Tensor } from './graph.ts';
import { offlinePlanIssues } from './offline-plan.ts';
import { checkOpRules, formatShape } from './shape-rules.ts';

/** TFLite schema version mcusim reads and writes (TFLM refuses any other). */
export const TFLITE_SCHEMA_VERSION = 3;
/** At most this many issues are listed; the rest are counted in a final issue. */
const MAX_ISSUES = 200;

/** Collects issues, keeping the first MAX_ISSUES and counting the rest (hostile files can have millions). */
export interface IssueSink {
  readonly add: (issue: Issue) => void;
  /** The issues kept, plus one summarising any dropped; empty when there were none. */
  readonly issues: () => Issue[];
}

export function createIssueSink(limit = MAX_ISSUES): IssueSink {
  const kept: Issue[] = [];
  let dropped = 0;
  return {
    add: (issue) => {
      if (kept.length < limit) kept.push(issue);
      else dropped++;
    },
    issues: () => {
      const first = kept[0];
      return dropped > 0 && first !== undefined ? [...kept, { code: first.code, message: `${dropped} further problems not listed` }] : [...kept];
    },
  };
}

/**
 * Byte size of a tensor, computed so it cannot overflow: null when a dim is negative (dynamic) or
 * not an integer, Infinity once it exceeds MAX_TENSOR_BYTES.
 */
export function checkedByteSize(dtype: DType, shape: readonly number[]): number | null {
  if (!shape.every((d) => Number.isSafeInteger(d) && d >= 0)) return null;
  if (shape.includes(0)) return 0;
  let size = DTYPE_BYTES[dtype];
  for (const d of shape) {
    size *= d;
    if (size > MAX_TENSOR_BYTES) return Infinity;
  }
  return size;
}

/** Problems with one tensor in isolation (shape, size, constant data, quantization). */
export function tensorIssues(t: Tensor, tensorIndex: number): Issue[] {
  const issues: Issue[] = [];
  const add = (code: ErrorCode, message: string): void => {
    issues.push({ code, message, tensorIndex, tensorName: t.name });
  };
  if (!Object.hasOwn(DTYPE_BYTES, t.dtype)) {
    add('E_MODEL_DTYPE', `unsupported dtype ${String(t.dtype)}`);
    return issues;
  }
  const size = checkedByteSize(t.dtype, t.shape);
  if (size === null) add('E_MODEL_SHAPE', `shape ${formatShape(t.shape)} has negative or non-integer dims (dynamic shapes are not supported)`);
  else if (size > MAX_TENSOR_BYTES) add('E_MODEL_TENSOR_SIZE', `shape ${formatShape(t.shape)} of ${t.dtype} exceeds ${MAX_TENSOR_BYTES} bytes`);
  else if (t.data !== null && t.data.length !== size) {
    add('E_MODEL_TENSOR_SIZE', `constant data has ${t.data.length} bytes, shape ${formatShape(t.shape)} of ${t.dtype} needs ${size}`);
  }
  const q = t.quant;
  if (q !== null) {
    const n = q.scale.length;
    if (n === 0) add('E_MODEL_INVALID', 'quantization has no scale');
    if (q.zeroPoint.length !== n) add('E_MODEL_INVALID', `quantization has ${n} scales but ${q.zeroPoint.length} zero points`);
    if (!q.scale.every((s) => Number.isFinite(s))) add('E_MODEL_INVALID', 'quantization scale is not finite');
    if (!q.zeroPoint.every((z) => Number.isSafeInteger(z))) add('E_MODEL_INVALID', 'quantization zero point is not a safe integer');
    if (n > 1) {
      const qd = q.quantizedDimension;
      // TOCO wrote the filter's quantized_dimension (3) on 1-D depthwise biases; TFLM ignores it there.
      const dim = t.shape.length === 1 ? t.shape[0] : Number.isInteger(qd) ? t.shape[qd] : undefined;
      if (dim !== n) {
        add('E_MODEL_INVALID', `${n} per-channel scales do not match dim ${qd} of shape ${formatShape(t.shape)}`);
      }
    }
  }
  return issues;
}

function opKindName(op: Op): string {
  return op.kind === 'custom' ? `custom:${op.customCode}` : op.kind;
}

/** Every problem in the model, in order: model, tensors, graph inputs, ops, outputs, metadata. */
export function findModelIssues(model: Model): Issue[] {
  const sink = createIssueSink();
  const add = sink.add;
  const g = model.graph;
  const n = g.tensors.length;
  const inRange = (t: number): boolean => Number.isInteger(t) && t >= 0 && t < n;
  const nameOf = (t: number): string => g.tensors[t]?.name ?? '';

  if (model.version !== TFLITE_SCHEMA_VERSION) add({ code: 'E_MODEL_INVALID', message: `schema version ${model.version}, expected ${TFLITE_SCHEMA_VERSION}` });
  g.tensors.forEach((t, i) => tensorIssues(t, i).forEach(add));

  // ready[t]: the tensor holds a value before the next op runs.
  const ready = new Uint8Array(n);
  const producer = new Int32Array(n).fill(-1);
  g.tensors.forEach((t, i) => {
    if (t.data !== null || t.isVariable) ready[i] = 1;
  });
  const isGraphInput = new Uint8Array(n);
  const producedLater = new Uint8Array(n);
  for (const [what, list] of [['input', g.inputs], ['output', g.outputs]] as const) {
    for (const t of list) {
      if (!inRange(t)) add({ code: 'E_MODEL_INVALID', message: `graph ${what} ${t} is not a tensor index (0..${n - 1})` });
      else if (what === 'input') ready[t] = isGraphInput[t] = 1;
    }
  }

  // A tensor no op produces and that is no graph input, constant or variable is accepted as TFLM
  // accepts it (Vela's scratch tensors carrying offline offsets): its lifetime starts before the
  // first op (micro_allocation_info.cc). Only reading a tensor before the op that produces it is
  // refused (a cycle, or ops out of execution order).
  g.ops.forEach((op) => op.outputs.forEach((t) => inRange(t) && (producedLater[t] = 1)));
  g.ops.forEach((op, opIndex) => {
    const where = { opIndex, opKind: opKindName(op) };
    let indicesOk = true;
    op.inputs.forEach((t, i) => {
      if (t === -1 || inRange(t)) return;
      indicesOk = false;
      add({ ...where, code: 'E_MODEL_INVALID', message: `input ${i} refers to tensor ${t}, not in 0..${n - 1}` });
    });
    op.outputs.forEach((t, i) => {
      if (inRange(t)) return;
      indicesOk = false;
      add({ ...where, code: 'E_MODEL_INVALID', message: `output ${i} refers to tensor ${t}, not in 0..${n - 1}` });
    });
    if (!indicesOk) return;
    if (op.kind !== 'custom') checkOpRules(op, opIndex, g.tensors).forEach(add);
    for (const t of op.inputs) {
      if (t === -1 || ready[t] || !producedLater[t]) continue;
      add({
        ...where,
        code: 'E_MODEL_CYCLE',
        tensorIndex: t,
        tensorName: nameOf(t),
        message: 'reads a tensor before the op that produces it (cycle or ops out of execution order)',
      });
    }
    for (const t of op.outputs) {
      const tensor = g.tensors[t];
      if (tensor === undefined) continue;
      const problem = producer[t] !== -1 ? `tensor is already produced by op ${producer[t]}`
        : tensor.data !== null ? 'op writes a constant tensor'
        : isGraphInput[t] && !tensor.isVariable ? 'op writes a graph input'
        : null;
      if (problem !== null) add({ ...where, tensorIndex: t, tensorName: nameOf(t), code: 'E_MODEL_INVALID', message: problem });
      producer[t] = opIndex;
      ready[t] = 1;
    }
  });

  for (const t of g.outputs) {
    if (inRange(t) && !ready[t]) add({ code: 'E_MODEL_INVALID', tensorIndex: t, tensorName: nameOf(t), message: 'graph output is never computed' });
  }
  model.signatureDefs.forEach((s, i) => {
    if (s.subgraphIndex !== 0) add({ code: 'E_MODEL_INVALID', message: `signature def ${i} '${s.key}' refers to subgraph ${s.subgraphIndex}` });
    for (const m of [...s.inputs, ...s.outputs]) {
      if (!inRange(m.tensorIndex)) add({ code: 'E_MODEL_INVALID', message: `signature def ${i} '${s.key}' maps '${m.name}' to tensor ${m.tensorIndex}, not in 0..${n - 1}` });
    }
  });
  offlinePlanIssues(model).forEach(add);
  return sink.issues();
}

/** Throws one ModelError carrying every issue found; returns normally for a valid model. */
export function validateModel(model: Model): void {
  const issues = findModelIssues(model);
  if (issues.length > 0) throw ModelError.fromIssues(issues);
}
