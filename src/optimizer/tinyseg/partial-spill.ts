// TinySeg partial spilling (paper §4.2.1, Algorithm 3 lines 6-11, Figure 7): a SplitV after the
// cold range's start cuts the victim along its last (channel) axis into [kept, spilled] and a
// Concatenation before its end restores it; the spilled part becomes the new victim. The split is
// align(target reduction): whole channels, rounded up.
import type { Graph, Op, Tensor } from '../../ir/index.ts';
import { byteSize, InternalError } from '../../ir/index.ts';
import { replaceInput } from './spill-transform.ts';

/** Channels to spill so that at least `reductionBytes` leave the arena (clamped to [0, C]). */
export function alignedSpillChannels(victim: Tensor, reductionBytes: number): number {
  const c = victim.shape[victim.shape.length - 1] ?? 0;
  const perChannel = c === 0 ? 0 : byteSize(victim.dtype, victim.shape) / c;
  if (perChannel === 0) return 0;
  return Math.min(c, Math.max(0, Math.ceil(reductionBytes / perChannel)));
}

export interface SplitEdit {
  readonly graph: Graph;
  readonly splitOp: number;
  readonly concatOp: number;
  /** The part to spill next. */
  readonly part: number;
}

function int32Const(name: string, values: readonly number[], shape: readonly number[]): Tensor {
  const data = new Uint8Array(4 * values.length);
  const dv = new DataView(data.buffer);
  values.forEach((v, i) => dv.setInt32(4 * i, v, true));
  return { name, dtype: 'int32', shape, quant: null, data, isVariable: false };
}

/** Split `victim` after op `startOp` into [C - spillChannels, spillChannels] and restore it before `endOp`. */
export function splitForPartialSpill(graph: Graph, victim: number, startOp: number, endOp: number, spillChannels: number): SplitEdit {
  const t = graph.tensors[victim];
  const rank = t?.shape.length ?? 0;
  const c = t?.shape[rank - 1] ?? 0;
  if (t === undefined || spillChannels <= 0 || spillChannels >= c || startOp >= endOp) throw new InternalError(`cannot split tensor ${victim} for ${spillChannels} of ${c} channels`);
  const n = graph.tensors.length;
  const [kept, part, restored, sizes, axis] = [n, n + 1, n + 2, n + 3, n + 4];
  const withC = (ch: number, suffix: string): Tensor => ({ ...t, name: `${t.name}/${suffix}`, shape: [...t.shape.slice(0, -1), ch] });
  const tensors = [...graph.tensors, withC(c - spillChannels, 'kept'), withC(spillChannels, 'spilled'), { ...t, name: `${t.name}/restored` },
    int32Const(`${t.name}/split_sizes`, [c - spillChannels, spillChannels], [2]), int32Const(`${t.name}/split_axis`, [rank - 1], [])];
  const split: Op = { kind: 'splitV', inputs: [victim, sizes, axis], outputs: [kept, part], options: { numSplits: 2 } };
  const concat: Op = { kind: 'concatenation', inputs: [kept, part], outputs: [restored], options: { axis: rank - 1, activation: 'none' } };
  const ops: Op[] = [];
  let splitOp = -1;
  let concatOp = -1;
  if (startOp < 0) (splitOp = 0), ops.push(split);
  graph.ops.forEach((op, i) => {
    if (i === endOp) (concatOp = ops.length), ops.push(concat);
    ops.push(i >= endOp ? replaceInput(op, victim, restored) : op);
    if (i === startOp) (splitOp = ops.length), ops.push(split);
  });
  return { graph: { ...graph, tensors, ops }, splitOp, concatOp, part };
}
