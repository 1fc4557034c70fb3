// Storage traffic of each op (TinySeg §4.2, Table 1): Spill writes its input to storage slot `id`;
// Fetching and FetchingConv2D read slot `victim` back. Bytes come from the spilled tensor; the
// last fetch of a slot frees its region (TinySeg's transfer_in erases it there). Every other op
// kind moves nothing to storage.
import type { Graph, OpKind } from '../../ir/index.ts';
import { ModelError, byteSize } from '../../ir/index.ts';

export type TransferDirection = 'spill' | 'fetch';

export interface StorageTransfer {
  readonly direction: TransferDirection;
  /** TinySeg storage slot (Spill id / Fetching victim). */
  readonly slot: number;
  /** The spilled tensor (for a fetch: the tensor that was spilled into the slot). */
  readonly tensor: number;
  /** Raw tensor bytes moved (before compression). */
  readonly bytes: number;
  /** True on the slot's last fetch: its region can be erased for the next spill. */
  readonly releasesSlot: boolean;
}

type TrafficRole = 'none' | 'spill' | 'fetch';

/** One row per op kind (exhaustive): which side of a spill it is. */
const TRAFFIC_ROLE: Readonly<Record<OpKind, TrafficRole>> = {
  spill: 'spill',
  fetching: 'fetch',
  fetchingConv2d: 'fetch',
  conv2d: 'none', depthwiseConv2d: 'none', transposeConv: 'none', fullyConnected: 'none', merge: 'none',
  maxPool2d: 'none', averagePool2d: 'none', add: 'none', mul: 'none', relu: 'none', relu6: 'none',
  leakyRelu: 'none', logistic: 'none', quantize: 'none', dequantize: 'none', mean: 'none', softmax: 'none',
  concatenation: 'none', reshape: 'none', pad: 'none', split: 'none', splitV: 'none', stridedSlice: 'none',
  transpose: 'none', custom: 'none',
  hardSwish: 'none', logSoftmax: 'none', tanh: 'none', elu: 'none', prelu: 'none', l2Normalization: 'none',
  resizeNearestNeighbor: 'none', resizeBilinear: 'none',
};

function invalid(opIndex: number, kind: OpKind, message: string): ModelError {
  return new ModelError('E_MODEL_INVALID', `op ${opIndex} (${kind}): ${message}`, [{ code: 'E_MODEL_INVALID', message, opIndex, opKind: kind }]);
}

/** Per op (in execution order), the storage transfers it performs. */
export function storageTransfers(graph: Graph): readonly (readonly StorageTransfer[])[] {
  const spilled = new Map<number, { readonly tensor: number; readonly bytes: number }>();
  const lastFetch = new Map<number, number>();
  graph.ops.forEach((op, i) => {
    if (op.kind === 'fetching' || op.kind === 'fetchingConv2d') lastFetch.set(op.options.victim, i);
  });
  return graph.ops.map((op, i): readonly StorageTransfer[] => {
    switch (TRAFFIC_ROLE[op.kind]) {
      case 'none':
        return [];
      case 'spill': {
        if (op.kind !== 'spill') return [];
        const tensor = op.inputs[0] ?? -1;
        const t = graph.tensors[tensor];
        if (t === undefined) throw invalid(i, op.kind, 'spill has no input tensor');
        const bytes = byteSize(t.dtype, t.shape);
        spilled.set(op.options.id, { tensor, bytes });
        return [{ direction: 'spill', slot: op.options.id, tensor, bytes, releasesSlot: false }];
      }
      case 'fetch': {
        if (op.kind !== 'fetching' && op.kind !== 'fetchingConv2d') return [];
        const slot = op.options.victim;
        const source = spilled.get(slot);
        if (source === undefined) throw invalid(i, op.kind, `fetches slot ${slot} before any Spill wrote it`);
        return [{ direction: 'fetch', slot, tensor: source.tensor, bytes: source.bytes, releasesSlot: lastFetch.get(slot) === i }];
      }
    }
  });
}
