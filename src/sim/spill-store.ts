// TinySeg runtime storage side (paper §5): per spill slot, a staging buffer past the planned arena
// that Spill writes and Fetching / FetchingConv2D read; after a Spill the staged bytes (optionally
// MFV-compressed, §5.1) go to the storage device as one CRC-checked block and the staging buffer is
// poisoned, before a fetch the block is read back, checked and decoded into it. Also checks the
// storage ops' trace events (they address the staging buffer, not the arena) and keeps a log.
import type { Graph } from '../ir/index.ts';
import { InternalError, KernelError } from '../ir/index.ts';
import type { StorageUse, TraceSink } from '../kernels/index.ts';
import { decodeTraceEvent, storageUses, TRACE_WORDS_PER_EVENT } from '../kernels/index.ts';
import type { StorageDevice } from './storage/index.ts';
import { compressMfv, decompressMfv, fetchBlock, spillBlock, spillFootprintBytes } from './storage/index.ts';

const STAGING_ALIGN = 16;
const POISON = 0xa5;

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
}

interface Slot {
  readonly slot: number;
  readonly sizeBytes: number;
  readonly stagingOffset: number;
  readonly addr: number;
}

const alignUp = (x: number, a: number): number => Math.ceil(x / a) * a;

export class SpillStore {
  readonly device: StorageDevice;
  readonly compress: boolean;
  /** Bytes of staging buffers past `stagingBase`. */
  readonly stagingBytes: number;
  readonly stagingBase: number;
  readonly log: StorageLogEntry[] = [];
  readonly violations: string[] = [];
  private readonly uses: ReadonlyMap<number, StorageUse>;
  private readonly slots: ReadonlyMap<number, Slot>;
  private readonly storageId: number;
  /** Per slot: what the last Spill staged, and whether it was stored compressed. */
  private readonly shadow = new Map<number, { readonly bytes: Uint8Array; readonly compressed: boolean; readonly storedBytes: number }>();

  constructor(graph: Graph, arenaBytes: number, device: StorageDevice, compress = false) {
    this.device = device;
    this.compress = compress;
    this.storageId = graph.tensors.length;
    const uses = storageUses(graph);
    this.uses = new Map(uses.map((u) => [u.opIndex, u]));
    this.stagingBase = alignUp(arenaBytes, STAGING_ALIGN);
    const slots = new Map<number, Slot>();
    let staging = this.stagingBase;
    let addr = 0;
    const sector = Math.max(1, device.geometry.sectorBytes);
    for (const u of uses) {
      if (u.direction !== 'spill' || slots.has(u.slot)) continue;
      slots.set(u.slot, { slot: u.slot, sizeBytes: u.sizeBytes, stagingOffset: staging, addr });
      staging += alignUp(u.sizeBytes, STAGING_ALIGN);
      // The worst case (no compression gain) gets whole sectors, so erasing one slot never wipes another.
      addr += alignUp(spillFootprintBytes(device, u.sizeBytes + Math.ceil(u.sizeBytes / 8) + 1), sector);
    }
    if (addr > device.geometry.sizeBytes) throw new KernelError('E_STORAGE', `spilled tensors need ${addr} B of ${device.name}, which has ${device.geometry.sizeBytes} B`);
    this.slots = slots;
    this.stagingBytes = staging - this.stagingBase;
  }

  useOf(opIndex: number): StorageUse | undefined {
    return this.uses.get(opIndex);
  }

  stagingOffsetOf(opIndex: number): number {
    return this.slotOf(opIndex).stagingOffset;
  }

  /** After a Spill ran: write its staged bytes to the device, then poison the staging buffer. */
  afterSpill(opIndex: number, memory: Uint8Array): void {
    const s = this.slotOf(opIndex);
    const raw = memory.slice(s.stagingOffset, s.stagingOffset + s.sizeBytes);
    const packed = this.compress ? compressMfv(raw) : raw;
    const compressed = this.compress && packed.length < raw.length;
    const payload = compressed ? packed : raw;
    const r = spillBlock(this.device, { addr: s.addr, blockId: s.slot, payload });
    this.shadow.set(s.slot, { bytes: raw, compressed, storedBytes: payload.length });
    memory.fill(POISON, s.stagingOffset, s.stagingOffset + s.sizeBytes);
    this.log.push({ opIndex, slot: s.slot, direction: 'spill', rawBytes: raw.length, storedBytes: payload.length, addr: s.addr, eraseUs: r.eraseUs, programUs: r.programUs, readUs: 0 });
  }

  /** Before a fetching op: read the block (CRC checked), decode it into the staging buffer. */
  beforeFetch(opIndex: number, memory: Uint8Array): void {
    const s = this.slotOf(opIndex);
    const prior = this.shadow.get(s.slot);
    if (prior === undefined) throw new KernelError('E_STORAGE', `op ${opIndex} fetches slot ${s.slot} before any spill`);
    const r = fetchBlock(this.device, s.addr, { blockId: s.slot, payloadLength: prior.storedBytes });
    const raw = prior.compressed ? decompressMfv(r.payload, s.sizeBytes) : r.payload;
    if (raw.length !== s.sizeBytes || raw.some((b, i) => b !== prior.bytes[i])) this.violations.push(`op ${opIndex}: slot ${s.slot} fetched from ${this.device.name} differs from what was spilled`);
    memory.set(raw.subarray(0, s.sizeBytes), s.stagingOffset);
    this.log.push({ opIndex, slot: s.slot, direction: 'fetch', rawBytes: s.sizeBytes, storedBytes: prior.storedBytes, addr: s.addr, eraseUs: 0, programUs: 0, readUs: r.readUs });
  }

  /**
   * A sink that checks storage-staging events (each must stay inside its op's staging buffer;
   * Spill may only store there, fetches only load) and forwards every arena event to `inner`.
   */
  traceFilter(inner: TraceSink): TraceSink {
    let buf = new Int32Array(0);
    // At most 100 staging reports per run (per filter), so a run's reports never depend on earlier runs.
    let reported = 0;
    return (opIndex, log, count) => {
      if (buf.length < log.length) buf = new Int32Array(log.length);
      let n = 0;
      for (let i = 0; i < count; i++) {
        const e = decodeTraceEvent(log, i);
        if (e.bufferId !== this.storageId) {
          buf[n * TRACE_WORDS_PER_EVENT] = log[i * TRACE_WORDS_PER_EVENT] ?? 0;
          buf[n * TRACE_WORDS_PER_EVENT + 1] = log[i * TRACE_WORDS_PER_EVENT + 1] ?? 0;
          n++;
          continue;
        }
        const s = this.slots.get(this.uses.get(opIndex)?.slot ?? -1);
        const dir = this.uses.get(opIndex)?.direction;
        const inside = s !== undefined && e.address >= s.stagingOffset && e.address + e.widthBytes <= s.stagingOffset + s.sizeBytes;
        const rightWay = (dir === 'spill') === (e.kind === 'store');
        if ((!inside || !rightWay) && reported++ < 100) this.violations.push(`op ${opIndex}: ${e.kind} of ${e.widthBytes} B at ${e.address} outside its storage staging buffer or in the wrong direction`);
      }
      if (n > 0) inner(opIndex, buf, n);
    };
  }

  private slotOf(opIndex: number): Slot {
    const u = this.uses.get(opIndex);
    const s = u === undefined ? undefined : this.slots.get(u.slot);
    if (s === undefined) throw new InternalError(`op ${opIndex} is not a storage op`);
    return s;
  }
}
