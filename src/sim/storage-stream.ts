// The byte streams of TinySeg's storage transfers without a whole-tensor buffer (paper §5,
// transfer_out / transfer_in; §5.1 MFV format): a spill block's payload generated on the fly from
// the arena tensor (raw, or representative + bitmap + other values in two sequential passes), the
// MFV histogram kept in a planned scratch buffer, and the trace events of every arena access the
// runtime makes on a kernel's behalf (same event format as the traced executor).
import type { TraceSink } from '../kernels/index.ts';
import { TRACE_LOG_EVENTS, TRACE_WORDS_PER_EVENT, traceHeader } from '../kernels/index.ts';
import { MFV_HISTOGRAM_ENTRIES } from '../kernels/index.ts';

/** Buffers trace events of one op and flushes them to a sink; a no-op without a sink. */
export class OpEvents {
  private readonly log = new Int32Array(TRACE_LOG_EVENTS * TRACE_WORDS_PER_EVENT);
  private n = 0;
  constructor(private readonly sink: TraceSink | undefined, private readonly opIndex: number) {}

  get enabled(): boolean {
    return this.sink !== undefined;
  }

  add(kind: 'load' | 'store', bufferId: number, address: number, widthBytes: number): void {
    if (this.sink === undefined) return;
    if (this.n === this.log.length) this.flush();
    this.log[this.n] = traceHeader(kind, widthBytes, bufferId);
    this.log[this.n + 1] = address;
    this.n += 2;
  }

  flush(): void {
    if (this.sink !== undefined && this.n > 0) this.sink(this.opIndex, this.log, this.n >> 1);
    this.n = 0;
  }
}

/** Where a streamed transfer reads its tensor: the arena bytes at `offset`, trace id `id`. */
export interface ArenaTensor {
  readonly arena: Uint8Array;
  readonly offset: number;
  readonly sizeBytes: number;
  readonly id: number;
}

export interface Histogram {
  readonly offset: number;
  /** Trace id of the histogram scratch buffer. */
  readonly id: number;
}

/**
 * TinySeg's find_max_value over a planned histogram (256 little-endian int32 counts in the arena):
 * clear, count every byte of the tensor, scan. Ties go to the smallest value (mostFrequentByte).
 */
export function histogramMostFrequent(t: ArenaTensor, h: Histogram, ev: OpEvents): { readonly rep: number; readonly count: number } {
  const dv = new DataView(t.arena.buffer, t.arena.byteOffset, t.arena.byteLength);
  for (let v = 0; v < MFV_HISTOGRAM_ENTRIES; v++) {
    dv.setInt32(h.offset + 4 * v, 0, true);
    ev.add('store', h.id, h.offset + 4 * v, 4);
  }
  for (let i = 0; i < t.sizeBytes; i++) {
    const v = t.arena[t.offset + i] ?? 0;
    ev.add('load', t.id, t.offset + i, 1);
    const at = h.offset + 4 * v;
    ev.add('load', h.id, at, 4);
    dv.setInt32(at, dv.getInt32(at, true) + 1, true);
    ev.add('store', h.id, at, 4);
  }
  let rep = 0;
  let count = -1;
  for (let v = 0; v < MFV_HISTOGRAM_ENTRIES; v++) {
    ev.add('load', h.id, h.offset + 4 * v, 4);
    const c = dv.getInt32(h.offset + 4 * v, true);
    if (c > count) [rep, count] = [v, c];
  }
  return { rep, count };
}

/**
 * The payload of a spill block as a sequential byte source reading the arena tensor as it goes:
 * raw bytes, or (rep !== null) [rep][bitmap, LSB first][other values] (compressMfv's layout).
 */
export function payloadStream(t: ArenaTensor, rep: number | null, ev: OpEvents): () => number {
  const at = (i: number): number => {
    ev.add('load', t.id, t.offset + i, 1);
    return t.arena[t.offset + i] ?? 0;
  };
  if (rep === null) {
    let i = 0;
    return () => at(i++);
  }
  const bitmapBytes = Math.ceil(t.sizeBytes / 8);
  let pos = 0;
  let next = 0;
  return () => {
    const p = pos++;
    if (p === 0) return rep;
    if (p <= bitmapBytes) {
      let bits = 0;
      const base = 8 * (p - 1);
      for (let k = 0; k < 8 && base + k < t.sizeBytes; k++) if (at(base + k) !== rep) bits |= 1 << k;
      return bits;
    }
    for (;;) {
      const v = at(next++);
      if (v !== rep) return v;
    }
  };
}

/**
 * A sequential reader of device bytes [start, end) in the mapped image. `chunk` (remote host): the
 * bytes arrive `unit` at a time into `io` (an arena scratch range, bytes copied and traced) and are
 * read from there; null: read in place (memory-mapped flash).
 */
export interface DeviceCursor {
  next(): number;
  /** Device bytes read so far (each byte of [start, end) once). */
  consumed(): number;
}

export interface IoWindow {
  readonly arena: Uint8Array;
  readonly offset: number;
  readonly id: number;
  readonly unit: number;
}

export function deviceCursor(mapped: Uint8Array, start: number, end: number, io: IoWindow | null, ev: OpEvents, onChunk: () => void): DeviceCursor {
  let p = start;
  let base = -1;
  return {
    next(): number {
      if (p >= end) return 0xff;
      const a = p++;
      if (io === null) return mapped[a] ?? 0;
      if (base < 0 || a >= base + io.unit) {
        base = a;
        const len = Math.min(io.unit, end - a);
        io.arena.set(mapped.subarray(a, a + len), io.offset);
        for (let j = 0; j < len; j++) ev.add('store', io.id, io.offset + j, 1);
        onChunk();
      }
      ev.add('load', io.id, io.offset + (a - base), 1);
      return io.arena[io.offset + (a - base)] ?? 0;
    },
    consumed: () => p - start,
  };
}

/**
 * The remote host read by request through a planned I/O buffer of `ways` lines of `lineBytes`
 * (the host answers any length up to a USB packet): an access outside every line refills the
 * least recently used one from the accessed address on (one request). A plain raw Fetching reads
 * its slot in place through one line (the whole buffer).
 */
export class ChunkCache {
  private readonly bases: number[];
  private readonly stamps: number[];
  private clock = 0;
  requests = 0;

  constructor(readonly lineBytes: number, ways: number, private readonly start: number, private readonly end: number) {
    this.bases = Array.from({ length: ways }, () => -1);
    this.stamps = Array.from({ length: ways }, () => 0);
  }

  /** The line serving [addr, addr + width): its index, base address, length and whether it was refilled. */
  access(addr: number, width: number): { readonly way: number; readonly base: number; readonly len: number; readonly miss: boolean } {
    this.clock++;
    const hit = this.bases.findIndex((b) => b >= 0 && addr >= b && addr + width <= b + this.lineBytes);
    if (hit >= 0) {
      this.stamps[hit] = this.clock;
      return { way: hit, base: this.bases[hit] ?? 0, len: Math.min(this.lineBytes, this.end - (this.bases[hit] ?? 0)), miss: false };
    }
    let way = 0;
    for (let k = 1; k < this.bases.length; k++) if ((this.stamps[k] ?? 0) < (this.stamps[way] ?? 0)) way = k;
    const base = Math.max(this.start, Math.min(addr, this.end - this.lineBytes));
    this.bases[way] = base;
    this.stamps[way] = this.clock;
    this.requests++;
    return { way, base, len: Math.min(this.lineBytes, this.end - base), miss: true };
  }
}
