// Valgrind-style memory tracer (DESIGN.md §3; DMO paper §I/§III-B): shadow memory with one entry
// per arena byte (owning buffer key and the op that last stored it), fed by the traced executor's
// event log. Reports clobbers (a load of a byte last stored by another buffer), loads of
// never-written bytes, accesses outside the arena and outside the buffer the kernel addresses.
// Graph inputs (and variables) count as written by a pseudo-step before op 0. The shadow memory
// lives in a WebAssembly memory and a WebAssembly function checks the events (shadow-scan.ts), the
// JavaScript check below taking each event that breaks a rule (it reports) and every event when
// the shadow memory is too big for it.
import type { Graph } from '../ir/index.ts';
import { byteSize } from '../ir/index.ts';
import type { KernelRegistry, ReservedSpace, TraceSink } from '../kernels/index.ts';
import { prepareOp } from '../kernels/index.ts';
import type { WasmShadow } from './shadow-scan.ts';
import { makeWasmShadow, SCAN_LOG_EVENTS, SCAN_SCRATCH } from './shadow-scan.ts';

export type TraceViolationKind = 'clobber' | 'uninitialized' | 'out-of-arena' | 'out-of-tensor';

export interface TraceViolation {
  readonly kind: TraceViolationKind;
  /** Global event sequence number (time) of the offending access. */
  readonly step: number;
  readonly opIndex: number;
  readonly opKind: string;
  readonly access: 'load' | 'store';
  readonly address: number;
  readonly width: number;
  /** Buffer the kernel addressed: tensor index, or -(k+1) for scratch k of this op. */
  readonly buffer: number;
  /** For clobbers: the buffer id that last stored the byte (scratch as -(k+1)); else null. */
  readonly owner: number | null;
  /** For clobbers: the op that last stored the byte (-1 = graph input pseudo-step). */
  readonly ownerOp: number | null;
  /** How many accesses had the same kind, op, buffer and owner (only the first is kept). */
  readonly occurrences: number;
  readonly message: string;
}

export interface TraceRecord {
  readonly step: number;
  readonly opIndex: number;
  readonly kind: 'load' | 'store';
  readonly address: number;
  readonly widthBytes: number;
  readonly bufferId: number;
}

export interface TracerOptions {
  readonly graph: Graph;
  readonly tensorOffsets: readonly (number | null)[];
  /** Per op, the arena offsets of its scratch buffers. */
  readonly scratchOffsets?: readonly (readonly number[])[];
  /** Per op, scratch sizes; default: from each op's prepare (kernel spec of `registry`). */
  readonly scratchBytes?: readonly (readonly number[])[];
  /** The kernels whose scratch sizes are the default of scratchBytes (default: reference). */
  readonly registry?: KernelRegistry;
  readonly arenaBytes: number;
  /** Keep every event for events() (memory grows with the trace; dumps can stream instead). */
  readonly record?: boolean;
  /**
   * Where events are checked: 'webassembly' (the default; JavaScript when the shadow memory would
   * pass 1 GiB) or 'javascript' (for cross-checks: both find the same violations).
   */
  readonly check?: 'webassembly' | 'javascript';
  /**
   * Where the WebAssembly check's shadow memory goes: space the traced kernels' memory reserved
   * for it (Runtime's `shadowSpace`), so that it checks their log where they wrote it instead of
   * copying each chunk (8 bytes an event); default: a memory of its own.
   */
  readonly shadowSpace?: ReservedSpace | null;
}

const NONE = -0x7fffffff;

/** A violation signature's first occurrence and how many it has. */
interface Found { readonly v: TraceViolation; n: number }
/** A slot of the recent-signature table: the signature's fields and its Found. */
interface RecentFound {
  readonly kind: TraceViolationKind;
  readonly op: number;
  readonly id: number;
  readonly owner: number | null;
  readonly ownerOp: number | null;
  readonly found: Found;
}
const RECENT_SLOTS = 256;
const KIND_CODE: Readonly<Record<TraceViolationKind, number>> = { clobber: 0, uninitialized: 1, 'out-of-arena': 2, 'out-of-tensor': 3 };

/** Scratch keys: -(1 + op * SCRATCH_SLOTS + k), unique per (op, k). */
const SCRATCH_SLOTS = 64;

/** One sink that forwards every chunk to each of `sinks` in order. */
export function teeTraceSinks(...sinks: readonly TraceSink[]): TraceSink {
  return (op, log, n) => {
    for (const s of sinks) s(op, log, n);
  };
}

export class Tracer {
  readonly sink: TraceSink;
  private readonly graph: Graph;
  private readonly arenaBytes: number;
  private readonly owner: Int32Array;
  private readonly storeOp: Int32Array;
  private readonly tLo: Int32Array;
  private readonly tHi: Int32Array;
  /** The shadow memory's WebAssembly home and check (null: JS arrays, JS check). */
  private readonly wasm: WasmShadow | null;
  /** Scratch ranges of the current op the WebAssembly check places. */
  private nScratch = 0;
  private readonly scratchOffsets: readonly (readonly number[])[];
  private readonly scratchBytes: readonly (readonly number[])[];
  private sLo: number[] = [];
  private sHi: number[] = [];
  private currentOp = -1;
  private step = 0;
  private readonly found = new Map<string, Found>();
  /** Recent violation signatures (direct-mapped by a hash of their fields): a broken plan repeats a
   * few signatures millions of times, and building each one's text key cost ~1.5 us. */
  private readonly recent: (RecentFound | undefined)[] = new Array<RecentFound | undefined>(RECENT_SLOTS);
  private readonly counts: Record<TraceViolationKind, number> = { clobber: 0, uninitialized: 0, 'out-of-arena': 0, 'out-of-tensor': 0 };
  private readonly recordOn: boolean;
  private rec: Int32Array = new Int32Array(0);
  private recN = 0;

  constructor(opts: TracerOptions) {
    this.graph = opts.graph;
    this.arenaBytes = opts.arenaBytes;
    const n = opts.graph.tensors.length;
    this.wasm = opts.check === 'javascript' ? null : makeWasmShadow(opts.arenaBytes, n, opts.shadowSpace ?? undefined);
    this.owner = (this.wasm?.owner ?? new Int32Array(opts.arenaBytes)).fill(NONE);
    this.storeOp = (this.wasm?.storeOp ?? new Int32Array(opts.arenaBytes)).fill(-1);
    this.tLo = this.wasm?.tLo ?? new Int32Array(n);
    this.tHi = this.wasm?.tHi ?? new Int32Array(n);
    opts.graph.tensors.forEach((t, i) => {
      const off = opts.tensorOffsets[i];
      if (off === undefined || off === null || t.data !== null) return;
      this.tLo[i] = off;
      this.tHi[i] = off + byteSize(t.dtype, t.shape);
    });
    this.scratchOffsets = opts.scratchOffsets ?? [];
    this.scratchBytes = opts.scratchBytes ?? opts.graph.ops.map((_, i) => ((opts.scratchOffsets?.[i]?.length ?? 0) > 0 ? prepareOp(opts.graph, i, opts.registry).prepared.scratch.map((s) => s.sizeBytes) : []));
    this.recordOn = opts.record === true;
    this.markInputs();
    this.sink = (op, log, count) => this.consume(op, log, count);
  }

  /** Back to the state of a new Tracer (every byte unwritten, no events, no violations) without
   * allocating its shadow memory again: for one more run of the same plan (verify's seeds). */
  reset(): void {
    this.owner.fill(NONE);
    this.storeOp.fill(-1);
    this.currentOp = -1;
    this.step = 0;
    this.found.clear();
    this.recent.fill(undefined);
    for (const k of Object.keys(this.counts) as TraceViolationKind[]) this.counts[k] = 0;
    this.rec = new Int32Array(0);
    this.recN = 0;
    this.markInputs();
  }

  /** Graph inputs and variable tensors count as written before op 0. */
  private markInputs(): void {
    const written = new Set<number>(this.graph.inputs);
    this.graph.tensors.forEach((t, i) => t.isVariable && written.add(i));
    for (const t of written) this.markWritten(t);
  }

  /** Mark a tensor's bytes as written by the pre-run pseudo-step (op -1). */
  markWritten(tensor: number): void {
    const lo = this.tLo[tensor] ?? 0;
    const hi = Math.min(this.tHi[tensor] ?? 0, this.arenaBytes);
    this.owner.fill(tensor, lo, hi);
    this.storeOp.fill(-1, lo, hi);
  }

  /** After the run: every graph output byte must still be owned by its tensor. */
  finish(): void {
    for (const t of this.graph.outputs) {
      const lo = this.tLo[t] ?? 0;
      const hi = Math.min(this.tHi[t] ?? 0, this.arenaBytes);
      for (let a = lo; a < hi; a++) {
        const o = this.owner[a] ?? NONE;
        if (o === t) continue;
        const op = Math.max(0, this.storeOp[a] ?? 0);
        this.report(o === NONE ? 'uninitialized' : 'clobber', op, 'load', a, hi - a, t, o, `graph output tensor ${this.tensorName(t)} read after the run`);
        break;
      }
    }
  }

  violations(): TraceViolation[] {
    return [...this.found.values()].map(({ v, n }) => ({ ...v, occurrences: n }));
  }

  violationCounts(): Readonly<Record<TraceViolationKind, number>> {
    return { ...this.counts };
  }

  eventCount(): number {
    return this.step;
  }

  /** Every event (only with `record: true`). */
  events(): TraceRecord[] {
    const out: TraceRecord[] = [];
    for (let i = 0; i < this.recN; i++) {
      const h = this.rec[4 * i + 2] ?? 0;
      out.push({
        step: this.rec[4 * i] ?? 0, opIndex: this.rec[4 * i + 1] ?? 0, kind: h & 8 ? 'store' : 'load',
        address: this.rec[4 * i + 3] ?? 0, widthBytes: h & 7, bufferId: h >> 4,
      });
    }
    return out;
  }

  private enterOp(op: number): void {
    this.currentOp = op;
    const offs = this.scratchOffsets[op] ?? [];
    const sizes = this.scratchBytes[op] ?? [];
    this.sLo = offs.slice();
    this.sHi = offs.map((o, k) => o + (sizes[k] ?? 0));
    if (this.wasm !== null) {
      this.nScratch = Math.min(this.sLo.length, SCAN_SCRATCH);
      for (let k = 0; k < this.nScratch; k++) {
        this.wasm.sLo[k] = this.sLo[k] as number;
        this.wasm.sHi[k] = this.sHi[k] as number;
      }
    }
  }

  private consume(op: number, log: Int32Array, count: number): void {
    if (op !== this.currentOp) this.enterOp(op);
    if (this.recordOn) this.keep(op, log, count);
    this.step = this.scan(op, log, count, this.step);
  }

  /** Check `count` events of op `op` numbered from `firstStep`; returns the next step number. */
  private scan(op: number, log: Int32Array, count: number, firstStep: number): number {
    const w = this.wasm;
    if (w === null) return this.scanJs(op, log, count, firstStep);
    const scratchBase = -(1 + op * SCRATCH_SLOTS);
    // A log in the shadow's memory (the traced WebAssembly kernels') is checked where it is.
    const at = w.logAddress(log);
    if (at !== null) {
      this.scanPiece(w, op, log, at, count, firstStep, scratchBase);
      return firstStep + count;
    }
    for (let from = 0; from < count; from += SCAN_LOG_EVENTS) {
      const piece = Math.min(SCAN_LOG_EVENTS, count - from);
      w.log.set(log.subarray(2 * from, 2 * (from + piece)));
      this.scanPiece(w, op, w.log, w.log.byteOffset, piece, firstStep + from, scratchBase);
    }
    return firstStep + count;
  }

  /**
   * Check `count` events of `log` (at byte address `at` of the shadow's memory). The WebAssembly
   * check stops at each event that breaks a rule; the JS check reports it, and the events after it
   * while they break rules too (a broken plan breaks them by the million, and a call back into
   * WebAssembly per event cost more than the check), then the first one that breaks none; the
   * WebAssembly check goes on after that.
   */
  private scanPiece(w: WasmShadow, op: number, log: Int32Array, at: number, count: number, firstStep: number, scratchBase: number): void {
    let i = w.scan(0, count, op, scratchBase, this.nScratch, at);
    while (i < count) {
      let j = i;
      while (j < count && this.check(op, log[2 * j] as number, log[2 * j + 1] as number, firstStep + j, scratchBase)) j++;
      i = j + 1 >= count ? count : w.scan(j + 1, count, op, scratchBase, this.nScratch, at);
    }
  }

  /**
   * The JS check of `count` events (shadow memory past the WebAssembly check's size). The loop is
   * alone in its function: the first chunk is long enough for on-stack replacement to optimize the
   * loop before the function ever returned, and a field store after the loop (no type feedback
   * yet) then deoptimized that code at the end of every chunk.
   */
  private scanJs(op: number, log: Int32Array, count: number, firstStep: number): number {
    const scratchBase = -(1 + op * SCRATCH_SLOTS);
    for (let i = 0; i < count; i++) this.check(op, log[2 * i] as number, log[2 * i + 1] as number, firstStep + i, scratchBase);
    return firstStep + count;
  }

  /** Check one event (header `h`, address `addr`) of op `op` at step `step`: report what it breaks,
   * then record a store's bytes as its buffer's. True when it broke a rule. */
  private check(op: number, h: number, addr: number, step: number, scratchBase: number): boolean {
    const w = h & 7;
    const id = h >> 4;
    const isStore = (h & 8) !== 0;
    if (addr < 0 || addr + w > this.arenaBytes) {
      this.reportAt('out-of-arena', step, op, isStore, addr, w, id, null);
      return true;
    }
    let lo: number;
    let hi: number;
    let key: number;
    if (id >= 0) {
      lo = this.tLo[id] ?? 0;
      hi = this.tHi[id] ?? 0;
      key = id;
    } else {
      const k = -id - 1;
      lo = this.sLo[k] ?? 0;
      hi = this.sHi[k] ?? 0;
      key = scratchBase - k;
    }
    const outside = addr < lo || addr + w > hi;
    if (outside) this.reportAt('out-of-tensor', step, op, isStore, addr, w, id, null);
    const { owner, storeOp } = this;
    if (isStore) {
      for (let b = 0; b < w; b++) {
        owner[addr + b] = key;
        storeOp[addr + b] = op;
      }
      return outside;
    }
    for (let b = 0; b < w; b++) {
      const o = owner[addr + b] as number;
      if (o === key) continue;
      this.reportAt(o === NONE ? 'uninitialized' : 'clobber', step, op, false, addr + b, w - b, id, o);
      return true;
    }
    return outside;
  }

  private keep(op: number, log: Int32Array, count: number): void {
    if ((this.recN + count) * 4 > this.rec.length) {
      const next = new Int32Array(Math.max(1024, 2 * (this.recN + count) * 4));
      next.set(this.rec.subarray(0, this.recN * 4));
      this.rec = next;
    }
    for (let i = 0; i < count; i++) {
      const j = 4 * (this.recN + i);
      this.rec[j] = this.step + i;
      this.rec[j + 1] = op;
      this.rec[j + 2] = log[2 * i] as number;
      this.rec[j + 3] = log[2 * i + 1] as number;
    }
    this.recN += count;
  }

  private reportAt(kind: TraceViolationKind, step: number, op: number, isStore: boolean, addr: number, w: number, id: number, ownerKey: number | null): void {
    const savedStep = this.step;
    this.step = step;
    this.report(kind, op, isStore ? 'store' : 'load', addr, w, id, ownerKey, null);
    this.step = savedStep;
  }

  private report(kind: TraceViolationKind, op: number, access: 'load' | 'store', addr: number, w: number, id: number, ownerKey: number | null, note: string | null): void {
    this.counts[kind]++;
    const owner = ownerKey === null || ownerKey === NONE ? null : ownerKey >= 0 ? ownerKey : -(((-ownerKey - 1) % SCRATCH_SLOTS) + 1);
    const ownerOp = owner === null ? null : (this.storeOp[addr] ?? null);
    const slot = (KIND_CODE[kind] + 31 * op + 131 * id + 521 * (owner ?? -7) + 1031 * (ownerOp ?? -3)) & (RECENT_SLOTS - 1);
    const r = this.recent[slot];
    if (r !== undefined && r.kind === kind && r.op === op && r.id === id && r.owner === owner && r.ownerOp === ownerOp) {
      r.found.n++;
      return;
    }
    const sig = `${kind}|${op}|${id}|${owner}|${ownerOp}`;
    const prev = this.found.get(sig);
    if (prev) {
      prev.n++;
      this.recent[slot] = { kind, op, id, owner, ownerOp, found: prev };
      return;
    }
    const opKind = this.graph.ops[op]?.kind ?? '?';
    const where = `op ${op} (${opKind}), step ${this.step}: ${access} of ${w} B at ${addr} by ${this.bufferName(id, op)}`;
    const range = id >= 0 ? `[${this.tLo[id] ?? 0}, ${this.tHi[id] ?? 0})` : `[${this.sLo[-id - 1] ?? 0}, ${this.sHi[-id - 1] ?? 0})`;
    const ownerOpText = ownerOp === -1 ? 'the graph inputs' : `op ${ownerOp} (${this.graph.ops[ownerOp ?? 0]?.kind ?? '?'})`;
    const detail: Record<TraceViolationKind, string> = {
      clobber: `byte last stored by ${owner === null ? '?' : this.bufferName(owner, ownerOp ?? op)} in ${ownerOpText}`,
      uninitialized: 'byte never written',
      'out-of-arena': `outside the arena [0, ${this.arenaBytes})`,
      'out-of-tensor': `outside the buffer's planned range ${range}`,
    };
    const message = `${kind}: ${note ? `${note}: ` : ''}${where}: ${detail[kind]}`;
    const found: Found = {
      v: { kind, step: this.step, opIndex: op, opKind, access, address: addr, width: w, buffer: id, owner, ownerOp, occurrences: 1, message },
      n: 1,
    };
    this.found.set(sig, found);
    this.recent[slot] = { kind, op, id, owner, ownerOp, found };
  }

  private tensorName(t: number): string {
    return `tensor ${t} '${this.graph.tensors[t]?.name ?? '?'}'`;
  }

  private bufferName(id: number, op: number): string {
    return id >= 0 ? this.tensorName(id) : `scratch ${-id - 1} of op ${op}`;
  }
}
