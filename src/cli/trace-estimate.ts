// The size of a `run --trace-out` dump before the run (issue 14): every arena load/store is one
// dump line, and the kernels' cost walk (countCost: arena bytes loaded and stored, no values, no
// run) bounds the number of accesses per op from above (each access moves at least one byte).
// Each op's line length comes from the dump formatter itself, so the estimate tracks the format.
import type { Graph } from '../ir/index.ts';
import { byteSize } from '../ir/index.ts';
import { countCost, instantiateOp, prepareOp } from '../kernels/index.ts';
import type { TraceDumpFormat } from '../sim/index.ts';
import { TRACE_CSV_HEADER, formatTraceChunk } from '../sim/index.ts';

/** Ops whose nest reads a storage-staged input: their arena traffic is their tensors, read or written once. */
const STORAGE_STAGED = new Set<string>(['spill', 'fetching', 'fetchingConv2d']);

export interface TraceEstimate {
  /** Upper bound on arena accesses (events). */
  readonly events: number;
  /** Estimated dump size in bytes for the format. */
  readonly bytes: number;
}

function arenaBytesOf(graph: Graph, ids: readonly number[]): number {
  return ids.reduce((s, id) => {
    const t = id < 0 ? undefined : graph.tensors[id];
    return t === undefined || t.data !== null ? s : s + byteSize(t.dtype, t.shape);
  }, 0);
}

function opEvents(graph: Graph, opIndex: number): number {
  const op = graph.ops[opIndex];
  if (op === undefined) return 0;
  if (STORAGE_STAGED.has(op.kind)) return arenaBytesOf(graph, op.inputs) + arenaBytesOf(graph, op.outputs);
  const prepared = prepareOp(graph, opIndex);
  // Counts do not depend on addresses: every activation and scratch bound at offset 0.
  const offsets = graph.tensors.map((t) => (t.data === null ? 0 : null));
  const inst = instantiateOp(graph, prepared, offsets, prepared.prepared.scratch.map(() => 0));
  const c = countCost(inst);
  return c.arenaLoadBytes + c.arenaStoreBytes;
}

/** The dump's size for `graph` in `format` with an arena of `arenaBytes`. */
export function estimateTraceDump(graph: Graph, format: TraceDumpFormat, arenaBytes: number): TraceEstimate {
  const perOp = graph.ops.map((_, i) => opEvents(graph, i));
  const events = perOp.reduce((s, n) => s + n, 0);
  const sample = new Int32Array([(graph.tensors.length << 4) | 1, Math.max(0, arenaBytes - 1)]);
  let bytes = format === 'csv' ? TRACE_CSV_HEADER.length + 1 : 0;
  perOp.forEach((n, i) => {
    if (n === 0) return;
    const line = formatTraceChunk(format, i, graph.ops[i]?.kind ?? '?', sample, 1, Math.floor(events / 2)).length;
    bytes += n * line;
  });
  return { events, bytes };
}

const GB = 1024 ** 3;

/** "2.7 GB" / "35.2 MB" / "812 KB". */
export function formatSize(bytes: number): string {
  if (bytes >= GB) return `${(bytes / GB).toFixed(1)} GB`;
  if (bytes >= 1024 ** 2) return `${(bytes / 1024 ** 2).toFixed(1)} MB`;
  return `${Math.ceil(bytes / 1024)} KB`;
}

/** Dumps above this need --force. */
export const TRACE_DUMP_LIMIT_BYTES = GB;
