// Safe overlap O_s of one op through the public API (DMO paper §III): an op given either as a
// SingleOpSpec (kind, input shape, window) or as an op of a graph, by the trace, algorithmic or
// analytic method (src/optimizer safe-overlap; conventions in docs/safe-overlap.md).
import type { Graph } from '../ir/index.ts';
import type { OverlapMethod, OverlapReport, SingleOpSpec } from '../optimizer/index.ts';
import { buildSingleOpGraph, safeOverlap as safeOverlapOf, safeOverlapReport } from '../optimizer/index.ts';

/** An op of an existing graph (e.g. `model.graph`). */
export interface GraphOp {
  readonly graph: Graph;
  readonly opIndex: number;
}

export interface SafeOverlapOptions {
  /** Bytes per element (DMO Table II uses 4 = float32); default: the tensors' own dtype width. */
  readonly elementBytes?: number;
  /** Seed of the trace method's random input data (O_s does not depend on it). */
  readonly seed?: number;
}

function graphOp(op: SingleOpSpec | GraphOp): GraphOp {
  return 'kind' in op ? { graph: buildSingleOpGraph(op), opIndex: 0 } : op;
}

/** O_s in bytes: how far the op's input may start before its output's end without a clobber. */
export function safeOverlap(op: SingleOpSpec | GraphOp, method: OverlapMethod = 'algorithmic', options: SafeOverlapOptions = {}): number {
  const { graph, opIndex } = graphOp(op);
  return safeOverlapOf(graph, opIndex, { ...options, method });
}

/** Input and output bytes and O_s by each of `methods` (default all three). */
export function overlapReport(op: SingleOpSpec | GraphOp, methods?: readonly OverlapMethod[], options: SafeOverlapOptions = {}): OverlapReport {
  const { graph, opIndex } = graphOp(op);
  return safeOverlapReport(graph, opIndex, { ...options, ...(methods ? { methods } : {}) });
}
