// Device time of a fetching op's reads without a whole-tensor copy (TinySeg §5 transfer_in as the
// runtime streams it, sim/spill-store.ts): first the block is read back through the op's I/O buffer
// in device units and CRC-checked, then the kernel reads the payload in place. Memory-mapped devices
// (internal flash; QSPI NOR in memory-mapped mode) cost one cache-line fill per line of the payload:
// the Cortex-M7's D-cache keeps FetchingConv2D's few-row window, so each line is fetched once. The
// remote host costs one request per refill of the I/O buffer's lines, counted on the kernel's own
// address walk (FetchingConv2D's window rows) or, for a runtime-decoded MFV stream, per half-buffer.
import type { Graph } from '../../ir/index.ts';
import { InternalError } from '../../ir/index.ts';
import { instantiateStorageOp, prepareOp, STORAGE_IO_BYTES, storageUseOf, decodeTraceEvent, walkAddresses } from '../../kernels/index.ts';
import { ChunkCache, remoteWays } from '../storage-stream.ts';
import type { StorageDevice } from '../storage/index.ts';
import { SPILL_HEADER_BYTES } from '../storage/index.ts';

/** ARM Cortex-M7 TRM (DDI 0489): L1 data cache lines are 32 bytes; a memory-mapped read fills one. */
export const MAPPED_LINE_BYTES = 32;

export interface FetchReads {
  /** Reading the block back through the I/O buffer for its CRC. */
  readonly checkUs: number;
  /** The kernel's (or the runtime decoder's) reads of the payload. */
  readonly kernelUs: number;
  /** Device read accesses of the kernel pass (lines or remote requests). */
  readonly kernelReads: number;
}

function readUs(device: StorageDevice, addr: number, len: number): number {
  return device.read(addr, len).timeUs;
}

/** Payload line bases a kernel's loads touch, in order, with the remote cache applied. */
function remoteRequests(graph: Graph, opIndex: number, device: StorageDevice, start: number, rawBytes: number): { readonly addr: number; readonly len: number }[] {
  const use = storageUseOf(graph, opIndex);
  const op = graph.ops[opIndex];
  if (use === null || op === undefined) throw new InternalError(`op ${opIndex} is not a fetching op`);
  const ways = remoteWays(op.kind);
  const cache = new ChunkCache(Math.min(device.ioUnitBytes, STORAGE_IO_BYTES) / ways, ways, start, start + rawBytes);
  const out: { addr: number; len: number }[] = [];
  const p = prepareOp(graph, opIndex);
  const offsets = graph.tensors.map((t) => (t.data === null ? 0 : null));
  const inst = instantiateStorageOp(graph, p, use, offsets, p.prepared.scratch.map(() => 0), start);
  const id = graph.tensors.length;
  walkAddresses(inst, (_op, log, count) => {
    for (let i = 0; i < count; i++) {
      const e = decodeTraceEvent(log, i);
      if (e.bufferId !== id) continue;
      const line = cache.access(e.address, e.widthBytes);
      if (line.miss) out.push({ addr: line.base, len: line.len });
    }
  });
  return out;
}

/**
 * Reads of a fetch of `storedBytes` (`rawBytes` decoded) from the block at `addr`; `streamed`: the
 * runtime decodes an MFV payload sequentially (two streams through the halves of the I/O buffer).
 */
export function fetchReads(graph: Graph, opIndex: number, device: StorageDevice, addr: number, storedBytes: number, rawBytes: number, streamed: boolean): FetchReads {
  const block = SPILL_HEADER_BYTES + storedBytes;
  let checkUs = 0;
  for (let off = 0; off < block; off += device.ioUnitBytes) checkUs += readUs(device, addr + off, Math.min(device.ioUnitBytes, block - off));
  const start = addr + SPILL_HEADER_BYTES;
  let kernelUs = 0;
  let kernelReads = 0;
  if (device.kind !== 'remote') {
    for (let off = 0; off < storedBytes; off += MAPPED_LINE_BYTES, kernelReads++) kernelUs += readUs(device, start + off, Math.min(MAPPED_LINE_BYTES, storedBytes - off));
  } else if (streamed) {
    const half = Math.min(device.ioUnitBytes, STORAGE_IO_BYTES / 2);
    for (let off = 0; off < storedBytes; off += half, kernelReads++) kernelUs += readUs(device, start + off, Math.min(half, storedBytes - off));
  } else {
    for (const r of remoteRequests(graph, opIndex, device, start, rawBytes)) {
      kernelUs += readUs(device, r.addr, r.len);
      kernelReads++;
    }
  }
  return { checkUs, kernelUs, kernelReads };
}
