// The op-level memory model the schedulers share (FDT paper §4.1): per op its predecessors,
// successors, created and scratch bytes, per planned tensor its producer and consumers (TFLM
// lifetimes from computeBufferRequests), and an incremental tracker of resident bytes.
import type { Graph } from '../../ir/index.ts';
import { computeBufferRequests } from '../planners/index.ts';

/** The op-level view of a graph the schedulers work on. */
export interface MemoryModel {
  readonly opCount: number;
  readonly preds: readonly (readonly number[])[];
  readonly succs: readonly (readonly number[])[];
  /** Bytes of the planned tensors each op creates. */
  readonly outBytes: readonly number[];
  readonly scratchBytes: readonly number[];
  /** Planned tensors: producer op (-1 = live from the start), consumer ops, kept to the end. */
  readonly tensors: readonly { readonly bytes: number; readonly producer: number; readonly consumers: readonly number[]; readonly pinned: boolean }[];
  /** For each op, the tensor entries it consumes or produces (candidates to free after it). */
  readonly touches: readonly (readonly number[])[];
  readonly initialBytes: number;
}

export function buildMemoryModel(graph: Graph): MemoryModel {
  const requests = computeBufferRequests(graph);
  const n = graph.ops.length;
  const producer = new Map<number, number>();
  graph.ops.forEach((op, i) => op.outputs.forEach((t) => producer.set(t, i)));
  const predSets = graph.ops.map(() => new Set<number>());
  graph.ops.forEach((op, i) =>
    op.inputs.forEach((t) => {
      const p = producer.get(t);
      if (p !== undefined && p !== i) predSets[i]?.add(p);
    }),
  );
  const preds = predSets.map((s) => [...s].sort((a, b) => a - b));
  const succs = graph.ops.map((): number[] => []);
  preds.forEach((ps, i) => ps.forEach((p) => succs[p]?.push(i)));
  const outBytes = new Array<number>(n).fill(0);
  const scratchBytes = new Array<number>(n).fill(0);
  const touches = graph.ops.map((): number[] => []);
  const outputs = new Set(graph.outputs);
  const tensors: { bytes: number; producer: number; consumers: number[]; pinned: boolean }[] = [];
  let initialBytes = 0;
  for (const r of requests) {
    if (r.tensor === null) {
      if (r.opIndex !== null) scratchBytes[r.opIndex] = (scratchBytes[r.opIndex] ?? 0) + r.sizeBytes;
      continue;
    }
    const t = r.tensor;
    const prod = producer.get(t) ?? -1;
    const consumers = [...new Set(graph.ops.flatMap((op, i) => (op.inputs.includes(t) && i !== prod ? [i] : [])))];
    const entry = tensors.length;
    tensors.push({ bytes: r.sizeBytes, producer: prod, consumers, pinned: outputs.has(t) });
    if (prod < 0) initialBytes += r.sizeBytes;
    else {
      outBytes[prod] = (outBytes[prod] ?? 0) + r.sizeBytes;
      touches[prod]?.push(entry);
    }
    consumers.forEach((c) => touches[c]?.push(entry));
  }
  return { opCount: n, preds, succs, outBytes, scratchBytes, tensors, touches, initialBytes };
}

/** True when `order` lists every op once and after all its producers. */
export function isTopologicalOrder(model: MemoryModel, order: readonly number[]): boolean {
  if (order.length !== model.opCount) return false;
  const done = new Uint8Array(model.opCount);
  for (const v of order) {
    if (!Number.isInteger(v) || v < 0 || v >= model.opCount || done[v]) return false;
    if ((model.preds[v] ?? []).some((p) => !done[p])) return false;
    done[v] = 1;
  }
  return true;
}

/** Incremental simulation: resident bytes and remaining-consumer counts as ops execute. */
export class MemoryTracker {
  resident: number;
  private readonly remaining: number[];
  readonly done: Uint8Array;

  constructor(readonly model: MemoryModel) {
    this.resident = model.initialBytes;
    this.remaining = model.tensors.map((t) => t.consumers.length);
    this.done = new Uint8Array(model.opCount);
  }

  /** Live bytes while op v runs (inputs, outputs, everything still needed later, scratch). */
  stepBytes(v: number): number {
    return this.resident + (this.model.outBytes[v] ?? 0) + (this.model.scratchBytes[v] ?? 0);
  }

  /** Resident bytes after op v would run. */
  afterBytes(v: number): number {
    let freed = 0;
    for (const e of this.model.touches[v] ?? []) {
      const t = this.model.tensors[e];
      if (!t || t.pinned) continue;
      const left = (this.remaining[e] ?? 0) - (t.producer === v ? 0 : 1);
      if (left === 0) freed += t.bytes;
    }
    return this.resident + (this.model.outBytes[v] ?? 0) - freed;
  }

  execute(v: number): number {
    const step = this.stepBytes(v);
    const after = this.afterBytes(v);
    for (const e of this.model.touches[v] ?? []) if (this.model.tensors[e]?.producer !== v) this.remaining[e] = (this.remaining[e] ?? 0) - 1;
    this.resident = after;
    this.done[v] = 1;
    return step;
  }

  /** Take over another tracker's state (for what-if probes). */
  copyFrom(other: MemoryTracker): void {
    this.resident = other.resident;
    other.remaining.forEach((r, i) => {
      this.remaining[i] = r;
    });
    this.done.set(other.done);
  }

  ready(v: number): boolean {
    return !this.done[v] && (this.model.preds[v] ?? []).every((p) => this.done[p]);
  }
}
