// From a graph op to a kernel instance: look the spec up, run every constraint (all failures
// reported at once, as ModelError), prepare params, and bind nest buffers to arena offsets
// (activations, scratch) or constant bytes (weights in the read-only model region).
import type { BuiltinKind, Graph, Issue } from '../ir/index.ts';
import { byteSize, InternalError, ModelError } from '../ir/index.ts';
import type { BufferBinding, KernelInstance } from './instance.ts';
import { REFERENCE_KERNELS, kernelSpecOf } from './registry.ts';
import type { KernelRegistry } from './registry.ts';
import type { KernelSpec, Prepared } from './spec.ts';
import { checkConstraints, makeOpContext, nestOf } from './spec.ts';

export interface PreparedOp {
  readonly opIndex: number;
  readonly spec: KernelSpec;
  readonly prepared: Prepared;
}

/** Constraint issues of one op (an unsupported kind is an issue too). */
export function validateOp(graph: Graph, opIndex: number, registry: KernelRegistry = REFERENCE_KERNELS): Issue[] {
  const op = graph.ops[opIndex];
  if (op === undefined) throw new InternalError(`no op ${opIndex}`);
  if (op.kind === 'custom') {
    return [{ code: 'E_MODEL_UNSUPPORTED_OP', message: `custom op '${op.customCode}' has no kernel (no registration for it, as in TFLM without that op's driver)`, opIndex, opKind: `custom:${op.customCode}` }];
  }
  const spec = kernelSpecOf(op.kind, registry);
  if (spec === undefined) return [{ code: 'E_MODEL_UNSUPPORTED_OP', message: `op kind '${op.kind}' has no kernel yet`, opIndex, opKind: op.kind }];
  return checkConstraints(spec as KernelSpec, makeOpContext<BuiltinKind>(graph, opIndex));
}

/** Validate and prepare one op; throws ModelError listing every failed constraint. */
export function prepareOp(graph: Graph, opIndex: number, registry: KernelRegistry = REFERENCE_KERNELS): PreparedOp {
  const issues = validateOp(graph, opIndex, registry);
  if (issues.length) throw ModelError.fromIssues(issues);
  const op = graph.ops[opIndex];
  if (op === undefined || op.kind === 'custom') throw new InternalError('unreachable');
  const spec = kernelSpecOf(op.kind, registry) as KernelSpec;
  return { opIndex, spec, prepared: spec.prepare(makeOpContext<BuiltinKind>(graph, opIndex)) };
}

/**
 * Every op validated (all constraint failures of all ops reported at once) and then prepared, as
 * TFLM's MicroInterpreter runs every Prepare before the first Invoke. `inspect` and the runtime
 * share it, so a model one of them accepts the other accepts too.
 */
export function prepareGraph(graph: Graph, registry: KernelRegistry = REFERENCE_KERNELS): PreparedOp[] {
  checkGraphConstraints(graph, registry);
  return graph.ops.map((_, i) => prepareOp(graph, i, registry));
}

/** Every constraint of every op; one ModelError listing all failures (before planning). */
export function checkGraphConstraints(graph: Graph, registry: KernelRegistry = REFERENCE_KERNELS): void {
  const issues = graph.ops.flatMap((_, i) => validateOp(graph, i, registry));
  if (issues.length) throw ModelError.fromIssues(issues);
}

/**
 * Bind a prepared op to absolute arena offsets. `tensorOffsets[t]` is the arena offset of tensor t
 * (null for constants), `scratchOffsets[k]` that of the op's scratch buffer k.
 */
export function instantiateOp(graph: Graph, p: PreparedOp, tensorOffsets: readonly (number | null)[], scratchOffsets: readonly number[] = []): KernelInstance {
  const op = graph.ops[p.opIndex];
  if (op === undefined) throw new InternalError(`no op ${p.opIndex}`);
  const buffers: Record<string, BufferBinding> = {};
  for (const [name, ref] of Object.entries(p.prepared.buffers)) {
    if (ref.kind === 'scratch') {
      const decl = p.prepared.scratch[ref.index];
      const off = scratchOffsets[ref.index];
      if (decl === undefined || off === undefined) throw new InternalError(`op ${p.opIndex}: no offset for scratch ${ref.index}`);
      buffers[name] = { dtype: decl.dtype, offsetBytes: off, data: null, id: -(ref.index + 1), sizeBytes: decl.sizeBytes };
      continue;
    }
    const t = (ref.kind === 'input' ? op.inputs : op.outputs)[ref.slot];
    const tensor = t === undefined || t < 0 ? undefined : graph.tensors[t];
    if (t === undefined || tensor === undefined) throw new InternalError(`op ${p.opIndex}: buffer ${name} has no tensor`);
    const sizeBytes = byteSize(tensor.dtype, tensor.shape);
    if (tensor.data !== null) {
      buffers[name] = { dtype: tensor.dtype, offsetBytes: null, data: tensor.data, id: t, sizeBytes };
    } else {
      const off = tensorOffsets[t];
      if (off === undefined || off === null) throw new InternalError(`op ${p.opIndex}: tensor ${t} has no arena offset`);
      buffers[name] = { dtype: tensor.dtype, offsetBytes: off, data: null, id: t, sizeBytes };
    }
  }
  return {
    name: p.spec.kind,
    opIndex: p.opIndex,
    nest: nestOf(p.spec, p.prepared),
    flags: p.prepared.flags ?? {},
    scalars: p.prepared.scalars,
    arrays: p.prepared.arrays,
    buffers,
  };
}
