// TinySeg tensor spilling (paper §4.2.1, Algorithm 3 lines 12-14, Figure 6): a Spill op right after
// the start of the victim's cold range and a Fetching op right before its end; every use from the
// end on reads the fetched copy, so the victim is dead in the arena during the cold range. The
// storage slot is the victim's tensor index, as TinySeg's graph transformer writes spill_id and
// tensor_id (src/ir/custom-ops.ts), so renumbering tensors renumbers slots too.
import type { Graph, Op, Tensor } from '../../ir/index.ts';
import { InternalError, remapOpTensors, storageSlotOf } from '../../ir/index.ts';

/** `op` with tensor `from` replaced by `to` in its inputs. */
export function replaceInput(op: Op, from: number, to: number): Op {
  return op.inputs.includes(from) ? ({ ...op, inputs: op.inputs.map((t) => (t === from ? to : t)) } as Op) : op;
}

/** Indices of the ops reading tensor `t`. */
export function consumersOf(graph: Graph, t: number): number[] {
  return graph.ops.flatMap((op, i) => (op.inputs.includes(t) ? [i] : []));
}

export interface SpillEdit {
  readonly graph: Graph;
  /** Index of the inserted Fetching op in the new graph. */
  readonly fetchingOp: number;
  /** The tensor the Fetching op produces. */
  readonly fetched: number;
  /** The storage slot: the victim's tensor index. */
  readonly slot: number;
}

/**
 * Spill `victim` after op `startOp` (-1: before op 0, for a graph input) into the slot named by its
 * tensor index and fetch it before op `endOp`; uses at or after `endOp` read the fetched tensor.
 * A plain fetch concatenates along the last axis, as TinySeg writes it ([3, 0, id] for NHWC).
 */
export function spillTensor(graph: Graph, victim: number, startOp: number, endOp: number): SpillEdit {
  const t = graph.tensors[victim];
  if (t === undefined || t.data !== null || startOp >= endOp || endOp >= graph.ops.length) throw new InternalError(`cannot spill tensor ${victim} over ops ${startOp}..${endOp}`);
  if (graph.outputs.includes(victim)) throw new InternalError(`cannot spill graph output ${victim}`);
  const fetched = graph.tensors.length;
  const copy: Tensor = { ...t, name: `${t.name}/fetched` };
  const slot = victim;
  const spill: Op = { kind: 'spill', inputs: [victim], outputs: [], options: { id: slot } };
  const fetching: Op = { kind: 'fetching', inputs: [], outputs: [fetched], options: { victim: slot, nth: 0, axis: Math.max(0, t.shape.length - 1) } };
  const ops: Op[] = [];
  let fetchingOp = -1;
  if (startOp < 0) ops.push(spill);
  graph.ops.forEach((op, i) => {
    if (i === endOp) {
      fetchingOp = ops.length;
      ops.push(fetching);
    }
    ops.push(i >= endOp ? replaceInput(op, victim, fetched) : op);
    if (i === startOp) ops.push(spill);
  });
  return { graph: { ...graph, tensors: [...graph.tensors, copy], ops }, fetchingOp, fetched, slot };
}

/**
 * The graph without tensors no op, storage slot or graph input/output names (left behind by
 * fusions), indices and slots remapped.
 */
export function pruneUnusedTensors(graph: Graph): Graph {
  const n = graph.tensors.length;
  const used = new Uint8Array(n);
  const use = (t: number): void => {
    if (t >= 0 && t < n) used[t] = 1;
  };
  graph.inputs.forEach(use);
  graph.outputs.forEach(use);
  for (const op of graph.ops) {
    op.inputs.forEach(use);
    op.outputs.forEach(use);
    use(storageSlotOf(op) ?? -1);
  }
  // Tensors before the first unused one keep their index, and so do ops that name only those (a
  // tiling search prunes every candidate graph: most ops stay as they are).
  const first = used.indexOf(0);
  if (first < 0) return graph;
  const map = new Int32Array(n);
  let next = 0;
  for (let t = 0; t < n; t++) map[t] = used[t] ? next++ : -1;
  const m = (t: number): number => (t < 0 ? t : (map[t] ?? -1));
  const moves = (t: number): boolean => t >= first;
  return {
    ...graph,
    tensors: graph.tensors.filter((_, t) => used[t] === 1),
    inputs: graph.inputs.map(m),
    outputs: graph.outputs.map(m),
    ops: graph.ops.map((op) => (op.inputs.some(moves) || op.outputs.some(moves) || moves(storageSlotOf(op) ?? -1) ? remapOpTensors(op, m) : op)),
  };
}
