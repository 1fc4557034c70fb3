// The WebAssembly kernels of one runtime: one WebAssembly.Memory holds the arena at address 0 (so
// event addresses are arena addresses, as in JS), the trace log, the constant tensors and arrays
// the kernels read, and each kernel's passed-in values; each instance's lowering (lower-wasm.ts) is
// compiled once per process and structure. WasmLowerings records a model's lowerings and compiled
// modules so another thread can open the same model without lowering or compiling again
// (`verify --jobs`): lowering is cold JS (it runs once per op), V8 compiles cold code on background
// threads, and two threads lowering at once on two cores each took 1.6-1.8x as long as one alone.
import { InternalError } from '../ir/index.ts';
import type { KernelInstance } from './instance.ts';
import { elementBytes } from './instance.ts';
import type { CompiledKernel, TraceSink } from './lower-js.ts';
import { rethrowKernelErrors, traceHeader } from './lower-js.ts';
import type { LoweredWasm, Slot } from './lower-wasm.ts';
import { cachedLowering, LOG_BYTES, loweringKey, lowerWasmCached, WasmUnsupported } from './lower-wasm.ts';
import { primitiveFunctions } from './primitives.ts';
import { ensureWasmTier } from './wasm-tier.ts';

// Kernel modules compile with the optimizing tier up front unless this process chose otherwise
// (wasm-tier.ts says why).
ensureWasmTier();

/** The part of the WebAssembly JS API used here (the project's TS lib has no DOM types). */
export interface WasmApi {
  readonly Module: new (bytes: Uint8Array) => WasmModule;
  readonly Instance: new (m: WasmModule, imports: object) => { readonly exports: Readonly<Record<string, unknown>> };
  readonly Memory: new (d: { readonly initial: number; readonly maximum: number }) => WasmMemory;
}
/** A WebAssembly.Memory (never grown here: its buffer stays the same object). */
export interface WasmMemory {
  readonly buffer: ArrayBuffer;
}
/** A compiled module (opaque). */
export type WasmModule = object;
const WASM = (globalThis as unknown as { readonly WebAssembly: WasmApi }).WebAssembly;
/** The WebAssembly API, typed (for the tracer's shadow-memory check, sim/shadow-scan.ts). */
export const wasmApi: WasmApi = WASM;

/** Compiled modules by bytes: instances of one structure share the module V8 compiled. */
const MODULES = new Map<string, WasmModule>();
const MAX_MODULES = 4096;

function moduleFor(l: LoweredWasm): WasmModule {
  let m = MODULES.get(l.key);
  if (m === undefined) {
    if (MODULES.size >= MAX_MODULES) MODULES.clear();
    m = new WASM.Module(l.bytes);
    MODULES.set(l.key, m);
  }
  return m;
}

let primFns: Readonly<Record<string, (...a: number[]) => number>> | null = null;

/** The sink of the traced wasm run in progress. */
let activeSink: TraceSink = () => undefined;

const align16 = (n: number): number => Math.ceil(n / 16) * 16;
const PAGE = 65536;

/** The kernels of one runtime on WebAssembly: its memory (arena first) and a kernel per instance
 * (null where the lowering does not apply; the caller compiles those with the JS lowering over
 * the same buffer). */
export interface WasmKernels {
  /** Linear memory's buffer: the arena is its first `arenaBytes` bytes. */
  readonly buffer: ArrayBuffer;
  readonly kernels: readonly (CompiledKernel | null)[];
  /** The `reserveBytes` asked for, at the end of the memory (null when none were). */
  readonly reserved: ReservedSpace | null;
}

/** Bytes of a kernel memory left to another user (the tracer's shadow memory, sim/shadow-scan.ts). */
export interface ReservedSpace {
  readonly memory: WasmMemory;
  /** Byte address of the space (16-byte aligned). */
  readonly at: number;
  readonly bytes: number;
}

/** Upper bound on the passed-in values of an instance's traced code, from its fast code: traced
 * code passes the fast code's values, the log address and the op index, one header per buffer
 * loaded and per buffer stored, and evaluates each index once more (for its event's address). */
function tracedSlotBound(inst: KernelInstance, fast: LoweredWasm): number {
  return 2 * fast.slots.length + 2 + 2 * Object.keys(inst.buffers).length;
}

/**
 * Lower every instance's fast code, lay out one memory (arena, trace log, constants and arrays
 * shared by identity, each instance's passed-in values, room for its traced code's values, then
 * `reserveBytes` for another user) and compile. Traced code is lowered and compiled on an op's
 * first traced run. `arenaBytes` is the planned arena; event addresses are arena addresses.
 * `lower`: lowerWasmCached, or a WasmLowerings' lower.
 */
export function compileWasmKernels(instances: readonly KernelInstance[], arenaBytes: number, lower: WasmLowering = lowerWasmCached, reserveBytes = 0): WasmKernels {
  const lowered = instances.map((inst) => {
    try {
      return lower(inst, 'fast');
    } catch (e) {
      if (e instanceof WasmUnsupported) return null;
      throw e;
    }
  });
  let top = align16(Math.max(8, arenaBytes));
  const logBase = top;
  top += LOG_BYTES;
  const place = new Map<object, number>();
  const placements: { readonly at: number; readonly bytes: Uint8Array }[] = [];
  const placeBytes = (key: object, bytes: Uint8Array): number => {
    let at = place.get(key);
    if (at === undefined) {
      at = top;
      place.set(key, at);
      placements.push({ at, bytes });
      top = align16(top + bytes.byteLength + 8);
    }
    return at;
  };
  /** A slot's value; `placed`: constants and arrays must already be in memory (lazy traced code). */
  const resolve = (inst: KernelInstance, s: Slot, placed = false): number => {
    if (s.k === 'value') return s.v;
    if (s.k === 'log') return logBase;
    if (s.k === 'op') return inst.opIndex;
    if (s.k === 'offset' || s.k === 'header') {
      const b = inst.buffers[s.name];
      if (b === undefined || b.offsetBytes === null) throw new InternalError(`op ${inst.opIndex}: no arena buffer ${s.name}`);
      return s.k === 'offset' ? b.offsetBytes : traceHeader(s.access, elementBytes(b.dtype), b.id);
    }
    const bytes = s.k === 'array' ? inst.arrays[s.name] : inst.buffers[s.name]?.data;
    if (bytes === null || bytes === undefined) throw new InternalError(`no ${s.k} data for ${s.name}`);
    const at = placed ? place.get(bytes) : placeBytes(bytes, new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    if (at === undefined) throw new InternalError(`${s.k} ${s.name} of op ${inst.opIndex} is read only by its traced code`);
    return at;
  };
  const values: { at: number; v: number }[] = [];
  const kAt = lowered.map((l, i) => {
    if (l === null) return { fast: 0, traced: 0 };
    const inst = instances[i] as KernelInstance;
    const vs = l.slots.map((x) => resolve(inst, x));
    const fast = top;
    vs.forEach((v, j) => values.push({ at: fast + 4 * j, v }));
    const traced = align16(fast + 4 * vs.length);
    top = align16(traced + 4 * tracedSlotBound(inst, l));
    return { fast, traced };
  });
  const reservedAt = align16(top);
  top = reservedAt + reserveBytes;
  const pages = Math.ceil(top / PAGE);
  const memory = new WASM.Memory({ initial: pages, maximum: pages });
  const buffer = memory.buffer;
  const u8 = new Uint8Array(buffer);
  for (const p of placements) u8.set(p.bytes, p.at);
  const i32 = new Int32Array(buffer);
  for (const { at, v } of values) i32[at >> 2] = v;
  const logView = new Int32Array(buffer, logBase, LOG_BYTES >> 2);
  primFns ??= primitiveFunctions();
  const imports = { m: { mem: memory, flush: (opIndex: number, count: number) => activeSink(opIndex, logView, count) }, p: primFns };
  const instancesByModule = new Map<WasmModule, (k: number) => void>();
  const runOf = (l: LoweredWasm): ((k: number) => void) => {
    const m = moduleFor(l);
    let run = instancesByModule.get(m);
    if (run === undefined) {
      run = new WASM.Instance(m, imports).exports['run'] as (k: number) => void;
      instancesByModule.set(m, run);
    }
    return run;
  };
  const tracedRun = (inst: KernelInstance, fast: LoweredWasm, at: number): ((k: number) => void) => {
    const l = lower(inst, 'traced');
    if (l.slots.length > tracedSlotBound(inst, fast)) throw new InternalError(`traced code of op ${inst.opIndex} passes ${l.slots.length} values, more than the bound`);
    l.slots.forEach((x, j) => (i32[(at >> 2) + j] = resolve(inst, x, true)));
    return runOf(l);
  };
  const kernels = lowered.map((l, i): CompiledKernel | null => {
    if (l === null) return null;
    const inst = instances[i] as KernelInstance;
    const at = kAt[i] as { fast: number; traced: number };
    const fast = runOf(l);
    let traced: ((k: number) => void) | null = null;
    return {
      run: () => rethrowKernelErrors(() => fast(at.fast)),
      runTraced: (sink) => {
        traced ??= tracedRun(inst, l, at.traced);
        const t = traced;
        const outer = activeSink;
        activeSink = sink;
        try {
          rethrowKernelErrors(() => t(at.traced));
        } finally {
          activeSink = outer;
        }
      },
    };
  });
  return { buffer, kernels, reserved: reserveBytes > 0 ? { memory, at: reservedAt, bytes: reserveBytes } : null };
}

/** How a runtime gets an instance's lowering: lowerWasmCached, or through a WasmLowerings. */
export type WasmLowering = (inst: KernelInstance, mode: 'fast' | 'traced') => LoweredWasm;

/** One lowering as another thread receives it (structured-cloneable; a module is shared, not copied). */
export interface SharedWasmLowering {
  /** Its loweringKey: what the lowering is a function of. */
  readonly key: string;
  /** Null: instances of this key have no WebAssembly lowering (this message says why). */
  readonly lowered: LoweredWasm | null;
  readonly unsupported: string;
  readonly module: WasmModule | null;
}

/**
 * The lowerings a model's runtimes used, by loweringKey: `lower` is lowerWasmCached and records
 * what it returns or refuses (or returns the record it was given); `share` hands the records and their
 * compiled modules to another thread, whose WasmLowerings then lowers and compiles nothing for the
 * same model. Each `share` hands over the records made since the last one (the receiver `add`s
 * them), so a thread can get the fast code first and the traced code when it is lowered; a
 * receiver made with `fetch` calls it when a key is missing (it `add`s the next batch, waiting for
 * it if need be, and returns false once there are no more) before lowering the key itself. A
 * record is found by the instance's whole key, so it never applies to an instance of another
 * structure.
 */
export class WasmLowerings {
  private readonly records = new Map<string, SharedWasmLowering>();
  /** Keys of the records handed over by `share` or received by `add`. */
  private readonly handedOver = new Set<string>();

  constructor(shared: readonly SharedWasmLowering[] = [], private readonly fetch: () => boolean = () => false) {
    this.add(shared);
  }

  /** Take records another thread's `share` handed over (a key already recorded keeps its record). */
  add(shared: readonly SharedWasmLowering[]): void {
    for (const r of shared) {
      this.handedOver.add(r.key);
      if (this.records.has(r.key)) continue;
      this.records.set(r.key, { ...r, module: null });
      if (r.lowered !== null && r.module !== null && !MODULES.has(r.lowered.key)) MODULES.set(r.lowered.key, r.module);
    }
  }

  readonly lower: WasmLowering = (inst, mode) => {
    const key = loweringKey(inst, mode);
    let r = this.records.get(key);
    while (r === undefined && this.fetch()) r = this.records.get(key);
    if (r === undefined) {
      const l = cachedLowering(inst, mode, key);
      r = typeof l === 'string' ? { key, lowered: null, unsupported: l, module: null } : { key, lowered: l, unsupported: '', module: null };
      this.records.set(key, r);
    }
    if (r.lowered === null) throw new WasmUnsupported(r.unsupported);
    return r.lowered;
  };

  /** Lower the traced code of every instance whose fast code is on WebAssembly (a runtime lowers
   * it on the op's first traced run), so `share` includes it. */
  lowerTraced(instances: readonly KernelInstance[]): void {
    for (const inst of instances) if (this.records.get(loweringKey(inst, 'fast'))?.lowered) this.lower(inst, 'traced');
  }

  /** The records made since the last `share` (not those `add`ed), with their compiled modules. */
  share(): SharedWasmLowering[] {
    const fresh = [...this.records.values()].filter((r) => !this.handedOver.has(r.key));
    for (const r of fresh) this.handedOver.add(r.key);
    return fresh.map((r) => ({ ...r, module: r.lowered === null ? null : moduleFor(r.lowered) }));
  }
}
