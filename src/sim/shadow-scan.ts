// The tracer's shadow memory in a WebAssembly memory, and its event check as one small hand-written
// WebAssembly function (tracer.ts). A traced run of a mobilenet makes ~60 million events; checking
// them in JavaScript cost ~10 ns each, 70% of the traced run. The function does what the tracer's
// check does for an event that breaks no rule (a store sets the bytes' owner and storing op, a load
// finds its own buffer as owner) and stops at the first event that breaks one, or that it cannot
// place (a buffer id without a range): the tracer checks that event in JavaScript, which reports
// it, and calls the function again from the next.
import { InternalError } from '../ir/index.ts';
import type { ReservedSpace, ValType } from '../kernels/index.ts';
import { encodeModule, OP, sleb, uleb, wasmApi } from '../kernels/index.ts';

/** Events of the chunk the tracer copies into the shadow memory for one call, when the log is not in that memory. */
export const SCAN_LOG_EVENTS = 8192;
/** Scratch buffers of one op the function places (SCRATCH_SLOTS of tracer.ts); more take the JS check. */
export const SCAN_SCRATCH = 64;
/** Largest memory made (1 GiB): shadow memory is 8 bytes per arena byte; past it, the JS check. */
const MAX_BYTES = 2 ** 30;
const PAGE = 65536;

/**
 * `scan(from, count, op, scratchBase, nScratch, log)`: the index of the first event of the log at
 * byte address `log` (default: the copied chunk, `log` of WasmShadow) in [from, count) that the JS
 * check must see, or `count`.
 */
export type ScanFn = (from: number, count: number, op: number, scratchBase: number, nScratch: number, log?: number) => number;

/** Shadow memory and log views over one WebAssembly memory, and the check over them. */
export interface WasmShadow {
  readonly owner: Int32Array;
  readonly storeOp: Int32Array;
  readonly tLo: Int32Array;
  readonly tHi: Int32Array;
  /** This op's scratch ranges (the first SCAN_SCRATCH). */
  readonly sLo: Int32Array;
  readonly sHi: Int32Array;
  /** SCAN_LOG_EVENTS events, two words each (header, address), as a traced kernel logs them. */
  readonly log: Int32Array;
  /** The byte address of `log` when it is a view of this memory (the check reads it in place), else null. */
  readonly logAddress: (log: Int32Array) => number | null;
  readonly scan: ScanFn;
}

// Parameters of the exported function, then its locals (all i32). The last event's header and what
// it decoded to are kept: most events repeat the header before them (a kernel loops over one
// buffer), and for those the check is one range compare and the owner words.
// Addresses: `owner` is where the owner array starts (an arena byte's owner word is at owner + 4 *
// its address), `storeOp` the storing-op array's distance from it; tLo, tHi, sLo, sHi and `log` are
// byte addresses.
const P = { from: 0, count: 1, op: 2, scratchBase: 3, nScratch: 4, arena: 5, nTensors: 6, storeOp: 7, tLo: 8, tHi: 9, sLo: 10, sHi: 11, log: 12, owner: 13 } as const;
const L = {
  h: 14, addr: 15, w: 16, id: 17, lo: 18, hi: 19, p: 20, end: 21, q: 22,
  // The decoded header (set only once a header decodes whole): owner key, first address, count.
  lastH: 23, key: 24, first: 25, len: 26, w4: 27, store: 28,
  // The same while a new header decodes.
  newKey: 29, newFirst: 30,
  // The last one-byte load header that decoded whole, with its key, first address and count: most
  // events are such loads of one buffer (an int8 kernel's input), between other headers (its stores).
  fastH: 31, fastKey: 32, fastFirst: 33, fastLen: 34,
} as const;
const PARAMS = 14;
const LOCALS = 21;

/**
 * The function's body: the tracer's check (tracer.ts) of one event after another; an arena byte's
 * owner word is at `owner` + 4 * its address. An event passes when its width
 * is 1-7, its buffer has a range here, and its bytes lie inside both the arena and that range: its
 * address is in [first, first + len) with first = max(0, lo) and first + len - 1 = min(arena, hi) - w.
 * Decoded per new header (the cache starts empty: len 0 sends every event to the JS check until a
 * header decodes).
 */
function scanCode(): number[] {
  const c: number[] = [];
  const op = (...names: (keyof typeof OP)[]): void => {
    for (const n of names) c.push(OP[n]);
  };
  const get = (i: number): void => {
    c.push(OP['local.get']);
    uleb(c, i);
  };
  const set = (i: number): void => {
    c.push(OP['local.set']);
    uleb(c, i);
  };
  const tee = (i: number): void => {
    c.push(OP['local.tee']);
    uleb(c, i);
  };
  const k = (v: number): void => {
    c.push(OP['i32.const']);
    sleb(c, v);
  };
  const mem = (name: 'i32.load' | 'i32.store', offset = 0): void => {
    c.push(OP[name], 2);
    uleb(c, offset);
  };
  /** `if (cond) return from;` with the condition on the stack. */
  const bailIf = (): void => {
    c.push(OP.if, 0x40);
    get(P.from);
    c.push(OP.return);
    op('end');
  };
  /** lo, hi from the range arrays at `loBase`, `hiBase` at index local `p`. */
  const range = (loBase: number, hiBase: number): void => {
    get(L.p);
    k(2);
    op('i32.shl');
    set(L.p);
    get(loBase);
    get(L.p);
    op('i32.add');
    mem('i32.load');
    set(L.lo);
    get(hiBase);
    get(L.p);
    op('i32.add');
    mem('i32.load');
    set(L.hi);
  };
  /** `x = a > b ? a : b` or the smaller, of two locals. */
  const pick = (x: number, a: number, b: number, larger: boolean): void => {
    get(a);
    get(b);
    get(a);
    get(b);
    op(larger ? 'i32.gt_s' : 'i32.lt_s');
    op('select');
    set(x);
  };
  /** `do { body; p += 4 } while (p < end)`: once per byte of the event. */
  const perByte = (body: () => void): void => {
    c.push(OP.loop, 0x40);
    body();
    get(L.p);
    k(4);
    op('i32.add');
    tee(L.p);
    get(L.end);
    op('i32.lt_s');
    c.push(OP.br_if, 0);
    op('end');
  };

  c.push(OP.loop, 0x40);
  // Past the last event: return count.
  get(P.from);
  get(P.count);
  op('i32.ge_s');
  c.push(OP.if, 0x40);
  get(P.count);
  c.push(OP.return);
  op('end');
  // h, addr of event `from`.
  get(P.log);
  get(P.from);
  k(3);
  op('i32.shl');
  op('i32.add');
  tee(L.p);
  mem('i32.load');
  set(L.h);
  get(L.p);
  mem('i32.load', 4);
  set(L.addr);
  // The fast path: a one-byte load with the last such header, inside its range, of a byte its
  // buffer owns, passes; anything else takes the whole check below (fastLen is 0 until a header
  // decodes, so no event passes here before).
  get(L.h);
  get(L.fastH);
  op('i32.eq');
  c.push(OP.if, 0x40);
  get(L.addr);
  get(L.fastFirst);
  op('i32.sub');
  get(L.fastLen);
  op('i32.lt_u');
  c.push(OP.if, 0x40);
  get(L.addr);
  k(2);
  op('i32.shl');
  get(P.owner);
  op('i32.add');
  mem('i32.load');
  get(L.fastKey);
  op('i32.eq');
  c.push(OP.if, 0x40);
  get(P.from);
  k(1);
  op('i32.add');
  set(P.from);
  c.push(OP.br, 3);
  op('end');
  op('end');
  op('end');
  // A new header: decode it (w = h & 7, zero goes to the JS check; id = h >> 4), find the buffer's
  // range and owner key (tensor id, or scratch k = -id - 1 with key scratchBase - k) and the
  // addresses that pass; any of these missing goes to the JS check, which reports.
  get(L.h);
  get(L.lastH);
  op('i32.ne');
  c.push(OP.if, 0x40);
  get(L.h);
  k(7);
  op('i32.and');
  tee(L.w);
  op('i32.eqz');
  bailIf();
  get(L.h);
  k(4);
  op('i32.shr_s');
  set(L.id);
  get(L.id);
  k(0);
  op('i32.ge_s');
  c.push(OP.if, 0x40);
  get(L.id);
  get(P.nTensors);
  op('i32.ge_s');
  bailIf();
  get(L.id);
  set(L.newKey);
  get(L.id);
  set(L.p);
  range(P.tLo, P.tHi);
  op('else');
  k(-1);
  get(L.id);
  op('i32.sub');
  tee(L.p);
  get(P.nScratch);
  op('i32.ge_s');
  bailIf();
  get(P.scratchBase);
  get(L.p);
  op('i32.sub');
  set(L.newKey);
  range(P.sLo, P.sHi);
  op('end');
  // first = max(0, lo); last = min(arena, hi) - w (kept in hi); none when last < first.
  k(0);
  set(L.newFirst);
  pick(L.newFirst, L.lo, L.newFirst, true);
  pick(L.hi, L.hi, P.arena, false);
  get(L.hi);
  get(L.w);
  op('i32.sub');
  tee(L.hi);
  get(L.newFirst);
  op('i32.lt_s');
  bailIf();
  // Decoded whole: it becomes the kept header.
  get(L.hi);
  get(L.newFirst);
  op('i32.sub');
  k(1);
  op('i32.add');
  set(L.len);
  get(L.newFirst);
  set(L.first);
  get(L.newKey);
  set(L.key);
  get(L.w);
  k(2);
  op('i32.shl');
  set(L.w4);
  get(L.h);
  k(8);
  op('i32.and');
  set(L.store);
  get(L.h);
  set(L.lastH);
  get(L.h);
  k(15);
  op('i32.and');
  k(1);
  op('i32.eq');
  c.push(OP.if, 0x40);
  get(L.h);
  set(L.fastH);
  get(L.key);
  set(L.fastKey);
  get(L.first);
  set(L.fastFirst);
  get(L.len);
  set(L.fastLen);
  op('end');
  op('end');
  // Outside the arena or the buffer: (addr - first) >= len, unsigned.
  get(L.addr);
  get(L.first);
  op('i32.sub');
  get(L.len);
  op('i32.ge_u');
  bailIf();
  // p .. end: the owner words of the event's bytes.
  get(L.addr);
  k(2);
  op('i32.shl');
  get(P.owner);
  op('i32.add');
  tee(L.p);
  get(L.w4);
  op('i32.add');
  set(L.end);
  get(L.store);
  c.push(OP.if, 0x40);
  // Store: each byte's owner is the key, its storing op this op (at q, storeOp's word of p).
  get(P.storeOp);
  get(L.p);
  op('i32.add');
  set(L.q);
  perByte(() => {
    get(L.p);
    get(L.key);
    mem('i32.store');
    get(L.q);
    get(P.op);
    mem('i32.store');
    get(L.q);
    k(4);
    op('i32.add');
    set(L.q);
  });
  op('else');
  // Load: each byte's owner must be the key.
  perByte(() => {
    get(L.p);
    mem('i32.load');
    get(L.key);
    op('i32.ne');
    bailIf();
  });
  op('end');
  get(P.from);
  k(1);
  op('i32.add');
  set(P.from);
  c.push(OP.br, 0);
  op('end');
  get(P.count);
  return c;
}

let compiled: object | null = null;

/** The check's module, encoded and compiled once per thread. */
function scanModule(): object {
  compiled ??= new wasmApi.Module(encodeModule({
    importFuncs: [],
    memory: { module: 'm', field: 'mem', minPages: 1 },
    funcs: [{
      type: { params: Array<ValType>(PARAMS).fill('i32'), results: ['i32'] },
      locals: Array<ValType>(LOCALS).fill('i32'),
      code: scanCode(),
      export: 'scan',
    }],
  }));
  return compiled;
}

/** Bytes of the shadow memory of an arena of `arenaBytes` and `tensors` tensors (makeWasmShadow's layout). */
export function shadowBytes(arenaBytes: number, tensors: number): number {
  return 8 * arenaBytes + 8 * tensors + 8 * SCAN_SCRATCH + 8 * SCAN_LOG_EVENTS;
}

/** Whether a shadow memory of `bytes` is made (else the tracer checks in JS, in JS arrays). */
export const shadowFits = (bytes: number): boolean => bytes <= MAX_BYTES;

/**
 * Shadow memory for an arena of `arenaBytes` and `tensors` tensors, with the WebAssembly check over
 * it; null when it would pass MAX_BYTES (the tracer then keeps JS arrays and checks in JS).
 * Layout from its start: owner and storing op (one word per arena byte each), the tensors' [lo, hi),
 * the current op's scratch [lo, hi), the log chunk. In a memory of its own, or in `space` (the
 * traced kernels' memory, kernels/wasm-kernels.ts): then the check reads their log where they
 * wrote it, with no copy.
 */
export function makeWasmShadow(arenaBytes: number, tensors: number, space?: ReservedSpace): WasmShadow | null {
  const bytes = shadowBytes(arenaBytes, tensors);
  if (!shadowFits(bytes)) return null;
  if (space !== undefined && space.bytes < bytes) throw new InternalError(`shadow memory needs ${bytes} B, ${space.bytes} B reserved`);
  const memory = space?.memory ?? new wasmApi.Memory({ initial: Math.ceil(bytes / PAGE), maximum: Math.ceil(bytes / PAGE) });
  const ownerAt = space?.at ?? 0;
  const storeOpAt = ownerAt + 4 * arenaBytes;
  const tLoAt = ownerAt + 8 * arenaBytes;
  const tHiAt = tLoAt + 4 * tensors;
  const sLoAt = tHiAt + 4 * tensors;
  const sHiAt = sLoAt + 4 * SCAN_SCRATCH;
  const logAt = sHiAt + 4 * SCAN_SCRATCH;
  const buffer = memory.buffer;
  const fn = new wasmApi.Instance(scanModule(), { m: { mem: memory } }).exports['scan'] as (...a: number[]) => number;
  return {
    owner: new Int32Array(buffer, ownerAt, arenaBytes),
    storeOp: new Int32Array(buffer, storeOpAt, arenaBytes),
    tLo: new Int32Array(buffer, tLoAt, tensors),
    tHi: new Int32Array(buffer, tHiAt, tensors),
    sLo: new Int32Array(buffer, sLoAt, SCAN_SCRATCH),
    sHi: new Int32Array(buffer, sHiAt, SCAN_SCRATCH),
    log: new Int32Array(buffer, logAt, 2 * SCAN_LOG_EVENTS),
    logAddress: (log) => (log.buffer === buffer ? log.byteOffset : null),
    scan: (from, count, op, scratchBase, nScratch, at = logAt) => fn(from, count, op, scratchBase, nScratch, arenaBytes, tensors, storeOpAt - ownerAt, tLoAt, tHiAt, sLoAt, sHiAt, at, ownerAt),
  };
}
