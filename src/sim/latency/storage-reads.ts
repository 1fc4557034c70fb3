// Device time of a fetching op's reads without a whole-tensor copy (TinySeg §5 transfer_in as the
// runtime streams it, sim/spill-store.ts): first the block is read back through the op's I/O buffer
// in device units and CRC-checked, then the kernel reads the payload in place. Memory-mapped devices
// (internal flash; QSPI NOR in memory-mapped mode) cost one cache-line fill per line of the payload
// (each line is read once: the runtime streams it sequentially). The remote host costs one request
// per refill of the I/O buffer, counted on a plain raw Fetching's own address walk, or, for a
// runtime-streamed payload (an MFV-decoded Fetching; FetchingConv2D's row window, raw or MFV),
// per sequential chunk: the whole buffer for one raw stream, half of it for each of MFV's two
// streams (bitmap and other values).
import type { Graph } from '../../ir/index.ts';
import { InternalError } from '../../ir/index.ts';
import { instantiateStorageOp, prepareOp, STORAGE_IO_BYTES, storageUseOf, decodeTraceEvent, walkAddresses } from '../../kernels/index.ts';
import { ChunkCache } from '../storage-stream.ts';
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
  const cache = new ChunkCache(Math.min(device.ioUnitBytes, STORAGE_IO_BYTES), 1, start, start + rawBytes);
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

/** How the runtime reads a fetch's payload: 'kernel' (in place, by the kernel's own loads) or streamed sequentially ('raw' one stream, 'mfv' two). */
export type FetchStreaming = 'kernel' | 'raw' | 'mfv';

/** How op `opIndex` reads its slot (sim/spill-store.ts): FetchingConv2D always streams rows into its window. */
export function fetchStreaming(graph: Graph, opIndex: number, compressed: boolean): FetchStreaming {
  if (compressed) return 'mfv';
  return graph.ops[opIndex]?.kind === 'fetchingConv2d' ? 'raw' : 'kernel';
}

/** Reads of a fetch of `storedBytes` (`rawBytes` decoded) from the block at `addr`, read as `streaming` says. */
export function fetchReads(graph: Graph, opIndex: number, device: StorageDevice, addr: number, storedBytes: number, rawBytes: number, streaming: FetchStreaming): FetchReads {
  const block = SPILL_HEADER_BYTES + storedBytes;
  let checkUs = 0;
  for (let off = 0; off < block; off += device.ioUnitBytes) checkUs += readUs(device, addr + off, Math.min(device.ioUnitBytes, block - off));
  const start = addr + SPILL_HEADER_BYTES;
  let kernelUs = 0;
  let kernelReads = 0;
  if (device.kind !== 'remote') {
    for (let off = 0; off < storedBytes; off += MAPPED_LINE_BYTES, kernelReads++) kernelUs += readUs(device, start + off, Math.min(MAPPED_LINE_BYTES, storedBytes - off));
  } else if (streaming !== 'kernel') {
    const chunk = Math.min(device.ioUnitBytes, streaming === 'mfv' ? STORAGE_IO_BYTES / 2 : STORAGE_IO_BYTES);
    for (let off = 0; off < storedBytes; off += chunk, kernelReads++) kernelUs += readUs(device, start + off, Math.min(chunk, storedBytes - off));
  } else {
    for (const r of remoteRequests(graph, opIndex, device, start, rawBytes)) {
      kernelUs += readUs(device, r.addr, r.len);
      kernelReads++;
    }
  }
  return { checkUs, kernelUs, kernelReads };
}
