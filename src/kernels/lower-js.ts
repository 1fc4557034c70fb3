// Lowers a kernel instance to JS source and compiles it with `new Function`, in four modes read
// from the same nest: `fast` (run), `traced` (run + every arena load/store appended to an Int32Array
// event log, flushed to a sink), `addr` (no values at all, the same event sequence, or folded into
// the safe-overlap reduction of overlapWalk), `cost` (counts MACs, bytes and primitive calls).
// Flags and the values params take decide the code's structure (which loops, branches and terms
// remain, which loops unroll); the param values themselves, the buffer offsets, trace headers and
// op index are passed in (`$K`, read into locals), so ops that differ only in those share one
// compiled function: V8 compiles and warms it once per process, not once per op (what makes a
// model's first run close to its steady run). Arrays and constant tensors are closure constants;
// arena tensors are read through whole-arena views.
import { createHash } from 'node:crypto';
import { InternalError, KernelError } from '../ir/index.ts';
import type { BufferBinding, KernelInstance } from './instance.ts';
import { checkNest, elementBytes, foldNest } from './instance.ts';
import type { Expr, Nest, Stmt } from './nest.ts';
import { callsOf, namesOf, readsOf } from './nest.ts';
import { primitiveClosure } from './primitives.ts';

export type JsMode = 'fast' | 'traced' | 'addr' | 'cost';

/** Whole-arena typed views; the buffer's byteLength must be a multiple of 8. */
export interface ArenaViews {
  readonly i8: Int8Array;
  readonly u8: Uint8Array;
  readonly i16: Int16Array;
  readonly i32: Int32Array;
  readonly f32: Float32Array;
  readonly dv: DataView;
}

export function makeArenaViews(buffer: ArrayBuffer): ArenaViews {
  if (buffer.byteLength % 8 !== 0) throw new InternalError('arena buffer length must be a multiple of 8');
  return {
    i8: new Int8Array(buffer),
    u8: new Uint8Array(buffer),
    i16: new Int16Array(buffer),
    i32: new Int32Array(buffer),
    f32: new Float32Array(buffer),
    dv: new DataView(buffer),
  };
}

// ------------------------------------------------------------------ trace events

/** Int32 words per event in a trace log: [header, byteAddress]. */
export const TRACE_WORDS_PER_EVENT = 2;
/** Events per flush of the traced executor's log. */
export const TRACE_LOG_EVENTS = 8192;

export interface TraceEvent {
  readonly kind: 'load' | 'store';
  readonly address: number;
  readonly widthBytes: number;
  /** Tensor index, or -(k+1) for scratch buffer k. */
  readonly bufferId: number;
}

/** Receives `count` events (2 words each) of op `opIndex`; `log` is reused after the call. */
export type TraceSink = (opIndex: number, log: Int32Array, count: number) => void;

export function traceHeader(kind: 'load' | 'store', widthBytes: number, bufferId: number): number {
  return (bufferId << 4) | (kind === 'store' ? 8 : 0) | widthBytes;
}

export function decodeTraceEvent(log: Int32Array, i: number): TraceEvent {
  const h = log[2 * i] ?? 0;
  return { kind: h & 8 ? 'store' : 'load', address: log[2 * i + 1] ?? 0, widthBytes: h & 7, bufferId: h >> 4 };
}

// ------------------------------------------------------------------ code generation

export interface CostCounts {
  readonly macs: number;
  readonly arenaLoadBytes: number;
  readonly arenaStoreBytes: number;
  readonly constLoadBytes: number;
  /** Bytes loaded from the storage device's mapped region (TinySeg fetches). */
  readonly storageLoadBytes: number;
  readonly primitiveCalls: Readonly<Record<string, number>>;
}

const BIN_JS: Readonly<Record<string, string>> = { '<': '<', '<=': '<=', '>': '>', '>=': '>=', '==': '===', '!=': '!==', '&&': '&&', '||': '||' };

/** What the unroll and trace-event rules read of a lowering (JS or WebAssembly). */
export interface LoweringMode {
  readonly inst: KernelInstance;
  readonly mode: JsMode;
}

interface Gen extends LoweringMode {
  /** Shared code: param-derived values are passed in; otherwise they are inlined as literals. */
  readonly shared: boolean;
  /** Values passed in: slot i is the local `k<i>`. */
  readonly lits: number[];
  /** Slots of named values (a buffer's offset, a trace header), one per name. */
  readonly named: Map<string, string>;
  readonly prims: Set<string>;
  /** Primitives counted in cost mode. */
  readonly counted: Set<string>;
  tmp: number;
  /** While rendering copy k of a fused unrolled body: loop variable `v` stands for `v + k`. */
  shift: { readonly v: string; readonly k: number } | null;
  /** Traced/addr code: inside a block whose log capacity was already checked (nest). */
  covered: boolean;
  /** Address walk folding its events into a diagonal reduction (overlapWalk) instead of a log. */
  readonly diagonal: DiagonalPair | null;
}

/** A value passed in (a param-derived int32): its local's name. Other numbers stay literals. */
function lit(g: Gen, v: number, key?: string): string {
  if (!g.shared || (v | 0) !== v) return v < 0 ? `(${v})` : String(v);
  const known = key === undefined ? undefined : g.named.get(key);
  if (known !== undefined) return known;
  const local = `k${g.lits.length}`;
  g.lits.push(v);
  if (key !== undefined) g.named.set(key, local);
  return local;
}

/**
 * A folded bound or index number: passed in when param-derived. Fast code: one slot per occurrence.
 * Traced and address-walk code: one slot per distinct value, so an event's address and the access
 * beside it read the same and V8 computes them once (the first verify seed of mobilenet-v2-0.35
 * ran 20% faster). Not in fast code: slots shared by equal values make the source depend on which
 * values happen to be equal, and person_detect then needed 15 distinct sources instead of 8 (its
 * first run took half again as long).
 */
function numText(g: Gen, e: { readonly v: number; readonly p?: true }): string {
  if (e.p === true) return lit(g, e.v, g.mode === 'fast' ? undefined : `num:${e.v}`);
  return e.v < 0 ? `(${e.v})` : String(e.v);
}

/** `plus` (fast fused bodies): element `idx + plus`, written left-associated so `off + idx` is
 * shared by the unrolled copies. */
function viewAccess(g: Gen, b: BufferBinding, name: string, idx: string, plus = 0): { get: string; set: (v: string) => string; addr: string } {
  const w = elementBytes(b.dtype);
  const tail = plus === 0 ? '' : ` + ${plus}`;
  if (b.offsetBytes === null) {
    return { get: `c_${name}[${idx}${tail}]`, set: () => { throw new InternalError(`store to constant ${name}`); }, addr: '0' };
  }
  const off = b.offsetBytes;
  // Storage-region buffers read the device's mapped image through the S-prefixed views.
  const r = b.region === 'storage' ? 'S' : '';
  const eidx = plus === 0 ? idx : `(${idx}${tail})`;
  const offText = lit(g, off, `off:${name}`);
  const addr = w === 1 ? `(${offText} + ${eidx})` : `(${offText} + ${eidx} * ${w})`;
  const typed = (view: string): { get: string; set: (v: string) => string; addr: string } => {
    const el = `${r}${view}[${w === 1 ? offText : lit(g, off / w, `elt:${name}`)} + ${idx}${tail}]`;
    return { get: el, set: (v) => `${el} = ${v};`, addr };
  };
  const dv = (t: string): { get: string; set: (v: string) => string; addr: string } => ({
    get: `${r}DV.get${t}(${addr}, true)`,
    set: (v) => `${r}DV.set${t}(${addr}, ${v}, true);`,
    addr,
  });
  switch (b.dtype) {
    case 'int8':
    case 'bool':
      return typed('I8');
    case 'uint8':
      return typed('U8');
    case 'int16':
      return off % 2 === 0 ? typed('I16') : dv('Int16');
    case 'int32':
      return off % 4 === 0 ? typed('I32') : dv('Int32');
    case 'float32':
      return off % 4 === 0 ? typed('F32') : dv('Float32');
    default:
      throw new InternalError(`no arena view for dtype ${b.dtype}`);
  }
}

function expr(g: Gen, e: Expr, ix = false): string {
  switch (e.k) {
    case 'num':
      return numText(g, e);
    case 'name':
      return g.shift !== null && g.shift.k !== 0 && e.name === g.shift.v ? `(v_${e.name} + ${g.shift.k})` : `v_${e.name}`;
    case 'neg':
      return ix ? `(-${expr(g, e.a, ix)})` : `(-${expr(g, e.a)} | 0)`;
    case 'not':
      return `(!${expr(g, e.a)})`;
    case 'call':
      g.prims.add(e.prim);
      return `p_${e.prim}(${e.args.map((a) => expr(g, a)).join(', ')})`;
    case 'index': {
      // In copy k of a fused body, an index `... + v + ...` is rendered as (index at v) + k.
      const sh = g.shift;
      const plus = sh !== null && sh.k !== 0 && unitOffsetIn(e.index, sh.v) ? sh.k : 0;
      if (plus !== 0) g.shift = null;
      const idx = expr(g, e.index, true);
      g.shift = sh;
      if (g.inst.arrays[e.name] !== undefined) return `a_${e.name}[${idx}${plus === 0 ? '' : ` + ${plus}`}]`;
      const b = g.inst.buffers[e.name];
      if (b === undefined) throw new InternalError(`unknown buffer ${e.name}`);
      return viewAccess(g, b, e.name, idx, plus).get;
    }
    case 'bin': {
      const a = expr(g, e.a, ix);
      const b = expr(g, e.b, ix);
      // Index arithmetic stays far below 2^31 for valid tensors: plain ops keep V8's small ints.
      if (ix && (e.op === '+' || e.op === '-' || e.op === '*')) return `(${a} ${e.op} ${b})`;
      switch (e.op) {
        case '+': return `((${a} + ${b}) | 0)`;
        case '-': return `((${a} - ${b}) | 0)`;
        case '*': return `Math.imul(${a}, ${b})`;
        case '/': return `((${a} / ${b}) | 0)`;
        case '%': return `((${a} % ${b}) | 0)`;
        default: return `(${a} ${BIN_JS[e.op] ?? '?'} ${b})`;
      }
    }
  }
}

/** Trace/addr events or cost counters for the arena reads of `e` (left-to-right order). */
function readEvents(g: Gen, e: Expr): string {
  let out = '';
  for (const r of readsOf(e)) {
    const b = g.inst.buffers[r.name];
    if (b === undefined) continue;
    if (g.mode === 'cost') {
      const counter = b.offsetBytes === null ? 'k_cld' : b.region === 'storage' ? 'k_sld' : 'k_ld';
      out += `${counter} += ${elementBytes(b.dtype)}; `;
    } else if (b.offsetBytes !== null) {
      out += access(g, 'load', b, r.name, viewAccess(g, b, r.name, expr(g, r.index, true)).addr);
    }
  }
  return out;
}

/** One arena access of traced or address-walk code: an event into the log (room for it was made by
 * the check in front of its block, nest), or in a diagonal walk its step of the reduction. */
function access(g: Gen, kind: 'load' | 'store', b: BufferBinding, name: string, addr: string): string {
  const d = g.diagonal;
  if (d === null) return `L[n] = ${lit(g, traceHeader(kind, elementBytes(b.dtype), b.id), `${kind}:${name}`)}; L[n + 1] = ${addr}; n += 2; `;
  if (kind === 'store' && b.id === d.output) return `Q = (${addr} - OO) * OS + OB; if (Q > W) W = Q; `;
  if (kind === 'load' && b.id === d.input) return `Q = (${addr} - IO) * IS - W; if (Q < D) D = Q; `;
  return '';
}

function costOfValue(g: Gen, e: Expr, tag: string | undefined): string {
  let out = tag === 'mac' ? 'k_mac++; ' : '';
  for (const p of callsOf(e)) {
    g.counted.add(p);
    out += `k_p.${p}++; `;
  }
  return out;
}

function stmt(g: Gen, s: Stmt, ind: string): string {
  const { mode } = g;
  switch (s.k) {
    case 'for': {
      // Fast mode: a one-trip loop is a block binding its variable (V8 then folds it).
      if (mode === 'fast' && s.from.k === 'num' && s.to.k === 'num' && s.to.v - s.from.v === 1) {
        return `${ind}{\n${ind}  const v_${s.v} = ${numText(g, s.from)};\n${nest(g, s.body, ind + '  ')}${ind}}\n`;
      }
      const unrolled = fullyUnrolledFor(g, s, ind) ?? unrollFor(g, s, ind);
      if (unrolled !== null) return unrolled;
      const end = `e${g.tmp++}`;
      return `${ind}for (let v_${s.v} = ${expr(g, s.from, true)}, ${end} = ${expr(g, s.to, true)}; v_${s.v} < ${end}; v_${s.v}++) {\n${nest(g, s.body, ind + '  ')}${ind}}\n`;
    }
    case 'let':
      return `${ind}const v_${s.name} = ${expr(g, s.e, true)};\n`;
    case 'val':
    case 'set': {
      if (mode === 'addr') return `${ind}${readEvents(g, s.e)}\n`;
      if (mode === 'cost') return `${ind}${readEvents(g, s.e)}${costOfValue(g, s.e, s.tag)}\n`;
      const pre = mode === 'traced' ? readEvents(g, s.e) : '';
      return `${ind}${pre}${s.k === 'val' ? 'let ' : ''}v_${s.name} = ${expr(g, s.e)};\n`;
    }
    case 'if': {
      const els = s.else.length ? ` else {\n${nest(g, s.else, ind + '  ')}${ind}}` : '';
      return `${ind}if (${expr(g, s.cond, true)}) {\n${nest(g, s.then, ind + '  ')}${ind}}${els}\n`;
    }
    case 'store': {
      const b = g.inst.buffers[s.buf];
      if (b === undefined) throw new InternalError(`unknown buffer ${s.buf}`);
      const acc = viewAccess(g, b, s.buf, expr(g, s.index, true));
      const w = elementBytes(b.dtype);
      if (mode === 'cost') return `${ind}${readEvents(g, s.e)}${costOfValue(g, s.e, undefined)}k_st += ${w};\n`;
      const ev = mode === 'fast' ? '' : readEvents(g, s.e) + access(g, 'store', b, s.buf, acc.addr);
      if (mode === 'addr') return `${ind}${ev}\n`;
      return `${ind}${ev}${acc.set(expr(g, s.e))}\n`;
    }
  }
}

/** Loops of at most this many constant trips (a 3-tap filter row) become straight code... */
const FULL_UNROLL_MAX_TRIPS = 4;
/** ...when, with the loops inside them, they make at most this many copies (a 3x3 filter). */
const FULL_UNROLL_MAX_COPIES = 9;

/**
 * Fast and traced modes: a loop with a constant trip count of 2..FULL_UNROLL_MAX_TRIPS whose inner
 * loops unroll the same way, FULL_UNROLL_MAX_COPIES copies of the innermost body at most, becomes one
 * block per trip, each binding the variable: the same statements in the same order (same loads,
 * same events), and V8 folds the bound values (and the bounds tests on them).
 */
/** The trips of `s` when fullyUnrolledFor writes it out as straight code (fast and traced modes), else null. */
export function fullUnrollTrips(g: LoweringMode, s: Extract<Stmt, { k: 'for' }>): number | null {
  if (g.mode === 'addr' || g.mode === 'cost' || s.from.k !== 'num' || s.to.k !== 'num') return null;
  const trips = s.to.v - s.from.v;
  return trips >= 2 && unrolledCopies(s) <= FULL_UNROLL_MAX_COPIES ? trips : null;
}

function fullyUnrolledFor(g: Gen, s: Extract<Stmt, { k: 'for' }>, ind: string): string | null {
  const trips = fullUnrollTrips(g, s);
  if (trips === null || s.from.k !== 'num') return null;
  const from = numText(g, s.from);
  let out = '';
  for (let k = 0; k < trips; k++) out += `${ind}{\n${ind}  const v_${s.v} = ${k === 0 ? from : `${from} + ${k}`};\n${nest(g, s.body, ind + '  ')}${ind}}\n`;
  return out;
}

/** Copies of the innermost body a full unroll of `s` makes; Infinity if some loop cannot unroll. */
function unrolledCopies(s: Stmt): number {
  const inner = (n: Nest): number => n.reduce((m, x) => Math.max(m, unrolledCopies(x)), 1);
  if (s.k === 'if') return Math.max(inner(s.then), inner(s.else));
  if (s.k !== 'for') return 1;
  if (s.from.k !== 'num' || s.to.k !== 'num') return Infinity;
  const trips = s.to.v - s.from.v;
  return trips > FULL_UNROLL_MAX_TRIPS ? Infinity : Math.max(trips, 1) * inner(s.body);
}

/** An unrolled loop's bounds as code: start, end of the whole blocks, end. */
interface UnrollBounds {
  readonly from: string;
  readonly mainEnd: string;
  readonly to: string;
}

/** Unroll factor for innermost loops with a constant trip count of at least two factors. */
const UNROLL = 4;

/**
 * An innermost loop (no nested loop or branch) with constant bounds and a trip count >= 2*UNROLL
 * becomes a loop over blocks of UNROLL copies of the body (each with its own `const v_<var>`),
 * then a remainder loop: the same statements in the same order, so the same loads and events.
 */
function unrollFor(g: Gen, s: Extract<Stmt, { k: 'for' }>, ind: string): string | null {
  if (s.from.k !== 'num' || s.to.k !== 'num' || s.to.v - s.from.v < 2 * UNROLL) return null;
  if (s.body.some((x) => x.k === 'for' || x.k === 'if')) return null;
  const trips = s.to.v - s.from.v;
  // Bounds are passed in when param-derived; the remainder loop is always written (it may run no
  // trips) so the code does not depend on the trip count modulo UNROLL.
  const p = s.from.p === true || s.to.p === true;
  const b: UnrollBounds = { from: numText(g, s.from), mainEnd: numText(g, { v: s.from.v + trips - (trips % UNROLL), ...(p ? { p: true } : {}) }), to: numText(g, s.to) };
  const fused = g.mode === 'fast' ? fusedAccumulation(g, s, ind, b) : null;
  if (fused !== null) return fused;
  const u = `u${g.tmp++}`;
  const text = nest(g, s.body, ind + '    ');
  let out = `${ind}for (let ${u} = ${b.from}; ${u} < ${b.mainEnd}; ${u} += ${UNROLL}) {\n`;
  for (let k = 0; k < UNROLL; k++) out += `${ind}  {\n${ind}    const v_${s.v} = ${k === 0 ? u : `${u} + ${k}`};\n${text}${ind}  }\n`;
  out += `${ind}}\n`;
  out += `${ind}for (let v_${s.v} = ${b.mainEnd}; v_${s.v} < ${b.to}; v_${s.v}++) {\n${nest(g, s.body, ind + '  ')}${ind}}\n`;
  return out;
}

/**
 * Fast mode, body `acc = acc + X` (X int32-valued, not reading acc): one statement per block of
 * UNROLL trips, `acc = (acc + X(v) + X(v+1) + ...) | 0`. The 1 + UNROLL int32 terms keep every
 * partial sum below 2^53, so the single wrap equals the per-step wraps; X's are evaluated in the
 * same order. Returns null when the body has another shape.
 */
function fusedAccumulation(g: Gen, s: Extract<Stmt, { k: 'for' }>, ind: string, { from, mainEnd, to }: UnrollBounds): string | null {
  const [st] = s.body;
  if (s.body.length !== 1 || st === undefined || st.k !== 'set' || st.e.k !== 'bin' || st.e.op !== '+') return null;
  const { a, b: x } = st.e;
  if (a.k !== 'name' || a.name !== st.name || namesOf(x).includes(st.name) || !isInt32Valued(g, x)) return null;
  const terms = Array.from({ length: UNROLL }, (_, k) => {
    g.shift = { v: s.v, k };
    const t = expr(g, x);
    g.shift = null;
    return t;
  });
  const acc = `v_${st.name}`;
  let out = `${ind}for (let v_${s.v} = ${from}; v_${s.v} < ${mainEnd}; v_${s.v} += ${UNROLL}) {\n`;
  out += `${ind}  ${acc} = (${acc} + ${terms.join(' + ')}) | 0;\n${ind}}\n`;
  out += `${ind}for (let v_${s.v} = ${mainEnd}; v_${s.v} < ${to}; v_${s.v}++) {\n${nest(g, s.body, ind + '  ')}${ind}}\n`;
  return out;
}

/** Whether expr() renders `e` as a JS int32 (imul, `| 0`, an integer load or literal). */
function isInt32Valued(g: Gen, e: Expr): boolean {
  switch (e.k) {
    case 'num':
      return Number.isInteger(e.v) && (e.v | 0) === e.v;
    case 'neg':
      return true;
    case 'bin':
      return e.op === '+' || e.op === '-' || e.op === '*' || e.op === '/' || e.op === '%';
    case 'index': {
      if (g.inst.arrays[e.name] !== undefined) return true;
      const d = g.inst.buffers[e.name]?.dtype;
      return d === 'int8' || d === 'uint8' || d === 'int16' || d === 'int32' || d === 'bool';
    }
    default:
      return false;
  }
}

/** Whether `e` is a sum in which name `v` occurs once, as a plain summand: e(v + k) = e(v) + k. */
function unitOffsetIn(e: Expr, v: string): boolean {
  if (e.k === 'name') return e.name === v;
  if (e.k !== 'bin' || (e.op !== '+' && e.op !== '-')) return false;
  if (unitOffsetIn(e.a, v) && !namesOf(e.b).includes(v)) return true;
  return e.op === '+' && !namesOf(e.a).includes(v) && unitOffsetIn(e.b, v);
}

function nest(g: Gen, n: Nest, ind: string): string {
  if ((g.mode !== 'traced' && g.mode !== 'addr') || g.covered || g.diagonal !== null) return n.map((s) => stmt(g, s, ind)).join('');
  // Traced and address-only code: one log-capacity check in front of each run of loop-free
  // statements (fully unrolled loops count as loop-free), sized for every event the run can emit,
  // instead of a check (and a sink call site with its deoptimization state) at every event. Loops
  // check inside their own bodies. The sink then sees chunks of up to CAP events; the event
  // sequence is the same.
  let out = '';
  for (let i = 0; i < n.length;) {
    const { end: j, events } = loopFreeRun(g, n, i);
    if (j === i) {
      out += stmt(g, n[i] as Stmt, ind);
      i++;
      continue;
    }
    if (2 * events > TRACE_LOG_EVENTS * TRACE_WORDS_PER_EVENT) throw new InternalError(`a loop-free block of ${events} trace events exceeds the log`);
    if (events > 0) out += `${ind}if (n > CAP - ${2 * events}) { sink(OP, L, n >> 1); n = 0; }\n`;
    g.covered = true;
    for (; i < j; i++) out += stmt(g, n[i] as Stmt, ind);
    g.covered = false;
  }
  return out;
}

/** Arena reads of `e` (each one trace event, as readEvents writes them). */
function arenaReadsOf(g: LoweringMode, e: Expr): number {
  return readsOf(e).filter((r) => (g.inst.buffers[r.name]?.offsetBytes ?? null) !== null).length;
}

/** The loop-free statements of `n` from `i` on (fully unrolled loops count as loop-free): the
 * index after the last one and the trace events they emit at most. Both lowerings check the log's
 * room once per such run. */
export function loopFreeRun(g: LoweringMode, n: Nest, i: number): { readonly end: number; readonly events: number } {
  let end = i;
  let events = 0;
  for (let e = eventsOf(g, n[end] as Stmt); e !== null; e = end < n.length ? eventsOf(g, n[end] as Stmt) : null) {
    events += e;
    end++;
  }
  return { end, events };
}

/** Trace events a statement emits at most (both branches of an if counted); null if it holds a loop. */
export function eventsOf(g: LoweringMode, s: Stmt): number | null {
  switch (s.k) {
    case 'for': {
      // A loop fullyUnrolledFor writes out as straight code counts as its copies.
      const trips = fullUnrollTrips(g, s);
      const body = trips === null ? null : eventsOfNest(g, s.body);
      return trips === null || body === null ? null : trips * body;
    }
    case 'let':
      return 0;
    case 'val':
    case 'set':
      return arenaReadsOf(g, s.e);
    case 'store':
      return arenaReadsOf(g, s.e) + 1;
    case 'if': {
      const then = eventsOfNest(g, s.then);
      const els = eventsOfNest(g, s.else);
      return then === null || els === null ? null : then + els;
    }
  }
}

/** eventsOf summed over a statement list; null if any holds a loop. */
export function eventsOfNest(g: LoweringMode, n: Nest): number | null {
  let total = 0;
  for (const x of n) {
    const e = eventsOf(g, x);
    if (e === null) return null;
    total += e;
  }
  return total;
}

/** The JS source of one instance in one mode, shared or specialized (exposed for tests and debugging). */
export function generateJs(inst: KernelInstance, mode: JsMode, shared = true): string {
  return lowerJs(inst, mode, shared).src;
}

/** Source shared by every instance with the same structure, and this instance's values for it. */
interface LoweredJs {
  readonly src: string;
  readonly lits: Int32Array;
}

function lowerJs(inst: KernelInstance, mode: JsMode, shared: boolean, diagonal: DiagonalPair | null = null): LoweredJs {
  const folded = foldNest(inst.nest, { ...inst.flags, ...inst.scalars }, new Set(Object.keys(inst.scalars)));
  checkNest(inst, folded, []);
  const g: Gen = { inst, mode, shared, lits: [], named: new Map(), prims: new Set(), counted: new Set(), tmp: 0, shift: null, covered: false, diagonal };
  const op = lit(g, inst.opIndex, 'op');
  const body = nest(g, folded, '    ');
  const prims = primitiveClosure(g.prims).map((p) => p.js).join('\n');
  // Views, constants and arrays are copied into locals of run(): V8 then keeps them in registers
  // instead of reloading closure slots inside the loops.
  const consts = Object.keys(inst.buffers)
    .filter((n) => inst.buffers[n]?.offsetBytes === null)
    .map((n) => `    const c_${n} = C[${JSON.stringify(n)}];\n`)
    .join('');
  const arrays = Object.keys(inst.arrays).map((n) => `    const a_${n} = A[${JSON.stringify(n)}];\n`).join('');
  const views = `    const I8 = $I8, U8 = $U8, I16 = $I16, I32 = $I32, F32 = $F32, DV = $DV;\n` +
    (Object.values(inst.buffers).some((b) => b.region === 'storage') ? `    const SI8 = $S.i8, SU8 = $S.u8, SI16 = $S.i16, SI32 = $S.i32, SF32 = $S.f32, SDV = $S.dv;\n` : '');
  const passed = g.lits.length === 0 ? '' : `    const ${g.lits.map((_, i) => `k${i} = $K[${i}]`).join(', ')};\n`;
  const locals = `${views}${consts}${arrays}${passed}`;
  // Primitives are defined once per source, outside `bind`: every instance calls the same closures
  // (a per-instance copy would make shared optimized code deoptimize on "wrong call target").
  const head = `"use strict";\n${prims}\nreturn function bind($I8, $U8, $I16, $I32, $F32, $DV, $S, C, A, $L, $K) {\nconst CAP = $L.length;\n`;
  const lits = Int32Array.from(g.lits);
  switch (mode) {
    case 'fast':
      return { src: `${head}return function run() {\n${locals}${body}};\n};\n`, lits };
    case 'traced':
    case 'addr':
      if (diagonal !== null) return { src: `${head}return function run(IO, IS, OO, OS, OB) {\n${locals}    let W = -Infinity, D = 0, Q = 0;\n${body}    return D;\n};\n};\n`, lits };
      return { src: `${head}return function run(sink) {\n${locals}    const OP = ${op}, L = $L; let n = 0;\n${body}    if (n > 0) sink(OP, L, n >> 1);\n};\n};\n`, lits };
    case 'cost':
      return { src: `${head}return function run() {\n${locals}    let k_mac = 0, k_ld = 0, k_st = 0, k_cld = 0, k_sld = 0; const k_p = { ${[...g.counted].map((p) => `${p}: 0`).join(', ')} };\n${body}    return { macs: k_mac, arenaLoadBytes: k_ld, arenaStoreBytes: k_st, constLoadBytes: k_cld, storageLoadBytes: k_sld, primitiveCalls: k_p };\n};\n};\n`, lits };
  }
}

type TypedCtor = new (buf: ArrayBuffer, off: number, len: number) => ArrayLike<number>;
const CONST_VIEW: Readonly<Record<string, TypedCtor>> = {
  int8: Int8Array, bool: Int8Array, uint8: Uint8Array, int16: Int16Array, uint16: Uint16Array,
  int32: Int32Array, uint32: Uint32Array, float32: Float32Array,
};

function constView(b: BufferBinding): ArrayLike<number> {
  const ctor = CONST_VIEW[b.dtype];
  if (ctor === undefined || b.data === null) throw new InternalError(`constant buffer of dtype ${b.dtype} not supported`);
  const copy = new ArrayBuffer(b.data.byteLength + 8);
  new Uint8Array(copy).set(b.data);
  return new ctor(copy, 0, Math.floor(b.data.byteLength / elementBytes(b.dtype)));
}

export interface CompiledKernel {
  readonly run: () => void;
  readonly runTraced: (sink: TraceSink) => void;
}

const NO_STORAGE = makeArenaViews(new ArrayBuffer(8));

type Factory = (...a: unknown[]) => (...a: unknown[]) => unknown;

/** Compiled `bind` functions by source: instances of one structure share the functions V8 optimizes. */
const FACTORIES = new Map<string, Factory>();
/** Bound on cached sources (a long search can lower many structures); the cache restarts past it. */
const MAX_FACTORIES = 4096;

function factoryFor(src: string, shared: boolean): Factory {
  // Specialized sources are one per op: compiled as they come (V8's own source cache still shares
  // identical ones), never filling the cache of shared sources.
  if (!shared) return (new Function(src) as () => Factory)();
  let f = FACTORIES.get(src);
  if (f === undefined) {
    if (FACTORIES.size >= MAX_FACTORIES) FACTORIES.clear();
    f = (new Function(src) as () => Factory)();
    FACTORIES.set(src, f);
  }
  return f;
}

function build(inst: KernelInstance, mode: JsMode, views: ArenaViews, storage: ArenaViews = NO_STORAGE, shared = true): (...a: unknown[]) => unknown {
  return buildLowered(inst, mode, lowerJs(inst, mode, shared), views, storage, shared);
}

function buildLowered(inst: KernelInstance, mode: JsMode, { src, lits }: LoweredJs, views: ArenaViews, storage: ArenaViews, shared: boolean): (...a: unknown[]) => unknown {
  const consts: Record<string, ArrayLike<number>> = {};
  for (const [n, b] of Object.entries(inst.buffers)) if (b.offsetBytes === null) consts[n] = constView(b);
  const log = new Int32Array(mode === 'traced' || mode === 'addr' ? TRACE_LOG_EVENTS * TRACE_WORDS_PER_EVENT : 2);
  return factoryFor(src, shared)(views.i8, views.u8, views.i16, views.i32, views.f32, views.dv, storage, consts, inst.arrays, log, lits);
}

/**
 * Runs of an op on the shared code before it switches to code specialized to its values. Shared code
 * is warm after the first op of its structure (V8 compiles and optimizes it once per process, for
 * every op and model of that structure), so first runs are fast. Specialized code is 10-45% faster in
 * steady state (V8 proves index ranges and folds bounds checks from literal bounds and strides), but
 * each op's own compile costs about one cold run of that op: measured, that pays back after 12-100
 * further runs, so only ops that have run this often switch.
 */
export const SPECIALIZE_AFTER_RUNS = 16;

/** The executor for each call: shared code for the first `after` calls, then specialized. */
function tiered<F>(after: number, make: (shared: boolean) => F): () => F {
  let calls = 0;
  let current = make(after > 0);
  return () => {
    if (calls === after && after > 0) current = make(false);
    calls++;
    return current;
  };
}

/**
 * Compile the fast executor now and the traced one on first use, each on shared code for its first
 * `specializeAfterRuns` calls (0: specialized from the start), then specialized. `storage`: views of
 * the storage device's mapped image, for buffers of region 'storage' (TinySeg fetches).
 */
export function compileKernel(inst: KernelInstance, views: ArenaViews, storage?: ArenaViews, specializeAfterRuns = SPECIALIZE_AFTER_RUNS): CompiledKernel {
  const fast = tiered(specializeAfterRuns, (shared) => build(inst, 'fast', views, storage, shared) as () => void);
  let traced: (() => (sink: TraceSink) => void) | null = null;
  return {
    run: () => {
      const f = fast();
      rethrowKernelErrors(() => void f());
    },
    runTraced: (sink) => {
      traced ??= tiered(specializeAfterRuns, (shared) => build(inst, 'traced', views, storage, shared) as (sink: TraceSink) => void);
      const t = traced();
      rethrowKernelErrors(() => throughSink(sink, t));
    },
  };
}

/** The sink of the traced run in progress (see throughSink). */
let activeSink: TraceSink = () => undefined;
const forwardToSink: TraceSink = (op, log, count) => activeSink(op, log, count);
// The call above is made megamorphic up front (distinct functions, repeated past V8's lazy feedback
// allocation): optimized kernels then never inline one particular sink, and a later run's new sink
// costs no deoptimization.
{
  const empty = new Int32Array(2);
  const sinks: TraceSink[] = [() => 0, () => 1, () => 2, () => 3, () => 4, () => 5];
  for (let i = 0; i < 64; i++) {
    activeSink = sinks[i % sinks.length] as TraceSink;
    forwardToSink(0, empty, 0);
  }
  activeSink = () => undefined;
}

/**
 * Run traced code `t` with its log flushed to `sink`. Generated code always calls the one function
 * forwardToSink: shared code serves many ops and runs, and when its call target changed with every
 * run (each Tracer has its own sink closure) V8 deoptimized every traced kernel on its next run
 * ("wrong call target"), so a second traced run of a model cost as much as the first.
 */
function throughSink(sink: TraceSink, t: (sink: TraceSink) => void): void {
  const outer = activeSink;
  activeSink = sink;
  try {
    t(forwardToSink);
  } finally {
    activeSink = outer;
  }
}

/** Generated code cannot reach the error classes: primitives throw plain Errors named
 * 'KernelError' with a code (e.g. softmax's TFLITE_CHECK), turned into coded errors here. */
export function rethrowKernelErrors(f: () => void): void {
  try {
    f();
  } catch (e) {
    if (e instanceof Error && e.name === 'KernelError' && !(e instanceof KernelError)) {
      throw new KernelError('E_KERNEL_CONSTRAINT', e.message);
    }
    throw e;
  }
}

/** Address-only walk: the traced event sequence without touching any data. */
export function walkAddresses(inst: KernelInstance, sink: TraceSink): void {
  throughSink(sink, build(inst, 'addr', makeArenaViews(new ArrayBuffer(8))) as (sink: TraceSink) => void);
}

/** The buffers and scales of a diagonal reduction (overlapWalk). */
export interface DiagonalPair {
  /** Buffer ids (tensor indices) of the loads and the stores the reduction reads. */
  readonly input: number;
  readonly output: number;
  /** A load of `input` at byte address a is at position (a - inOffset) * inScale... */
  readonly inOffset: number;
  readonly inScale: number;
  /** ...and a store of `output` at a reaches (a - outOffset) * outScale + outEnd. */
  readonly outOffset: number;
  readonly outScale: number;
  readonly outEnd: number;
}

/**
 * The address walk folded into one number, without a log: min(0, the least of (load position -
 * the highest store reach so far) over the loads of `input` made after the first store of
 * `output`). That is the DMO paper's minR/maxW reduction (§III-C) in one pass (the optimizer's
 * safe-overlap.ts, algorithmicReduction, says why, and is the same reduction over walkAddresses'
 * events: tests compare the two). Through the log and that sink an event cost ~15 ns (the DMO
 * pass's walks of mobilenet-v2-1.0-224: 3.5 s); here a load or store of the pair is a compare, other
 * accesses vanish, and the same walks take 0.9 s.
 */
export function overlapWalk(inst: KernelInstance, pair: DiagonalPair): number {
  const lowered = lowerJs(inst, 'addr', true, pair);
  const key = diagonalKey(inst, lowered, pair);
  const known = DIAGONAL_RESULTS.get(key);
  if (known !== undefined) return known;
  const run = buildLowered(inst, 'addr', lowered, makeArenaViews(new ArrayBuffer(8)), NO_STORAGE, true) as (io: number, is: number, oo: number, os: number, ob: number) => number;
  const minD = run(pair.inOffset, pair.inScale, pair.outOffset, pair.outScale, pair.outEnd);
  if (DIAGONAL_RESULTS.size >= MAX_FACTORIES) DIAGONAL_RESULTS.clear();
  DIAGONAL_RESULTS.set(key, minD);
  return minD;
}

/**
 * overlapWalk's results by the SHA-256 of everything the walk computes from: its source, the values
 * passed in, the pair's scales and the contents of the constants and arrays the source reads (an
 * address-only walk reads only those its indices use: a gather's indices, never a conv's filter).
 * Layers of one shape with other weights then walk once: 17 of the 56 walks of DMO on
 * mobilenet-v2-1.0-224 (its repeated blocks).
 */
const DIAGONAL_RESULTS = new Map<string, number>();

/** Forget every remembered overlapWalk result (a bench timing the walk itself). */
export function forgetOverlapWalks(): void {
  DIAGONAL_RESULTS.clear();
}

function diagonalKey(inst: KernelInstance, { src, lits }: LoweredJs, pair: DiagonalPair): string {
  const h = createHash('sha256').update(`${pair.inOffset},${pair.inScale},${pair.outOffset},${pair.outScale},${pair.outEnd}|${lits.join(',')}|${src}`);
  for (const [n, b] of Object.entries(inst.buffers)) {
    if (b.offsetBytes === null && b.data !== null && src.includes(`c_${n}[`)) h.update(`|c_${n}:${b.data.length}:`).update(b.data);
  }
  for (const [n, a] of Object.entries(inst.arrays)) {
    if (src.includes(`a_${n}[`)) h.update(`|a_${n}:${a.byteLength}:`).update(new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
  }
  return h.digest('base64');
}

/** Exact counts from walking the nest (data-independent by construction). */
export function countCost(inst: KernelInstance): CostCounts {
  return (build(inst, 'cost', makeArenaViews(new ArrayBuffer(8))) as () => CostCounts)();
}
