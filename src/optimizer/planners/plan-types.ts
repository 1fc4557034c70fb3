// What planners consume and produce. Planners never see the graph: a request is a size and a
// lifetime in TFLM "allocation scope counts" (graph inputs at 0, op i at i+1), inclusive.

/** A byte overlap another buffer may have with this one (DMO safe overlap, in-place ops). */
export interface AllowedOverlap {
  readonly withId: number;
  readonly bytes: number;
}

export interface BufferRequest {
  /** Position in the request list = TFLM's planner buffer index. */
  readonly id: number;
  /** Tensor index for tensor buffers, null for scratch buffers. */
  readonly tensor: number | null;
  /** Index among the scratch requests (TFLM's scratch buffer handle), null for tensors. */
  readonly scratchIndex: number | null;
  /** The requesting op for scratch buffers, null for tensors. */
  readonly opIndex: number | null;
  readonly name: string;
  /** Bytes, rounded up to the 16-byte arena alignment. */
  readonly sizeBytes: number;
  readonly firstStep: number;
  readonly lastStep: number;
  /** Fixed offset from OfflineMemoryAllocation metadata, null when planned online. */
  readonly offlineOffsetBytes: number | null;
  readonly allowedOverlap?: readonly AllowedOverlap[];
}

export interface Plan {
  readonly planner: string;
  /** Offset of each request, by request id. */
  readonly offsets: readonly number[];
  readonly peakBytes: number;
  /**
   * Set when the plan is safe for the reference kernels but not for the library it is checked
   * against (a file planned for the other build): that build runs it and clobbers, as said here.
   */
  readonly libraryHazard?: string;
}

/** max(offset + size) over the buffers: the arena bytes a plan needs. */
export function planExtentBytes(requests: readonly BufferRequest[], offsets: readonly number[]): number {
  let peak = 0;
  requests.forEach((r, i) => {
    peak = Math.max(peak, (offsets[i] ?? 0) + r.sizeBytes);
  });
  return peak;
}
