// The whole arena a model needs (issue 12): TFLM's persistent tail (modelled allocation by
// allocation for a 64-bit host or a 32-bit Cortex-M build) plus the planned head. A graph with
// mcusim-only ops (TinySeg / FDT custom ops) runs on mcusim's C runtime instead: its persistent
// part is what that runtime keeps (variable tensors after the plan; params are const, in flash).
import type { BuiltinKind, Graph } from '../../ir/index.ts';
import { byteSize, ModelError } from '../../ir/index.ts';
import { REFERENCE_KERNELS, kernelSpecOf, makeOpContext } from '../../kernels/index.ts';
import type { KernelRegistry, TflmPersistent } from '../../kernels/index.ts';
import type { TflmArch, TflmArchName } from './arch.ts';
import { alignUp } from './struct-layout.ts';
import { ARENA_ALIGNMENT_BYTES, modelPersistentBytes } from './model-persistent.ts';
import type { NonStockUse } from './model-persistent.ts';

export type ArenaRuntime = 'tflm' | 'mcusim';

export interface ArenaReport {
  readonly arch: TflmArchName;
  /** `tflm`: stock TFLM runs every op; `mcusim`: the graph needs mcusim's C runtime (custom ops). */
  readonly runtime: ArenaRuntime;
  /** The plan's peak: the non-persistent head (TFLM's planner_max_memory_bytes). */
  readonly plannedBytes: number;
  /** The persistent tail (TFLM: GetPersistentUsedBytes()). */
  readonly persistentBytes: number;
  /** What the arena must hold: TFLM's arena_used_bytes() on this build. */
  readonly totalBytes: number;
  /** RAM the runtime needs beyond the arena (0: storage I/O buffers are planned inside the arena). */
  readonly outsideArenaBytes: number;
  /** Ops stock TFLM cannot run, when runtime is `mcusim`. */
  readonly nonStockOps: readonly NonStockUse[];
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
  return { arch: arch.name, runtime: 'tflm', plannedBytes, persistentBytes: tflm.persistentBytes, totalBytes: plannedBytes + tflm.persistentBytes, outsideArenaBytes: 0, nonStockOps: [] };
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
    const report: ArenaReport = {
      arch: arch.name, runtime: 'tflm', plannedBytes, persistentBytes: tflm.persistentBytes,
      totalBytes: plannedBytes + tflm.persistentBytes, outsideArenaBytes: 0, nonStockOps: [],
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
  const report: ArenaReport = {
    arch: arch.name, runtime: 'mcusim', plannedBytes, persistentBytes,
    totalBytes: plannedBytes + persistentBytes, outsideArenaBytes, nonStockOps: tflm.nonStock,
  };
  return { report };
}
