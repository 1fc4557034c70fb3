// Block-based path discovery (fused tiling paper §4.3, Fig. 4/5): critical buffers from a plan
// (the buffers live where the layout reaches its peak, largest first; graph inputs and outputs
// are never tiled), then from each one a walk up and down the graph with the paper's blocks:
// FDT = Fan-Out -> PART* -> (Fan-In | CONCAT), FFMT = SPLIT -> FFMT/elementwise* -> CONCAT.
// Proposals: N = 2..25 for FDT, N x 1 (N = 2..25) and 2x2..5x5 for FFMT, with early-stop
// variants (without the Fan-In; before each overlapping op) and ends at the smallest buffers.
import { DTYPE_BYTES, elementCount } from '../../ir/index.ts';
import type { Graph, Op } from '../../ir/index.ts';
import { countMacs } from '../../kernels/index.ts';
import { fanInChannels, fanOutChannels, partChannels } from './fdt-transform.ts';
import type { FdtPath } from './fdt-transform.ts';
import { ffmtHasOverlap, ffmtTileable } from './ffmt-transform.ts';
import type { FfmtPath } from './ffmt-transform.ts';
import type { BufferRequest, Plan } from '../planners/index.ts';
import { tensorConsumers, tensorProducers } from './tiling-graph.ts';

export type TilingCandidate = { readonly method: 'fdt'; readonly path: FdtPath } | { readonly method: 'ffmt'; readonly path: FfmtPath };

export const MAX_FDT_PARTITIONS = 25;
/** TFLM's concatenation takes at most 10 inputs (kMaxInputNum): the cap for paths ending in CONCAT. */
export const MAX_CONCAT_INPUTS = 10;
export const FFMT_GRIDS: readonly (readonly [number, number])[] = [[2, 2], [3, 3], [4, 4], [5, 5]];

function tensorBytes(graph: Graph, t: number): number {
  const x = graph.tensors[t];
  return x === undefined ? 0 : elementCount(x.shape) * DTYPE_BYTES[x.dtype];
}

/**
 * Tensors that set the layout size: those live at a step where the planned buffers reach the
 * peak extent (offset + size = peak) or where live bytes are maximal; largest first.
 */
export function criticalTensors(graph: Graph, requests: readonly BufferRequest[], plan: Plan): number[] {
  const steps = new Set<number>();
  requests.forEach((r, i) => {
    if ((plan.offsets[i] ?? 0) + r.sizeBytes >= plan.peakBytes) for (let s = r.firstStep; s <= r.lastStep; s++) steps.add(s);
  });
  const live = new Map<number, number>();
  requests.forEach((r) => {
    for (let s = r.firstStep; s <= r.lastStep; s++) live.set(s, (live.get(s) ?? 0) + r.sizeBytes);
  });
  const maxLive = Math.max(0, ...live.values());
  live.forEach((bytes, s) => bytes === maxLive && steps.add(s));
  const io = new Set([...graph.inputs, ...graph.outputs]);
  const out = requests.filter((r) => r.tensor !== null && !io.has(r.tensor) && [...steps].some((s) => s >= r.firstStep && s <= r.lastStep));
  return out.sort((a, b) => b.sizeBytes - a.sizeBytes || (a.tensor ?? 0) - (b.tensor ?? 0)).map((r) => r.tensor as number);
}

/** MACs of a graph (countMacs; a merge counts its base op's MACs on its partition). */
export function graphMacs(graph: Graph): number {
  return graph.ops.reduce((sum, op) => sum + opMacs(graph, op), 0);
}

function opMacs(graph: Graph, op: Op): number {
  if (op.kind !== 'merge') return countMacs(op, graph);
  const w = graph.tensors[op.inputs[1] ?? -1]?.shape ?? [];
  const y = elementCount(graph.tensors[op.outputs[0] ?? -1]?.shape ?? []);
  return op.options.base === 'conv2d' ? y * (w[1] ?? 1) * (w[2] ?? 1) * (w[3] ?? 1) : y * (w[1] ?? 1);
}

/** The single consumer op of tensor t when t is an intermediate with exactly one, else -1. */
function soleConsumer(graph: Graph, consumers: readonly (readonly number[])[], t: number): number {
  const c = consumers[t] ?? [];
  return c.length === 1 && !graph.outputs.includes(t) && !graph.inputs.includes(t) ? (c[0] as number) : -1;
}

/** FDT proposals around critical tensor t. */
export function proposeFdt(graph: Graph, t: number, maxPartitions = MAX_FDT_PARTITIONS): FdtPath[] {
  const consumers = tensorConsumers(graph);
  const producers = tensorProducers(graph);
  const ups: number[] = [];
  let cur = t;
  let fanOut = -1;
  for (;;) {
    const p = producers[cur] ?? -1;
    if (p < 0) return [];
    if (fanOutChannels(graph, p) !== null) {
      fanOut = p;
      break;
    }
    const x = graph.ops[p]?.inputs[0] ?? -1;
    if (partChannels(graph, p) === null || soleConsumer(graph, consumers, x) !== p) return [];
    ups.unshift(p);
    cur = x;
  }
  const channels = fanOutChannels(graph, fanOut) ?? 0;
  const ends: { part: number[]; fanIn: number | null; bytes: number }[] = [];
  const part = [...ups];
  cur = graph.ops[part[part.length - 1] ?? fanOut]?.outputs[0] ?? -1;
  for (;;) {
    const c = soleConsumer(graph, consumers, cur);
    if (part.length > 0) ends.push({ part: [...part], fanIn: null, bytes: tensorBytes(graph, cur) });
    if (c < 0) break;
    if (fanInChannels(graph, c) !== null && graph.ops[c]?.inputs[0] === cur) {
      ends.push({ part: [...part], fanIn: c, bytes: tensorBytes(graph, graph.ops[c]?.outputs[0] ?? -1) });
    }
    if (partChannels(graph, c) === null || graph.ops[c]?.inputs[0] !== cur) break;
    part.push(c);
    cur = graph.ops[c]?.outputs[0] ?? -1;
  }
  // Concat ends only where the buffer is smallest so far (the paper's terminal rule); Fan-In ends all kept.
  let smallest = Infinity;
  const kept = ends.filter((e) => {
    if (e.fanIn !== null) return true;
    const keep = e.bytes < smallest;
    smallest = Math.min(smallest, e.bytes);
    return keep;
  });
  const out: FdtPath[] = [];
  for (const e of kept) {
    const cap = Math.min(maxPartitions, channels, e.fanIn === null ? MAX_CONCAT_INPUTS : Infinity);
    for (let n = 2; n <= cap; n++) out.push({ fanOut, part: e.part, fanIn: e.fanIn, partitions: n });
  }
  return out;
}

/** FFMT chains around critical tensor t: starts at the smallest input upward, ends at the smallest output downward, plus early stops. */
export function proposeFfmt(graph: Graph, t: number, maxPartitions = MAX_FDT_PARTITIONS): FfmtPath[] {
  const consumers = tensorConsumers(graph);
  const producers = tensorProducers(graph);
  const ups: number[] = [];
  let cur = t;
  for (;;) {
    const p = producers[cur] ?? -1;
    if (p < 0 || !ffmtTileable(graph, p)) break;
    ups.unshift(p);
    const x = graph.ops[p]?.inputs[0] ?? -1;
    if (soleConsumer(graph, consumers, x) !== p) break;
    cur = x;
  }
  const downs: number[] = [];
  cur = t;
  for (;;) {
    const c = soleConsumer(graph, consumers, cur);
    if (c < 0 || !ffmtTileable(graph, c) || graph.ops[c]?.inputs[0] !== cur) break;
    downs.push(c);
    cur = graph.ops[c]?.outputs[0] ?? -1;
  }
  if (ups.length + downs.length === 0) return [];
  const inBytes = (op: number): number => tensorBytes(graph, graph.ops[op]?.inputs[0] ?? -1);
  const outBytes = (op: number): number => tensorBytes(graph, graph.ops[op]?.outputs[0] ?? -1);
  // Start indices into ups (ops before t), end counts of downs.
  const starts = new Set<number>();
  if (ups.length > 0) {
    let best = ups.length - 1;
    for (let i = ups.length - 1; i >= 0; i--) if (inBytes(ups[i] as number) < inBytes(ups[best] as number)) best = i;
    starts.add(best);
    for (let i = ups.length - 1; i > best; i--) if (ffmtHasOverlap(graph, ups[i - 1] as number)) starts.add(i);
  }
  const ends = new Set<number>([0]);
  if (downs.length > 0) {
    let best = 1;
    for (let i = 1; i <= downs.length; i++) if (outBytes(downs[i - 1] as number) < outBytes(downs[best - 1] as number)) best = i;
    ends.add(best);
    for (let i = 1; i < best; i++) if (ffmtHasOverlap(graph, downs[i] as number)) ends.add(i);
  }
  const out: FfmtPath[] = [];
  for (const s of ups.length > 0 ? starts : new Set([0])) {
    for (const e of ends) {
      const ops = [...ups.slice(s), ...downs.slice(0, e)];
      if (ops.length === 0) continue;
      const y = graph.tensors[graph.ops[ops[ops.length - 1] as number]?.outputs[0] ?? -1];
      const [, h = 1, w = 1] = y?.shape ?? [];
      for (let n = 2; n <= Math.min(maxPartitions, MAX_CONCAT_INPUTS, h); n++) out.push({ ops, gridH: n, gridW: 1 });
      for (const [gh, gw] of FFMT_GRIDS) if (gh <= h && gw <= w) out.push({ ops, gridH: gh, gridW: gw });
    }
  }
  return out;
}
