// TinySeg runtime storage side (paper §5) without a whole-tensor copy in RAM: Spill streams its
// arena input into a CRC-checked block on the device one device unit at a time through its planned
// I/O buffer (optionally MFV-compressed, §5.1, the representative picked with a planned histogram).
// A raw Fetching reads the block's payload in place from the device's memory-mapped image
// (internal and QSPI flash; the remote host through the I/O buffer, one USB packet per request);
// an MFV Fetching is decoded sequentially into its output; FetchingConv2D's slot (raw or MFV) is
// streamed sequentially into its planned row window, the rows each output row needs filled just
// before the kernel computes that row (each payload byte read once, each row filled once).
// Before a fetch the block is read back, CRC-checked and compared with what was spilled.
// The storage trace events are checked here (inside the slot's payload, loads only) and kept
// apart from the arena's; everything else goes to the arena tracer.
import type { Graph } from '../ir/index.ts';
import { InternalError, KernelError, byteSize } from '../ir/index.ts';
import type { PreparedOp, StorageUse, TraceSink } from '../kernels/index.ts';
import { STORAGE_IO_BYTES, storageUses, TRACE_WORDS_PER_EVENT, traceHeader } from '../kernels/index.ts';
import type { StorageDevice } from './storage/index.ts';
import { SPILL_HEADER_BYTES, alignToUnit, crc32Final, crc32Init, crc32Update, crc32UpdateByte, decompressMfv, fetchBlock, mfvEncodedBytes, sectorsCovering, spillFootprintBytes } from './storage/index.ts';
import type { DeviceCursor, IoWindow } from './storage-stream.ts';
import { ChunkCache, deviceCursor, histogramMostFrequent, OpEvents, payloadStream } from './storage-stream.ts';

const MAGIC = 0x4c505354; // "TSPL" little-endian, as sim/storage/spill-block.ts

export interface StorageLogEntry {
  readonly opIndex: number;
  readonly slot: number;
  readonly direction: 'spill' | 'fetch';
  readonly rawBytes: number;
  /** Payload bytes on the device (after compression). */
  readonly storedBytes: number;
  readonly addr: number;
  readonly eraseUs: number;
  readonly programUs: number;
  readonly readUs: number;
  /** Device transfers through the op's I/O buffer (program calls; remote read requests when traced). */
  readonly ioChunks: number;
  /** Streamed fetches: payload bytes the runtime read from the device (each once: = storedBytes). */
  readonly payloadBytesRead?: number;
  /** FetchingConv2D: input rows written into the row window (each once: batches x inH). */
  readonly rowsFilled?: number;
}

/** One spill slot: where its block lives on the device. */
export interface StorageSlot {
  readonly slot: number;
  readonly sizeBytes: number;
  readonly addr: number;
}

export interface SpillStoreOptions {
  readonly graph: Graph;
  readonly device: StorageDevice;
  readonly compress: boolean;
  readonly tensorOffsets: readonly (number | null)[];
  readonly scratchOffsets: readonly (readonly number[])[];
  readonly prepared: readonly PreparedOp[];
}

/** Slots in spill order with their block addresses (whole sectors each, from address 0). */
export function storageSlots(graph: Graph, device: StorageDevice): StorageSlot[] {
  const slots: StorageSlot[] = [];
  let addr = 0;
  const sector = Math.max(1, device.geometry.sectorBytes);
  for (const u of storageUses(graph)) {
    if (u.direction !== 'spill' || slots.some((s) => s.slot === u.slot)) continue;
    slots.push({ slot: u.slot, sizeBytes: u.sizeBytes, addr });
    // The worst case (no compression gain) gets whole sectors, so erasing one slot never wipes another.
    addr += alignToUnit(spillFootprintBytes(device, u.sizeBytes + Math.ceil(u.sizeBytes / 8) + 1), sector);
  }
  if (addr > device.geometry.sizeBytes) throw new KernelError('E_STORAGE', `spilled tensors need ${addr} B of ${device.name}, which has ${device.geometry.sizeBytes} B`);
  return slots;
}

interface Stored {
  readonly bytes: Uint8Array;
  readonly compressed: boolean;
  readonly storedBytes: number;
}

export class SpillStore {
  readonly device: StorageDevice;
  readonly compress: boolean;
  readonly slots: readonly StorageSlot[];
  /** The device's memory-mapped image fetching kernels read (the device's bytes, not board RAM). */
  readonly mapped: Uint8Array;
  readonly log: StorageLogEntry[] = [];
  readonly violations: string[] = [];
  /** Remote-host read requests of fetching kernels replayed by the trace filter (traced runs only). */
  remoteReads = 0;
  private readonly opts: SpillStoreOptions;
  private readonly uses: ReadonlyMap<number, StorageUse>;
  private readonly storageId: number;
  /** Per slot: what the last Spill streamed (the checker's copy, not simulated memory). */
  private readonly shadow = new Map<number, Stored>();
  /** Per fetching op: device time of its last block read-back (for its log entry). */
  private readonly readUs = new Map<number, number>();
  /** The arena bytes (the whole simulated RAM), once the runtime has laid out its memory (attach). */
  private arenaBytes: Uint8Array | null = null;

  constructor(opts: SpillStoreOptions) {
    const { graph, device } = opts;
    this.opts = opts;
    this.device = device;
    this.compress = opts.compress;
    this.storageId = graph.tensors.length;
    this.uses = new Map(storageUses(graph).map((u) => [u.opIndex, u]));
    if (device.ioUnitBytes > STORAGE_IO_BYTES || device.ioUnitBytes % device.geometry.programUnitBytes !== 0) {
      throw new KernelError('E_STORAGE', `${device.name} transfers ${device.ioUnitBytes} B units; the planned I/O buffer holds ${STORAGE_IO_BYTES} B`);
    }
    this.slots = storageSlots(graph, device);
    const end = this.slots.reduce((m, s) => Math.max(m, s.addr + spillFootprintBytes(device, s.sizeBytes + Math.ceil(s.sizeBytes / 8) + 1)), 8);
    this.mapped = new Uint8Array(alignToUnit(end, 8)).fill(0xff);
  }

  /**
   * Give the store the arena it streams from and into. The runtime attaches it once, after it has
   * laid out the kernels' memory (the arena is the start of the WebAssembly kernels' memory, and
   * those kernels are compiled from instances that need this store's slot addresses).
   */
  attach(arena: Uint8Array): void {
    if (this.arenaBytes !== null) throw new InternalError('spill store: arena attached twice');
    this.arenaBytes = arena;
  }

  private get arena(): Uint8Array {
    if (this.arenaBytes === null) throw new InternalError('spill store: no arena attached');
    return this.arenaBytes;
  }

  useOf(opIndex: number): StorageUse | undefined {
    return this.uses.get(opIndex);
  }

  /** Device address of the payload op `opIndex` reads or writes. */
  payloadAddrOf(opIndex: number): number {
    return this.slotOf(opIndex).addr + SPILL_HEADER_BYTES;
  }

  /** Arena offset of op `opIndex`'s planned I/O buffer (its scratch 0). */
  ioOffsetOf(opIndex: number): number {
    const off = this.opts.scratchOffsets[opIndex]?.[0];
    if (off === undefined) throw new InternalError(`storage op ${opIndex} has no planned I/O buffer`);
    return off;
  }

  /** True when the runtime writes a Fetching op's slot into its output itself (MFV decoding). */
  streamsFetch(opIndex: number): boolean {
    return this.compress && this.opts.graph.ops[opIndex]?.kind === 'fetching';
  }

  /** True for FetchingConv2D: the runtime fills its row window and runs it row by row (fetchRows). */
  fetchesRows(opIndex: number): boolean {
    return this.opts.graph.ops[opIndex]?.kind === 'fetchingConv2d';
  }

  /** Spill: stream the arena input as one block to the device through the I/O buffer. */
  spill(opIndex: number, trace?: TraceSink): void {
    const s = this.slotOf(opIndex);
    const op = this.opts.graph.ops[opIndex];
    const input = op?.inputs[0] ?? -1;
    const inOff = this.opts.tensorOffsets[input];
    const [ioOff, histOff] = this.opts.scratchOffsets[opIndex] ?? [];
    if (inOff === null || inOff === undefined || ioOff === undefined) throw new InternalError(`spill op ${opIndex} has no arena input or I/O buffer`);
    const ev = new OpEvents(trace, opIndex);
    const t = { arena: this.arena, offset: inOff, sizeBytes: s.sizeBytes, id: input };
    let rep: number | null = null;
    let length = s.sizeBytes;
    if (this.compress) {
      if (histOff === undefined) throw new InternalError(`spill op ${opIndex} has no planned histogram`);
      const h = histogramMostFrequent(t, { offset: histOff, id: -2 }, ev);
      const encoded = mfvEncodedBytes(s.sizeBytes, s.sizeBytes - h.count);
      if (encoded < s.sizeBytes) [rep, length] = [h.rep, encoded];
    }
    const head = new Uint8Array(SPILL_HEADER_BYTES);
    const hv = new DataView(head.buffer);
    hv.setUint32(0, MAGIC, true);
    hv.setUint32(4, s.slot, true);
    hv.setUint32(8, length, true);
    // Pass 1: the CRC (it heads the block), over the payload generated from the arena tensor.
    let crc = crc32Update(crc32Init(), head.subarray(0, 12));
    const first = payloadStream(t, rep, ev);
    for (let i = 0; i < length; i++) crc = crc32UpdateByte(crc, first());
    hv.setUint32(12, crc32Final(crc), true);
    const dev = this.device;
    const foot = alignToUnit(SPILL_HEADER_BYTES + length, dev.geometry.programUnitBytes);
    let eraseUs = 0;
    if (dev.needsErase && !dev.isErased(s.addr, foot)) for (const sec of sectorsCovering(dev.geometry, s.addr, foot)) eraseUs += dev.erase(sec);
    // Pass 2: header + payload + 0xFF padding, one device unit at a time through the I/O buffer.
    const arena = this.arena;
    const second = payloadStream(t, rep, ev);
    let programUs = 0;
    let chunks = 0;
    for (let off = 0; off < foot; off += dev.ioUnitBytes) {
      const m = Math.min(dev.ioUnitBytes, foot - off);
      for (let j = 0; j < m; j++) {
        const p = off + j;
        arena[ioOff + j] = p < SPILL_HEADER_BYTES ? head[p] ?? 0 : p < SPILL_HEADER_BYTES + length ? second() : 0xff;
        ev.add('store', -1, ioOff + j, 1);
      }
      for (let j = 0; j < m; j++) ev.add('load', -1, ioOff + j, 1);
      programUs += dev.program(s.addr + off, arena.slice(ioOff, ioOff + m));
      chunks++;
    }
    ev.flush();
    const raw = arena.slice(inOff, inOff + s.sizeBytes);
    this.shadow.set(s.slot, { bytes: raw, compressed: rep !== null, storedBytes: length });
    this.log.push({ opIndex, slot: s.slot, direction: 'spill', rawBytes: s.sizeBytes, storedBytes: length, addr: s.addr, eraseUs, programUs, readUs: 0, ioChunks: chunks });
  }

  /**
   * Before a fetching op: read the block back (CRC checked), compare with what was spilled, and
   * expose it in the mapped image; when the runtime streams the fetch (streamsFetch), decode the
   * payload into the op's output now.
   */
  beforeFetch(opIndex: number, trace?: TraceSink): void {
    const s = this.slotOf(opIndex);
    const prior = this.shadow.get(s.slot);
    if (prior === undefined) throw new KernelError('E_STORAGE', `op ${opIndex} fetches slot ${s.slot} before any spill`);
    const r = fetchBlock(this.device, s.addr, { blockId: s.slot, payloadLength: prior.storedBytes });
    const raw = prior.compressed ? decompressMfv(r.payload, s.sizeBytes) : r.payload;
    if (raw.length !== s.sizeBytes || raw.some((b, i) => b !== prior.bytes[i])) this.violations.push(`op ${opIndex}: slot ${s.slot} fetched from ${this.device.name} differs from what was spilled`);
    this.mapped.set(r.payload, s.addr + SPILL_HEADER_BYTES);
    this.readUs.set(opIndex, r.readUs);
    if (this.fetchesRows(opIndex)) return;
    let chunks = 0;
    let read: number | undefined;
    if (this.streamsFetch(opIndex)) [chunks, read] = this.decodeInto(opIndex, s, prior, trace);
    this.log.push({ opIndex, slot: s.slot, direction: 'fetch', rawBytes: s.sizeBytes, storedBytes: prior.storedBytes, addr: s.addr, eraseUs: 0, programUs: 0, readUs: r.readUs, ioChunks: chunks, ...(read === undefined ? {} : { payloadBytesRead: read }) });
  }

  /**
   * FetchingConv2D after beforeFetch: for each flat output row (b * outH + outY) in order, stream
   * the slot's next rows (raw or MFV-decoded) into the planned row window (scratch 1, a ring of
   * wRows rows indexed by inY % wRows) up to the last input row that output row reads, then
   * `runRow(row)` computes it. Rows no output row reads are still streamed (the payload is read
   * sequentially, once); no row is filled twice.
   */
  fetchRows(opIndex: number, runRow: (row: number) => void, trace?: TraceSink): void {
    const s = this.slotOf(opIndex);
    const prior = this.shadow.get(s.slot);
    const p = this.opts.prepared[opIndex];
    const [io, win] = this.opts.scratchOffsets[opIndex] ?? [];
    if (prior === undefined || p === undefined || io === undefined || win === undefined) throw new InternalError(`fetchingConv2d op ${opIndex} has no spilled slot, I/O buffer or row window`);
    const sc = p.prepared.scalars;
    const get = (k: string): number => {
      const v = sc[k];
      if (v === undefined) throw new InternalError(`fetchingConv2d op ${opIndex} has no scalar ${k}`);
      return v;
    };
    const nth = p.prepared.flags?.['nth'] ?? 0;
    const [batches, inH, outH, wRows] = [get('batches'), get('inH'), get('outH'), get('wRows')];
    const [strideH, padH, dilH, fH] = [get('strideH'), get('padH'), get('dilH'), get('fH')];
    const rowBytes = get('inW') * get(`d${nth}`);
    if (rowBytes * inH * batches !== s.sizeBytes) throw new InternalError(`fetchingConv2d op ${opIndex}: ${batches}x${inH} rows of ${rowBytes} B do not make slot ${s.slot}'s ${s.sizeBytes} B`);
    const ev = new OpEvents(trace, opIndex);
    let chunks = 0;
    const src = this.payloadSource(s, prior, io, ev, () => void chunks++);
    const arena = this.arena;
    let filled = 0;
    const fill = (upTo: number): void => {
      for (; filled < upTo; filled++) {
        const base = win + ((filled % inH) % wRows) * rowBytes;
        for (let j = 0; j < rowBytes; j++) {
          arena[base + j] = src.next();
          ev.add('store', -2, base + j, 1);
        }
      }
    };
    for (let row = 0; row < batches * outH; row++) {
      const b = Math.floor(row / outH);
      const last = Math.min(inH - 1, (row % outH) * strideH - padH + (fH - 1) * dilH);
      fill(b * inH + last + 1);
      ev.flush();
      runRow(row);
    }
    fill(batches * inH);
    ev.flush();
    this.log.push({
      opIndex, slot: s.slot, direction: 'fetch', rawBytes: s.sizeBytes, storedBytes: prior.storedBytes, addr: s.addr, eraseUs: 0, programUs: 0,
      readUs: this.readUs.get(opIndex) ?? 0, ioChunks: chunks, payloadBytesRead: src.consumed(), rowsFilled: filled,
    });
  }

  /**
   * A sink that checks storage-region events (each inside its op's slot payload, loads only),
   * replays remote-host reads through the op's I/O buffer (one packet per request, copied into the
   * arena and traced) and forwards every arena event to `inner`.
   */
  traceFilter(inner: TraceSink): TraceSink {
    const words = TRACE_WORDS_PER_EVENT;
    let buf = new Int32Array(2 * words);
    let n = 0;
    // At most 100 storage reports per run (per filter), so a run's reports never depend on earlier runs.
    let reported = 0;
    const room = (events: number): void => {
      if (buf.length >= (n + events) * words) return;
      const grown = new Int32Array(Math.max(2 * buf.length, (n + events) * words));
      grown.set(buf.subarray(0, n * words));
      buf = grown;
    };
    const push = (header: number, address: number): void => {
      room(1);
      buf[n * words] = header;
      buf[n * words + 1] = address;
      n++;
    };
    /** Arena events [from, to) of `log`, copied as they are. */
    const pushRun = (log: Int32Array, from: number, to: number): void => {
      room(to - from);
      buf.set(log.subarray(from * words, to * words), n * words);
      n += to - from;
    };
    const remote = !this.memoryMapped();
    let op = -1;
    let cache: ChunkCache | null = null;
    const sid = this.storageId;
    return (opIndex, log, count) => {
      if (opIndex !== op) [op, cache] = [opIndex, null];
      // A chunk without storage-region events (every op but the fetches) goes on as it is: no
      // per-event copy of the arena events (a traced Tiny U-Net run makes 78 million). Only a
      // storage op's kernel has a buffer with the storage id (graph tensors and scratch have
      // others, and an event's id is its buffer's), so another op's chunks are not even scanned.
      const use = this.uses.get(opIndex);
      if (use === undefined) {
        inner(opIndex, log, count);
        return;
      }
      let first = 0;
      while (first < count && (log[words * first] as number) >> 4 !== sid) first++;
      if (first === count) {
        inner(opIndex, log, count);
        return;
      }
      n = 0;
      // The op's slot payload: where its storage loads must fall.
      const s = this.slots.find((x) => x.slot === use.slot);
      const start = s === undefined ? 0 : s.addr + SPILL_HEADER_BYTES;
      // Arena events between storage events are copied a run at a time.
      let run = 0;
      for (let i = first; i < count; i++) {
        const h = log[words * i] as number;
        if (h >> 4 !== sid) continue;
        if (i > run) pushRun(log, run, i);
        run = i + 1;
        const address = log[words * i + 1] as number;
        const width = h & 7;
        const kind = h & 8 ? 'store' : 'load';
        const inside = s !== undefined && address >= start && address + width <= start + s.sizeBytes;
        if (!inside || use.direction !== 'fetch' || kind !== 'load') {
          if (reported++ < 100) this.violations.push(`op ${opIndex}: storage ${kind} of ${width} B at device ${address} outside its slot or in the wrong direction`);
          continue;
        }
        if (!remote || s === undefined) continue;
        // Remote host: the kernel's read is served from a line of the I/O buffer, refilled by request.
        cache ??= new ChunkCache(Math.min(this.device.ioUnitBytes, STORAGE_IO_BYTES), 1, start, start + s.sizeBytes);
        const io = (this.opts.scratchOffsets[opIndex]?.[0] ?? 0);
        const line = cache.access(address, width);
        const at = io + line.way * cache.lineBytes;
        if (line.miss) {
          this.arena.set(this.mapped.subarray(line.base, line.base + line.len), at);
          for (let j = 0; j < line.len; j++) push(traceHeader('store', 1, -1), at + j);
          this.remoteReads++;
        }
        push(traceHeader('load', width, -1), at + (address - line.base));
      }
      if (count > run) pushRun(log, run, count);
      if (n > 0) inner(opIndex, buf, n);
    };
  }

  /** Memory-mapped devices (internal flash, QSPI in memory-mapped mode) are read in place. */
  memoryMapped(): boolean {
    return this.device.kind !== 'remote';
  }

  /**
   * The slot's payload as a sequential source of decoded bytes: raw (one cursor over the payload),
   * or MFV (bitmap and other values as two cursors). Remote host: the cursors read through the I/O
   * buffer at `io` (raw: the whole buffer; MFV: a half each), one request per chunk (`onChunk`).
   */
  private payloadSource(s: StorageSlot, prior: Stored, io: number, ev: OpEvents, onChunk: () => void): DeviceCursor {
    const start = s.addr + SPILL_HEADER_BYTES;
    const end = start + prior.storedBytes;
    const mapped = this.memoryMapped();
    const window = (offset: number, bytes: number): IoWindow | null => (mapped ? null : { arena: this.arena, offset: io + offset, id: -1, unit: Math.min(this.device.ioUnitBytes, bytes) });
    if (!prior.compressed) return deviceCursor(this.mapped, start, end, window(0, STORAGE_IO_BYTES), ev, onChunk);
    const half = STORAGE_IO_BYTES / 2;
    const bitmapBytes = Math.ceil(s.sizeBytes / 8);
    const bitmap = deviceCursor(this.mapped, start + 1, start + 1 + bitmapBytes, window(0, half), ev, onChunk);
    const values = deviceCursor(this.mapped, start + 1 + bitmapBytes, end, window(half, half), ev, onChunk);
    const rep = this.mapped[start] ?? 0;
    let i = 0;
    let bits = 0;
    return {
      next(): number {
        if (i % 8 === 0) bits = bitmap.next();
        return ((bits >> (i++ % 8)) & 1) === 1 ? values.next() : rep;
      },
      consumed: () => 1 + bitmap.consumed() + values.consumed(),
    };
  }

  /** Streams the slot's payload (MFV-decoded) into the Fetching op's output; returns [remote chunks, payload bytes read]. */
  private decodeInto(opIndex: number, s: StorageSlot, prior: Stored, trace?: TraceSink): [number, number] {
    const p = this.opts.prepared[opIndex];
    const op = this.opts.graph.ops[opIndex];
    const out = op?.outputs[0] ?? -1;
    const outOff = this.opts.tensorOffsets[out];
    const io = this.opts.scratchOffsets[opIndex]?.[0];
    const tensor = this.opts.graph.tensors[out];
    if (p === undefined || outOff === null || outOff === undefined || io === undefined || tensor === undefined) throw new InternalError(`fetch op ${opIndex} has no output or I/O buffer`);
    const nth = p.prepared.flags?.['nth'] ?? 0;
    const sc = p.prepared.scalars;
    const w = byteSize(tensor.dtype, [1]);
    const copy = (sc[`copy${nth}`] ?? 0) * w;
    const slab = (sc[`off${nth}`] ?? 0) * w;
    const row = (sc['outRow'] ?? 0) * w;
    const ev = new OpEvents(trace, opIndex);
    let chunks = 0;
    const src = this.payloadSource(s, prior, io, ev, () => void chunks++);
    for (let i = 0; i < s.sizeBytes; i++) {
      const at = outOff + Math.floor(i / copy) * row + slab + (i % copy);
      this.arena[at] = src.next();
      ev.add('store', out, at, 1);
    }
    ev.flush();
    return [chunks, src.consumed()];
  }

  private slotOf(opIndex: number): StorageSlot {
    const u = this.uses.get(opIndex);
    const s = u === undefined ? undefined : this.slots.find((x) => x.slot === u.slot);
    if (s === undefined) throw new InternalError(`op ${opIndex} is not a storage op`);
    return s;
  }
}
