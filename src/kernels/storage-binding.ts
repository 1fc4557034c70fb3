// Binds TinySeg's storage ops (Spill, Fetching, FetchingConv2D) to the storage device: a Fetching
// op is instantiated on a copy of the graph with one extra tensor (the spilled slot, id =
// graph.tensors.length in trace events) after its inputs, bound read-only to the slot's payload in
// the device's memory-mapped region (paper §5 transfer_in, without a RAM copy). Spill's transfer
// is streamed by the runtime through the op's planned I/O buffer; FetchingConv2D reads only its
// planned row window, which the runtime fills from the device row by row.
import type { DType, Graph, Op, Tensor } from '../ir/index.ts';
import { byteSize, InternalError, ModelError } from '../ir/index.ts';
import type { KernelInstance } from './instance.ts';
import type { PreparedOp } from './prepare-op.ts';
import { instantiateOp } from './prepare-op.ts';
import type { Nest, Stmt } from './nest.ts';
import { readsOf } from './nest.ts';
import { makeOpContext } from './spec.ts';
import { fetchedBytes } from './specs/fetching.ts';
import { fetchedConvBytes } from './specs/fetching-conv2d.ts';

export type StorageDirection = 'spill' | 'fetch';

/** One storage access of an op: which slot, how many bytes, which way. */
export interface StorageUse {
  readonly opIndex: number;
  readonly slot: number;
  readonly sizeBytes: number;
  readonly dtype: DType;
  readonly direction: StorageDirection;
}

export function isStorageOp(op: Op): boolean {
  return op.kind === 'spill' || op.kind === 'fetching' || op.kind === 'fetchingConv2d';
}

/** The storage use of op `opIndex`, or null for ordinary ops. Call after the op validated. */
export function storageUseOf(graph: Graph, opIndex: number): StorageUse | null {
  const op = graph.ops[opIndex];
  if (op === undefined) throw new InternalError(`no op ${opIndex}`);
  switch (op.kind) {
    case 'spill': {
      const t = graph.tensors[op.inputs[0] ?? -1];
      if (t === undefined) throw new InternalError(`spill op ${opIndex} has no input`);
      return { opIndex, slot: op.options.id, sizeBytes: byteSize(t.dtype, t.shape), dtype: t.dtype, direction: 'spill' };
    }
    case 'fetching': {
      const c = makeOpContext<'fetching'>(graph, opIndex);
      return { opIndex, slot: op.options.victim, sizeBytes: fetchedBytes(c), dtype: c.output(0).dtype, direction: 'fetch' };
    }
    case 'fetchingConv2d':
      return { opIndex, slot: op.options.victim, sizeBytes: fetchedConvBytes(makeOpContext<'fetchingConv2d'>(graph, opIndex)), dtype: 'int8', direction: 'fetch' };
    default:
      return null;
  }
}

/** Every storage use in op order; a slot fetched before it is spilled, or with another size, is a ModelError. */
export function storageUses(graph: Graph): StorageUse[] {
  const uses: StorageUse[] = [];
  const spilled = new Map<number, StorageUse>();
  graph.ops.forEach((_, i) => {
    const u = storageUseOf(graph, i);
    if (u === null) return;
    const prior = spilled.get(u.slot);
    if (u.direction === 'spill') {
      if (prior !== undefined && prior.sizeBytes !== u.sizeBytes) throw new ModelError('E_MODEL_INVALID', `op ${i} spills ${u.sizeBytes} B to slot ${u.slot}, which op ${prior.opIndex} sized ${prior.sizeBytes} B`);
      spilled.set(u.slot, u);
    } else if (prior === undefined) {
      throw new ModelError('E_MODEL_INVALID', `op ${i} fetches slot ${u.slot}, which no earlier op spills`);
    } else if (prior.sizeBytes !== u.sizeBytes) {
      throw new ModelError('E_MODEL_INVALID', `op ${i} fetches ${u.sizeBytes} B from slot ${u.slot}, but op ${prior.opIndex} spilled ${prior.sizeBytes} B`);
    }
    uses.push(u);
  });
  return uses;
}

/**
 * Instantiate a storage op. Spill binds only its input and planned buffers (the runtime streams
 * the transfer). A fetching op reads its slot from the storage device's mapped region at
 * `payloadAddr` (one extra read-only buffer, id = graph.tensors.length in trace events); with
 * `streamed` the runtime writes the slot's part of the output itself (MFV decoding) and the
 * instance keeps only the copies of the op's other inputs.
 */
export function instantiateStorageOp(graph: Graph, p: PreparedOp, use: StorageUse, tensorOffsets: readonly (number | null)[], scratchOffsets: readonly number[], payloadAddr: number, streamed = false): KernelInstance {
  const op = graph.ops[p.opIndex];
  if (op === undefined) throw new InternalError(`no op ${p.opIndex}`);
  if (use.direction === 'spill' || op.kind === 'fetchingConv2d') return instantiateOp(graph, p, tensorOffsets, scratchOffsets);
  const id = graph.tensors.length;
  const slot: Tensor = { name: `storage slot ${use.slot}`, dtype: use.dtype, shape: [use.sizeBytes / byteSize(use.dtype, [1])], quant: null, data: null, isVariable: false };
  const bound = { ...op, inputs: [...op.inputs, id] } as Op;
  const g: Graph = { ...graph, tensors: [...graph.tensors, slot], ops: graph.ops.map((o, i) => (i === p.opIndex ? bound : o)) };
  const inst = instantiateOp(g, p, [...tensorOffsets, payloadAddr], scratchOffsets);
  const storage = inst.buffers['storage'];
  if (storage === undefined) throw new InternalError(`op ${p.opIndex} (${op.kind}) binds no storage buffer`);
  if (!streamed) return { ...inst, buffers: { ...inst.buffers, storage: { ...storage, region: 'storage' } } };
  const { storage: _dropped, ...others } = inst.buffers;
  return { ...inst, nest: withoutReadsOf(inst.nest, 'storage'), buffers: others };
}

/** The nest without the stores whose value reads buffer `name` (and loops left empty). */
function withoutReadsOf(nest: Nest, name: string): Nest {
  const out: Stmt[] = [];
  for (const s of nest) {
    if (s.k === 'store' && readsOf(s.e).some((r) => r.name === name)) continue;
    if (s.k === 'for') {
      const body = withoutReadsOf(s.body, name);
      if (body.some((x) => x.k !== 'let')) out.push({ ...s, body });
      continue;
    }
    out.push(s);
  }
  return out;
}
