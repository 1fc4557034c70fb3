// Plan a model's arena and run it: buffer requests (TFLM order, offline offsets honoured) ->
// named planner -> verifyPlan -> per-tensor and per-op scratch offsets -> sim Runtime. Optionally
// captures every tensor right after the op that produces it (a reused arena region is overwritten
// later), which is what TFLM oracle tensor dumps (taken with a no-reuse plan) are compared with.
import type { DType, Graph, Model } from '../ir/index.ts';
import { InternalError, UsageError, byteSize } from '../ir/index.ts';
import type { KernelRegistry, TraceSink, WasmLowering } from '../kernels/index.ts';
import { checkGraphConstraints } from '../kernels/index.ts';
import type { StorageDevice } from '../sim/index.ts';
import { Runtime, Tracer, randomInputs } from '../sim/index.ts';
import { DEFAULT_PLANNER, alignUp, computeModelBufferRequests } from './planners/index.ts';
import type { BufferRequest, Plan } from './planners/index.ts';
import { checkPlanHazard, getPlanner } from './plan-by-name.ts';

/** Moved to src/sim (trace-based safe overlap needs it below the runner); still part of this surface. */
export { randomInputs } from '../sim/index.ts';

export interface PlannedModel {
  readonly graph: Graph;
  readonly requests: readonly BufferRequest[];
  /** The verified plan; `plan.peakBytes` is the activation arena (variables come after it). */
  readonly plan: Plan;
  /** Arena offset per tensor; null for constants. Zero-size tensors get 0 (never accessed). */
  readonly tensorOffsets: readonly (number | null)[];
  /** Per op, the arena offsets of its scratch buffers in request order. */
  readonly scratchOffsets: readonly (readonly number[])[];
  /** Plan extent plus the variable tensors placed after it. */
  readonly arenaBytes: number;
  readonly runtime: Runtime;
}

export interface PreparePlannedOptions {
  /** Planner name (see PLANNERS); default tflm-greedy. */
  readonly planner?: string;
  /** false: skip the static plan check (verifyPlan), e.g. to let the tracer judge a suspect plan. */
  readonly verify?: boolean;
  /** Device for TinySeg Spill/Fetching ops (default: the runtime's, nicla-vision internal flash). */
  readonly storage?: StorageDevice;
  /** MFV-compress spilled blocks. */
  readonly compress?: boolean;
  /** How WebAssembly kernels are lowered (RuntimeOptions.wasmLowering). */
  readonly wasmLowering?: WasmLowering;
  /** Room for a Tracer's shadow memory in the kernels' memory (RuntimeOptions.traceShadow). */
  readonly traceShadow?: boolean;
  /** The kernel library planned for and run (its scratch requests, its specs; default reference). */
  readonly registry?: KernelRegistry;
}

/** Maps a verified plan to tensor / scratch offsets. Variables (persistent in TFLM) go after the plan. */
function mapOffsets(graph: Graph, requests: readonly BufferRequest[], plan: Plan) {
  const tensorOffsets: (number | null)[] = graph.tensors.map((t) => (t.data === null ? 0 : null));
  const scratchOffsets: number[][] = graph.ops.map(() => []);
  const scratch: { readonly op: number; readonly index: number; readonly offset: number }[] = [];
  requests.forEach((r, i) => {
    const off = plan.offsets[i];
    if (off === undefined) throw new InternalError(`plan has no offset for buffer ${r.id}`);
    if (r.tensor !== null) tensorOffsets[r.tensor] = off;
    else if (r.opIndex !== null && r.scratchIndex !== null) scratch.push({ op: r.opIndex, index: r.scratchIndex, offset: off });
  });
  scratch.sort((a, b) => a.index - b.index).forEach((s) => scratchOffsets[s.op]?.push(s.offset));
  let next = alignUp(plan.peakBytes);
  graph.tensors.forEach((t, i) => {
    if (t.data !== null || !t.isVariable) return;
    tensorOffsets[i] = next;
    next += alignUp(byteSize(t.dtype, t.shape));
  });
  return { tensorOffsets, scratchOffsets, arenaBytes: Math.max(next, plan.peakBytes) };
}

/** The runtime's kernels must fit the scratch the planner was asked for (TFLM's request table). */
function checkScratch(rt: Runtime, requests: readonly BufferRequest[]): void {
  rt.prepared.forEach((p) => {
    const planned = requests.filter((r) => r.opIndex === p.opIndex);
    p.prepared.scratch.forEach((decl, k) => {
      const req = planned[k];
      if (req === undefined || req.sizeBytes < decl.sizeBytes) {
        throw new InternalError(`op ${p.opIndex} (${p.spec.kind}): scratch '${decl.name}' needs ${decl.sizeBytes} B, planned ${req?.sizeBytes ?? 0} B`);
      }
    });
  });
}

/** A model's arena as preparePlannedModel plans it, without the runtime. */
export type ModelPlan = Omit<PlannedModel, 'runtime'>;

/** Compute buffer requests, plan and verify them, and map the plan to tensor and scratch offsets:
 * preparePlannedModel without building the runtime (no kernel prepared, lowered or compiled). */
export function planModel(model: Model, opts: Pick<PreparePlannedOptions, 'planner' | 'verify' | 'registry'> = {}): ModelPlan {
  const { graph } = model;
  // An op without a kernel is refused for itself, before a plan it could not run in is made.
  checkGraphConstraints(graph, opts.registry);
  const requests = computeModelBufferRequests(model, opts.registry);
  const name = opts.planner ?? DEFAULT_PLANNER;
  const made = getPlanner(name).plan(requests, graph);
  // The plan's overlaps are checked against the access order of the kernels it runs with; one
  // safe only for the reference kernels runs as that build runs it (plan.libraryHazard says why).
  const hazard = opts.verify !== false ? checkPlanHazard(requests, made, graph, opts.registry) : null;
  const plan = hazard === null ? made : { ...made, libraryHazard: hazard };
  return { graph, requests, plan, ...mapOffsets(graph, requests, plan) };
}

/** planModel, and a runtime built at the planned offsets. */
export function preparePlannedModel(model: Model, opts: PreparePlannedOptions = {}): PlannedModel {
  const planned = planModel(model, opts);
  const { graph, tensorOffsets, scratchOffsets, arenaBytes } = planned;
  const runtime = new Runtime({ graph, tensorOffsets, scratchOffsets, arenaBytes, ...(opts.storage ? { storage: opts.storage } : {}), ...(opts.compress ? { compress: true } : {}), ...(opts.wasmLowering ? { wasmLowering: opts.wasmLowering } : {}), ...(opts.traceShadow ? { traceShadow: true } : {}), ...(opts.registry ? { registry: opts.registry } : {}) });
  checkScratch(runtime, planned.requests);
  return { ...planned, runtime };
}

/** A memory tracer for `pm`'s runs: its shadow memory in the room the runtime reserved for it
 * (preparePlannedModel's `traceShadow`), where the check reads the kernels' log in place, else a
 * memory of its own. */
export function tracerFor(pm: PlannedModel): Tracer {
  const scratchBytes = pm.runtime.prepared.map((p, i) => ((pm.scratchOffsets[i]?.length ?? 0) > 0 ? p.prepared.scratch.map((s) => s.sizeBytes) : []));
  return new Tracer({ graph: pm.graph, tensorOffsets: pm.tensorOffsets, scratchOffsets: pm.scratchOffsets, scratchBytes, arenaBytes: pm.arenaBytes, shadowSpace: pm.runtime.shadowSpace });
}

export interface RunPlannedOptions {
  /** Raw bytes per graph input; when omitted, `randomInputs(graph, seed)`. */
  readonly inputs?: readonly Uint8Array[];
  /** Seed for generated inputs (default 1). */
  readonly seed?: number | string;
  /** Keep every tensor's bytes right after its producing op (graph inputs: as written). */
  readonly captureTensors?: boolean;
  /** Run every op through the traced executor, reporting arena accesses here. */
  readonly trace?: TraceSink;
  /** Called after each op with its index (progress). */
  readonly onOp?: (opIndex: number) => void;
}

export interface PlannedRunResult {
  readonly inputs: readonly Uint8Array[];
  readonly outputs: readonly Uint8Array[];
  /**
   * By tensor index when captureTensors: bytes after the producing op (variables: after the last op
   * that reads and updates them); null for constants and never-produced tensors.
   */
  readonly tensors: readonly (Uint8Array | null)[] | null;
}

function inputMeta(graph: Graph, i: number): { readonly name: string; readonly dtype: DType; readonly bytes: number } {
  const t = graph.tensors[graph.inputs[i] ?? -1];
  if (t === undefined) throw new InternalError(`graph input ${i} names a missing tensor`);
  return { name: t.name, dtype: t.dtype, bytes: byteSize(t.dtype, t.shape) };
}

/** UsageError naming the input index, expected and actual byte counts, before anything runs. */
export function checkInputs(graph: Graph, inputs: readonly Uint8Array[]): void {
  if (inputs.length !== graph.inputs.length) {
    throw new UsageError(`the model has ${graph.inputs.length} input(s), ${inputs.length} given`);
  }
  inputs.forEach((bytes, i) => {
    const m = inputMeta(graph, i);
    if (bytes.length !== m.bytes) {
      throw new UsageError(`input ${i} ('${m.name}', ${m.dtype}) must be ${m.bytes} bytes, got ${bytes.length} bytes`);
    }
  });
}

export function runPlanned(pm: PlannedModel, opts: RunPlannedOptions = {}): PlannedRunResult {
  const { graph, runtime } = pm;
  const inputs = opts.inputs ?? randomInputs(graph, opts.seed ?? 1);
  checkInputs(graph, inputs);
  const tensors: (Uint8Array | null)[] | null = opts.captureTensors ? graph.tensors.map(() => null) : null;
  if (tensors !== null) graph.inputs.forEach((t, k) => (tensors[t] = (inputs[k] as Uint8Array).slice()));
  const capture = (t: number): void => {
    const tensor = graph.tensors[t];
    if (tensors === null || tensor === undefined || tensor.data !== null) return;
    tensors[t] = byteSize(tensor.dtype, tensor.shape) === 0 ? new Uint8Array(0) : runtime.readTensor(t);
  };
  const outputs = runtime.run(inputs, {
    ...(opts.trace ? { trace: opts.trace } : {}),
    onOp: (i) => {
      // Variable state an op updates in place (SVDF, LSTM inputs) is captured like its outputs.
      const op = graph.ops[i];
      const variables = op?.inputs.filter((t) => t >= 0 && graph.tensors[t]?.isVariable === true) ?? [];
      if (tensors !== null) for (const t of [...(op?.outputs ?? []), ...variables]) if (t >= 0) capture(t);
      opts.onOp?.(i);
    },
  });
  return { inputs, outputs, tensors };
}
