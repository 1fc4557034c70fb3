// The whole arena a model needs (issue 12), on one of two runtimes (the like-with-like issue):
// `tflm`, TFLM's MicroInterpreter (stock kernels, plus mcusim's generated ones from `codegen --tflm`
// for the ops stock TFLM lacks): its persistent tail modelled allocation by allocation for a
// 64-bit host or a 32-bit Cortex-M build, the planned head, and the arena size to declare; `mcusim`,
// mcusim's C port, whose persistent part is what that runtime keeps (variable tensors after the
// plan; params are const, in flash). Every report names its runtime and kernel library.
import type { BuiltinKind, Graph } from '../../ir/index.ts';
import { byteSize, ModelError } from '../../ir/index.ts';
import { REFERENCE_KERNELS, kernelSpecOf, makeOpContext } from '../../kernels/index.ts';
import type { KernelLibraryName, KernelRegistry, TflmPersistent } from '../../kernels/index.ts';
import type { TflmArch, TflmArchName } from './arch.ts';
import { alignUp } from './struct-layout.ts';
import { ARENA_ALIGNMENT_BYTES, modelArenaEvents, modelPersistentBytes } from './model-persistent.ts';
import type { NonStockUse, TflmKernelSet } from './model-persistent.ts';
import { declareBytes } from './declare-bytes.ts';
import { runsGeneratedKernel } from './generated-kernels.ts';

/** `tflm`: TFLM's MicroInterpreter (with mcusim's generated kernels where needed); `mcusim`: the C port. */
export type ArenaRuntime = 'tflm' | 'mcusim';
export const ARENA_RUNTIMES: readonly ArenaRuntime[] = ['tflm', 'mcusim'];
/** What users deploy: TFLM. */
export const DEFAULT_ARENA_RUNTIME: ArenaRuntime = 'tflm';

export interface ArenaReport {
  readonly arch: TflmArchName;
  /** Whose arena: TFLM's MicroInterpreter or mcusim's C port. */
  readonly runtime: ArenaRuntime;
  /** The kernel library linked, and the CPU picking its CMSIS-NN path (null: reference). */
  readonly kernels: KernelLibraryName;
  readonly cpu: string | null;
  /** The plan's peak: the non-persistent head (TFLM's planner_max_memory_bytes). */
  readonly plannedBytes: number;
  /** The persistent tail (TFLM: GetPersistentUsedBytes()). */
  readonly persistentBytes: number;
  /** What the arena holds after AllocateTensors: TFLM's arena_used_bytes() on this build. */
  readonly totalBytes: number;
  /** The smallest `tensor_arena[N]` the runtime accepts (TFLM: declare-bytes.ts; the C port declares its own). */
  readonly declareBytes: number;
  /** RAM the runtime needs beyond the arena (0: storage I/O buffers are planned inside the arena). */
  readonly outsideArenaBytes: number;
  /** Ops stock TFLM cannot run (they run on mcusim's generated kernels or the C port). */
  readonly nonStockOps: readonly NonStockUse[];
}

/** The plan an arena report is for: its peak and the buffers handed to TFLM's planner. */
export interface PlanSize {
  readonly plannedBytes: number;
  readonly bufferCount: number;
}

export interface RuntimeArenaOptions {
  readonly offlineOffsets?: Int32Array | null;
  readonly registry?: KernelRegistry;
  /** Alignment of the declared arena's start (default 16, `alignas(16)`). */
  readonly startAlignBytes?: number;
}

/** The whole arena of `graph` planned as `plan` on `runtime` (see the file header). */
export function runtimeArena(graph: Graph, plan: PlanSize, arch: TflmArch, runtime: ArenaRuntime, options: RuntimeArenaOptions = {}): ArenaReport {
  const registry = options.registry ?? REFERENCE_KERNELS;
  const offline = options.offlineOffsets ?? null;
  if (runtime === 'mcusim') return wholeArena(graph, plan.plannedBytes, arch, offline, 'mcusim', registry).report;
  const kernels: TflmKernelSet = graph.ops.some((op) => runsGeneratedKernel(op, registry)) ? 'generated' : 'stock';
  const r = kernels === 'generated' ? tflmGeneratedArena(graph, plan.plannedBytes, arch, offline, registry) : wholeArena(graph, plan.plannedBytes, arch, offline, 'auto', registry).report;
  if (r.runtime !== 'tflm') {
    throw ModelError.fromIssues(r.nonStockOps.map((u) => ({ code: 'E_MODEL_UNSUPPORTED_OP', message: `TFLM has no kernel for ${u.kind}, and mcusim generates none`, opIndex: u.opIndex, opKind: u.kind })));
  }
  const events = modelArenaEvents(graph, arch, offline, registry, kernels);
  return { ...r, declareBytes: declareBytes(events, plan, r.totalBytes, options.startAlignBytes) };
}

function identity(registry: KernelRegistry): { readonly kernels: KernelLibraryName; readonly cpu: string | null } {
  return { kernels: registry.library, cpu: registry.cpu };
}

/**
 * TFLM's arena for `graph` with mcusim's generated kernels linked (`codegen --tflm`,
 * generated-kernels.ts): the plan (whose scratch buffers are the ones the generated kernels
 * request) plus the persistent tail with their Init / Prepare allocations. An op neither stock
 * nor generated (an unknown custom op) is E_MODEL_UNSUPPORTED_OP.
 */
export function tflmGeneratedArena(
  graph: Graph, plannedBytes: number, arch: TflmArch, offlineOffsets: Int32Array | null = null, registry: KernelRegistry = REFERENCE_KERNELS,
): ArenaReport {
  const tflm = modelPersistentBytes(graph, arch, offlineOffsets, registry, 'generated');
  if (tflm.nonStock.length > 0) {
    throw ModelError.fromIssues(tflm.nonStock.map((u) => ({ code: 'E_MODEL_UNSUPPORTED_OP', message: `TFLM has no kernel for ${u.kind}, and mcusim generates none`, opIndex: u.opIndex, opKind: u.kind })));
  }
  const totalBytes = plannedBytes + tflm.persistentBytes;
  return { arch: arch.name, runtime: 'tflm', ...identity(registry), plannedBytes, persistentBytes: tflm.persistentBytes, totalBytes, declareBytes: totalBytes, outsideArenaBytes: 0, nonStockOps: [] };
}

export interface WholeArena {
  readonly report: ArenaReport;
}

/**
 * The whole arena for `graph` planned at `plannedBytes` on `arch`: stock TFLM's when every op is a
 * TFLM builtin (or `runtime` is 'mcusim': mcusim's C runtime whatever the ops), with `registry`'s
 * kernels (TFLM with that library linked).
 */
export function wholeArena(
  graph: Graph,
  plannedBytes: number,
  arch: TflmArch,
  offlineOffsets: Int32Array | null = null,
  runtime: 'auto' | 'mcusim' = 'auto',
  registry: KernelRegistry = REFERENCE_KERNELS,
): WholeArena {
  const tflm = modelPersistentBytes(graph, arch, offlineOffsets, registry);
  if (tflm.nonStock.length === 0 && runtime === 'auto') {
    const totalBytes = plannedBytes + tflm.persistentBytes;
    const report: ArenaReport = {
      arch: arch.name, runtime: 'tflm', ...identity(registry), plannedBytes, persistentBytes: tflm.persistentBytes,
      totalBytes, declareBytes: totalBytes, outsideArenaBytes: 0, nonStockOps: [],
    };
    return { report };
  }
  let persistentBytes = 0;
  let outsideArenaBytes = 0;
  graph.tensors.forEach((t) => {
    if (t.isVariable && t.data === null) persistentBytes += alignUp(byteSize(t.dtype, t.shape), ARENA_ALIGNMENT_BYTES);
  });
  graph.ops.forEach((op, i) => {
    if (op.kind === 'custom') return;
    const tflm = kernelSpecOf(op.kind, registry)?.tflmPersistent as TflmPersistent | undefined;
    if (tflm === undefined || tflm.stock) return;
    const ctx = makeOpContext<BuiltinKind>(graph, i);
    persistentBytes += tflm.mcusimPersistentBytes(ctx);
    outsideArenaBytes += tflm.mcusimOutsideArenaBytes(ctx);
  });
  // The C port declares its own arena (codegen's MODEL_ARENA_BYTES): what it holds.
  const totalBytes = plannedBytes + persistentBytes;
  const report: ArenaReport = {
    arch: arch.name, runtime: 'mcusim', ...identity(registry), plannedBytes, persistentBytes,
    totalBytes, declareBytes: totalBytes, outsideArenaBytes, nonStockOps: tflm.nonStock,
  };
  return { report };
}
