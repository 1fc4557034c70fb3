// What a model is and how TFLM would lay out its arena (DESIGN.md §9): the verified plan with its
// lower bound, the whole arena (TFLM's persistent tail + the plan, for --arch) and, with a board,
// whether it fits; every op with shapes and MACs, every tensor. `mcusim inspect` prints it as JSON
// or tables; planModel is the plan part alone.
import { DTYPE_BYTES, elementCount, readOfflinePlan } from '../ir/index.ts';
import type { Graph, Model } from '../ir/index.ts';
import { REFERENCE_KERNELS, countMacs, prepareGraph } from '../kernels/index.ts';
import type { KernelLibraryName, KernelRegistry } from '../kernels/index.ts';
import { DEFAULT_PLANNER, computeModelBufferRequests, lowerBoundBytes, planBuffers } from '../optimizer/index.ts';
import type { BufferRequest, Plan, PlannerOptions } from '../optimizer/index.ts';
import { ARENA_RUNTIMES, DEFAULT_ARENA_RUNTIME, DEFAULT_TFLM_ARCH, asStockTflm, boardFit, getTflmArch, isGeneratedCustomKind, mcusimKernelUses, runsGeneratedKernel, runtimeArena } from '../sim/index.ts';
import type { ArenaReport, ArenaRuntime, BoardFit, TargetProfile, TflmArch } from '../sim/index.ts';

export interface PlanBufferJson {
  readonly tensor: number | null;
  readonly scratchIndex?: number;
  readonly opIndex?: number;
  readonly name: string;
  readonly offset: number;
  readonly size: number;
  readonly first: number;
  readonly last: number;
}

export interface OpJson {
  readonly index: number;
  readonly kind: string;
  readonly inputs: readonly number[];
  readonly outputs: readonly number[];
  readonly inputShapes: readonly (readonly number[] | null)[];
  readonly outputShapes: readonly (readonly number[] | null)[];
  readonly macs: number;
}

export interface TensorJson {
  readonly index: number;
  readonly name: string;
  readonly dtype: string;
  readonly shape: readonly number[];
  readonly bytes: number;
  readonly constant: boolean;
  readonly variable: boolean;
  readonly scale: readonly number[] | null;
  readonly zeroPoint: readonly number[] | null;
}

export interface InspectReport {
  /** The kernel library the arena and checks are for, and the CPU that picked its code path (null: reference). */
  readonly kernels: KernelLibraryName;
  readonly cpu: string | null;
  readonly model: { readonly description: string; readonly graph: string };
  readonly plan: {
    readonly planner: string;
    readonly peakBytes: number;
    readonly lowerBoundBytes: number;
    /** Searching planners (exact): whether the peak is proven minimal, and its gap to the lower bound. */
    readonly proven?: boolean;
    readonly gapBytes?: number;
    readonly buffers: readonly PlanBufferJson[];
    /** Why the file's plan clobbers with this kernel library (it was planned for the reference kernels). */
    readonly libraryHazard?: string;
  };
  /** The whole arena (DESIGN.md §9) on the chosen runtime: planned head + persistent tail for the chosen arch, and the size to declare. */
  readonly arena: ArenaReport;
  /**
   * A file that needs mcusim's own ops (custom ops, or builtin ops in mcusim-only kernel variants
   * such as the scratch-free TransposeConv): its arena on both runtimes (TFLM with the generated
   * kernels, the C port), for a builtin-only file also on stock TFLM with TFLM's own kernels, and
   * which ops need mcusim's kernels.
   */
  readonly runtimes?: {
    readonly tflm: ArenaReport;
    readonly mcusim: ArenaReport;
    readonly stockTflm?: ArenaReport;
    readonly mcusimKernels: readonly string[];
  };
  /** With --board: whether the arena fits the board's RAM region and the weights its flash. */
  readonly fit?: BoardFit;
  readonly totalMacs: number;
  readonly ops: readonly OpJson[];
  readonly tensors: readonly TensorJson[];
}

export interface Inspection {
  readonly report: InspectReport;
  readonly requests: readonly BufferRequest[];
  readonly plan: Plan;
}

function shapeOf(graph: Graph, index: number): readonly number[] | null {
  return index < 0 ? null : (graph.tensors[index]?.shape ?? null);
}

function bufferJson(r: BufferRequest, offset: number): PlanBufferJson {
  const common = { name: r.name, offset, size: r.sizeBytes, first: r.firstStep, last: r.lastStep };
  if (r.tensor !== null) return { tensor: r.tensor, ...common };
  return { tensor: null, scratchIndex: r.scratchIndex ?? 0, opIndex: r.opIndex ?? 0, ...common };
}

/** `proven` / `gapBytes` when the planner reports them (exact), else nothing. */
function searchFields(plan: Plan): { proven?: boolean; gapBytes?: number } {
  const p = plan as Plan & { readonly proven?: unknown; readonly gapBytes?: unknown };
  return {
    ...(typeof p.proven === 'boolean' ? { proven: p.proven } : {}),
    ...(typeof p.gapBytes === 'number' ? { gapBytes: p.gapBytes } : {}),
  };
}

export interface PlanModelOptions extends PlannerOptions {
  /** A planner name (see PLANNERS; default tflm-greedy, TFLM's GreedyMemoryPlanner). */
  readonly planner?: string;
}

/** Plan the model's arena (offline plans honoured) and verify the plan: peak, lower bound, every buffer. */
export function planModel(model: Model, options: PlanModelOptions = {}): InspectReport['plan'] {
  const { planner, ...plannerOptions } = options;
  return inspectModel(model, planner ?? DEFAULT_PLANNER, plannerOptions).report.plan;
}

/**
 * Whose arena `arena` reports: `tflm` (default) = TFLM's MicroInterpreter with the build's kernels
 * (and mcusim's generated ones from `codegen --tflm` for ops stock TFLM lacks), planned by TFLM's
 * GreedyMemoryPlanner whatever the planner shown; `mcusim` = mcusim's C port, with the plan shown.
 */
export type InspectRuntime = ArenaRuntime;
export const INSPECT_RUNTIMES: readonly InspectRuntime[] = ARENA_RUNTIMES;

export interface InspectTargets {
  readonly arch: TflmArch;
  readonly board?: TargetProfile;
  readonly runtime?: InspectRuntime;
  /** The kernel library linked (its scratch requests and persistent data; default reference). */
  readonly kernels?: KernelRegistry;
  /** Alignment of the declared arena's start (default 16). */
  readonly startAlignBytes?: number;
}

/** The arena of `graph` on `runtime`: TFLM plans the requests with its greedy planner (offline offsets honoured). */
function arenaOn(runtime: ArenaRuntime, graph: Graph, requests: readonly BufferRequest[], plan: Plan, targets: InspectTargets, offline: Int32Array | null, registry: KernelRegistry): ArenaReport {
  const peak = runtime === 'mcusim' || plan.planner === 'tflm-greedy' ? plan.peakBytes : planBuffers('tflm-greedy', requests, graph, {}, registry).peakBytes;
  return runtimeArena(graph, { plannedBytes: peak, bufferCount: requests.length }, targets.arch, runtime, {
    offlineOffsets: offline, registry, ...(targets.startAlignBytes !== undefined ? { startAlignBytes: targets.startAlignBytes } : {}),
  });
}

/** Both runtimes, and stock TFLM without the generated kernels, when the graph needs mcusim's ops; else undefined. */
function runtimesOf(model: Model, requests: readonly BufferRequest[], plan: Plan, targets: InspectTargets, offline: Int32Array | null, registry: KernelRegistry): InspectReport['runtimes'] {
  const graph = model.graph;
  const needs = graph.ops.flatMap((op, i) => (runsGeneratedKernel(op, registry) ? [i] : []));
  if (needs.length === 0) return undefined;
  const uses = mcusimKernelUses(graph, registry);
  const variants = new Map(uses.map((u) => [u.opIndex, u.options]));
  const mcusimOps = needs.map((i) => {
    const op = graph.ops[i];
    const kind = op === undefined ? '?' : op.kind === 'custom' ? `custom:${op.customCode}` : op.kind;
    const v = variants.get(i);
    return `op ${i} ${kind}${v === undefined ? '' : ` (${v.join(', ')})`}`;
  });
  // A builtin-only file whose ops use mcusim's kernel variants also runs on stock TFLM, with TFLM's own kernels.
  const builtinOnly = graph.ops.every((op) => op.kind !== 'custom' && !isGeneratedCustomKind(op.kind));
  let stockTflm: ArenaReport | undefined;
  if (builtinOnly && uses.length > 0) {
    const stockGraph = asStockTflm(graph, registry);
    const stockRequests = computeModelBufferRequests({ ...model, graph: stockGraph }, registry);
    const stockPlan = planBuffers('tflm-greedy', stockRequests, stockGraph, {}, registry);
    stockTflm = arenaOn('tflm', stockGraph, stockRequests, stockPlan, targets, offline, registry);
  }
  return {
    tflm: arenaOn('tflm', graph, requests, plan, targets, offline, registry),
    mcusim: arenaOn('mcusim', graph, requests, plan, targets, offline, registry),
    ...(stockTflm !== undefined ? { stockTflm } : {}),
    mcusimKernels: mcusimOps,
  };
}

/** Ops (shapes, MACs), tensors, the verified plan of `plannerName` and the whole arena for `targets`. */
export function inspectModel(
  model: Model,
  plannerName: string = DEFAULT_PLANNER,
  options: PlannerOptions = {},
  targets: InspectTargets = { arch: getTflmArch(DEFAULT_TFLM_ARCH) },
): Inspection {
  const graph = model.graph;
  const registry = targets.kernels ?? REFERENCE_KERNELS;
  // Every constraint and prepare-time check `run` applies, before planning: inspect never accepts
  // a model run refuses.
  prepareGraph(graph, registry);
  const requests = computeModelBufferRequests(model, registry);
  const plan = planBuffers(plannerName, requests, graph, options, registry);
  const offline = readOfflinePlan(model);
  const runtime = targets.runtime ?? DEFAULT_ARENA_RUNTIME;
  const runtimes = runtimesOf(model, requests, plan, targets, offline, registry);
  const arena = runtimes?.[runtime] ?? arenaOn(runtime, graph, requests, plan, targets, offline, registry);
  const ops: OpJson[] = graph.ops.map((op, index) => ({
    index,
    kind: op.kind === 'custom' ? `custom:${op.customCode}` : op.kind,
    inputs: op.inputs,
    outputs: op.outputs,
    inputShapes: op.inputs.map((t) => shapeOf(graph, t)),
    outputShapes: op.outputs.map((t) => shapeOf(graph, t)),
    macs: countMacs(op, graph),
  }));
  const tensors: TensorJson[] = graph.tensors.map((t, index) => ({
    index,
    name: t.name,
    dtype: t.dtype,
    shape: t.shape,
    bytes: elementCount(t.shape) * DTYPE_BYTES[t.dtype],
    constant: t.data !== null,
    variable: t.isVariable,
    scale: t.quant?.scale ?? null,
    zeroPoint: t.quant?.zeroPoint ?? null,
  }));
  const report: InspectReport = {
    kernels: registry.library,
    cpu: registry.cpu,
    model: { description: model.description, graph: graph.name },
    plan: {
      planner: plan.planner,
      peakBytes: plan.peakBytes,
      lowerBoundBytes: lowerBoundBytes(requests),
      ...searchFields(plan),
      buffers: requests.map((r, i) => bufferJson(r, plan.offsets[i] ?? 0)),
      ...(plan.libraryHazard !== undefined ? { libraryHazard: plan.libraryHazard } : {}),
    },
    arena,
    ...(runtimes === undefined ? {} : { runtimes }),
    ...(targets.board === undefined ? {} : { fit: boardFit(graph, arena, targets.board) }),
    totalMacs: ops.reduce((s, o) => s + o.macs, 0),
    ops,
    tensors,
  };
  return { report, requests, plan };
}
