// Trace dumps (DESIGN.md §3): JSON lines or CSV, one line per arena access, formatted chunk by
// chunk from the traced executor's event log so a whole-model trace never sits in memory. The
// writer is a callback (the CLI owns the file); events are numbered by a running step.
import type { Graph } from '../ir/index.ts';
import { UsageError } from '../ir/index.ts';
import type { TraceSink } from '../kernels/index.ts';

export type TraceDumpFormat = 'jsonl' | 'csv';

export const TRACE_CSV_HEADER = 'step,op,opKind,kind,address,width,buffer';

/** The dump format for a file name (.jsonl / .json / .csv). */
export function traceFormatForPath(path: string): TraceDumpFormat {
  const p = path.toLowerCase();
  if (p.endsWith('.csv')) return 'csv';
  if (p.endsWith('.jsonl') || p.endsWith('.json') || p.endsWith('.ndjson')) return 'jsonl';
  throw new UsageError(`trace dump '${path}': use a .jsonl or .csv file name`);
}

/** Lines for `count` events of op `opIndex`, numbered from `firstStep`. */
export function formatTraceChunk(format: TraceDumpFormat, opIndex: number, opKind: string, log: Int32Array, count: number, firstStep: number): string {
  const parts: string[] = [];
  for (let i = 0; i < count; i++) {
    const h = log[2 * i] ?? 0;
    const addr = log[2 * i + 1] ?? 0;
    const kind = h & 8 ? 'store' : 'load';
    const step = firstStep + i;
    parts.push(
      format === 'csv'
        ? `${step},${opIndex},${opKind},${kind},${addr},${h & 7},${h >> 4}`
        : `{"step":${step},"op":${opIndex},"opKind":"${opKind}","kind":"${kind}","address":${addr},"width":${h & 7},"buffer":${h >> 4}}`,
    );
  }
  return parts.length ? `${parts.join('\n')}\n` : '';
}

/** A sink that formats every chunk and hands the text to `write` (header first for CSV). */
export function traceDumpSink(graph: Graph, format: TraceDumpFormat, write: (text: string) => void): TraceSink {
  let step = 0;
  if (format === 'csv') write(`${TRACE_CSV_HEADER}\n`);
  return (op, log, count) => {
    write(formatTraceChunk(format, op, graph.ops[op]?.kind ?? '?', log, count, step));
    step += count;
  };
}
