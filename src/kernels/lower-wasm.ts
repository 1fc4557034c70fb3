// Lowers a kernel instance to a WebAssembly function, in the two modes a run uses: `fast` and
// `traced` (every arena load and store appended to an event log in linear memory, flushed to the
// sink through an imported function). The same nest, folded the same way as the JS lowering, with
// the same statements in the same order: same values, same events (test/kernels/property.test.ts
// checks wasm == JS == C on every case). Why WebAssembly: V8 compiles a module to machine code
// before its first call (no interpreted first run waiting for on-stack replacement).
// Param-derived numbers, buffer offsets, trace headers and the op index are passed in (read from
// memory into locals on entry), so ops that differ only in those share one module, and ops that
// differ only in placement (offsets, tensor ids, op index) share one lowering (lowerWasmCached):
// a model's optimized variant lowers almost nothing its original did not. Memory layout, compiling
// and running: wasm-kernels.ts.
import { InternalError } from '../ir/index.ts';
import type { BufferBinding, KernelInstance } from './instance.ts';
import { checkNest, elementBytes, foldNest, placementFreeKey } from './instance.ts';
import type { LoweringMode } from './lower-js.ts';
import { fullUnrollTrips, loopFreeRun, TRACE_LOG_EVENTS, TRACE_WORDS_PER_EVENT } from './lower-js.ts';
import type { Expr, Nest, Stmt } from './nest.ts';
import { readsOf } from './nest.ts';
import { PRIMITIVES } from './primitives.ts';
import type { OpName, ValType } from './wasm-binary.ts';
import { encodeModule, OP, sleb, uleb } from './wasm-binary.ts';

/** A kernel shape this lowering does not handle (the runtime then uses the JS lowering for it). */
export class WasmUnsupported extends Error {}

/** A passed-in value: a param-derived number, or what the runtime reads off the instance (a
 * buffer's offset, a trace header with its buffer id, the op index) or knows once it lays out its
 * memory (where a constant, an array and the log are). A lowering is thus a function of the
 * instance's structure alone (loweringKey): instances that differ in placement share it. */
export type Slot =
  | { readonly k: 'value'; readonly v: number }
  | { readonly k: 'offset'; readonly name: string }
  | { readonly k: 'header'; readonly access: 'load' | 'store'; readonly name: string }
  | { readonly k: 'op' }
  | { readonly k: 'const'; readonly name: string }
  | { readonly k: 'array'; readonly name: string }
  | { readonly k: 'log' };

interface WGen extends LoweringMode {
  readonly mode: 'fast' | 'traced';
  code: number[];
  /** Types of the locals after the one param (the passed-in values' address): local i+1. */
  readonly locals: ValType[];
  readonly slots: Slot[];
  readonly slotLocal: number[];
  readonly named: Map<string, number>;
  /** Imported primitives by name: function index (0 is the log flush). */
  readonly imports: Map<string, number>;
  readonly scope: Map<string, number>;
  /** Bindings to restore when a scope ends: name, outer local (undefined: none). */
  readonly undo: [string, number | undefined][];
  /** Traced mode: locals of the log base address and the log fill in bytes. */
  logBase: number;
  fill: number;
  covered: boolean;
}

type Ty = 'i32' | 'f64' | 'f64prim';

export const LOG_BYTES = TRACE_LOG_EVENTS * TRACE_WORDS_PER_EVENT * 4;
const INT32_MIN = -2147483648;

function op(g: WGen, name: OpName): void {
  g.code.push(OP[name]);
}
function mem(g: WGen, name: OpName, offset = 0): void {
  g.code.push(OP[name], 0);
  uleb(g.code, offset);
}
function local(g: WGen, t: ValType): number {
  g.locals.push(t);
  return g.locals.length;
}
function get(g: WGen, i: number): void {
  g.code.push(OP['local.get']);
  uleb(g.code, i);
}
function set(g: WGen, i: number): void {
  g.code.push(OP['local.set']);
  uleb(g.code, i);
}
function i32c(g: WGen, v: number): void {
  g.code.push(OP['i32.const']);
  sleb(g.code, v | 0);
}
function i64c(g: WGen, v: bigint): void {
  g.code.push(OP['i64.const']);
  sleb(g.code, v);
}
/** `if` with an i32 result (0x7f) or none (0x40). */
function ifThen(g: WGen, result: boolean, then: () => void, otherwise?: () => void): void {
  g.code.push(OP.if, result ? 0x7f : 0x40);
  then();
  if (otherwise !== undefined) {
    op(g, 'else');
    otherwise();
  }
  op(g, 'end');
}
function call(g: WGen, index: number): void {
  g.code.push(OP.call);
  uleb(g.code, index);
}

/** The local holding passed-in slot `s`; `key` shares one slot between uses of the same name. */
function slot(g: WGen, s: Slot, key?: string): number {
  const known = key === undefined ? undefined : g.named.get(key);
  if (known !== undefined) return known;
  const l = local(g, 'i32');
  g.slots.push(s);
  g.slotLocal.push(l);
  if (key !== undefined) g.named.set(key, l);
  return l;
}

function num(g: WGen, e: { readonly v: number; readonly p?: true }): void {
  if ((e.v | 0) !== e.v) throw new WasmUnsupported(`number ${e.v} is not an int32`);
  if (e.p === true) get(g, slot(g, { k: 'value', v: e.v }));
  else i32c(g, e.v);
}

/** Emit `e` as type `want`. */
function ex(g: WGen, e: Expr, want: 'i32' | 'f64'): void {
  const got = raw(g, e);
  if (want === 'f64') {
    if (got === 'i32') op(g, 'f64.convert_i32_s');
  } else if (got === 'f64prim') {
    // A JS primitive's result is an int32 by contract (primitive.ts); the JS lowering uses it as is.
    g.code.push(0xfc, 0x02); // i32.trunc_sat_f64_s
  } else if (got === 'f64') {
    throw new WasmUnsupported('float32 value used as an integer');
  }
}

function raw(g: WGen, e: Expr): Ty {
  switch (e.k) {
    case 'num':
      num(g, e);
      return 'i32';
    case 'name': {
      const l = g.scope.get(e.name);
      if (l === undefined) throw new InternalError(`wasm: unknown name '${e.name}'`);
      get(g, l);
      return 'i32';
    }
    case 'neg':
      i32c(g, 0);
      ex(g, e.a, 'i32');
      op(g, 'i32.sub');
      return 'i32';
    case 'not':
      ex(g, e.a, 'i32');
      op(g, 'i32.eqz');
      return 'i32';
    case 'call':
      return callPrim(g, e.prim, e.args);
    case 'index': {
      if (g.inst.arrays[e.name] !== undefined) {
        get(g, slot(g, { k: 'array', name: e.name }, `a:${e.name}`));
        scaled(g, e.index, 4);
        mem(g, 'i32.load');
        return 'i32';
      }
      const b = g.inst.buffers[e.name];
      if (b === undefined) throw new InternalError(`unknown buffer ${e.name}`);
      address(g, b, e.name, e.index);
      return load(g, b);
    }
    case 'bin':
      return bin(g, e);
  }
}

/** `+ idx * w` onto the address on the stack. */
function scaled(g: WGen, idx: Expr, w: number): void {
  ex(g, idx, 'i32');
  if (w !== 1) {
    i32c(g, w);
    op(g, 'i32.mul');
  }
  op(g, 'i32.add');
}

/** The byte address of element `idx` of buffer `b` (arena: its absolute arena address). */
function address(g: WGen, b: BufferBinding, name: string, idx: Expr): void {
  if (b.region === 'storage') throw new WasmUnsupported('storage-region buffer');
  if (b.offsetBytes === null) get(g, slot(g, { k: 'const', name }, `c:${name}`));
  else get(g, slot(g, { k: 'offset', name }, `off:${name}`));
  scaled(g, idx, elementBytes(b.dtype));
}

function load(g: WGen, b: BufferBinding): Ty {
  switch (b.dtype) {
    case 'int8':
    case 'bool':
      mem(g, 'i32.load8_s');
      return 'i32';
    case 'uint8':
      mem(g, 'i32.load8_u');
      return 'i32';
    case 'int16':
      mem(g, 'i32.load16_s');
      return 'i32';
    case 'uint16':
      // The JS lowering has no arena view for uint16 (constants only).
      if (b.offsetBytes !== null) throw new WasmUnsupported('uint16 arena buffer');
      mem(g, 'i32.load16_u');
      return 'i32';
    case 'int32':
      mem(g, 'i32.load');
      return 'i32';
    case 'float32':
      mem(g, 'f32.load');
      op(g, 'f64.promote_f32');
      return 'f64';
    default:
      throw new WasmUnsupported(`buffer dtype ${b.dtype}`);
  }
}

const CMP: Readonly<Record<string, OpName>> = { '<': 'i32.lt_s', '<=': 'i32.le_s', '>': 'i32.gt_s', '>=': 'i32.ge_s', '==': 'i32.eq', '!=': 'i32.ne' };

function bin(g: WGen, e: Extract<Expr, { k: 'bin' }>): Ty {
  const simple: Partial<Record<string, OpName>> = { '+': 'i32.add', '-': 'i32.sub', '*': 'i32.mul', ...CMP };
  const o = simple[e.op];
  if (o !== undefined) {
    ex(g, e.a, 'i32');
    ex(g, e.b, 'i32');
    op(g, o);
    return 'i32';
  }
  const truthy = (x: Expr): void => {
    ex(g, x, 'i32');
    i32c(g, 0);
    op(g, 'i32.ne');
  };
  switch (e.op) {
    case '&&':
      ex(g, e.a, 'i32');
      ifThen(g, true, () => truthy(e.b), () => i32c(g, 0));
      return 'i32';
    case '||':
      ex(g, e.a, 'i32');
      ifThen(g, true, () => i32c(g, 1), () => truthy(e.b));
      return 'i32';
    case '/':
    case '%': {
      // C's truncating division as the JS lowering computes it, `(a / b) | 0`: 0 for b = 0 and
      // INT32_MIN for INT32_MIN / -1 (wasm would trap on both); a literal divisor needs no test.
      const lit = e.b.k === 'num' && e.b.p !== true ? e.b.v : null;
      if (lit !== null && lit !== 0 && lit !== -1) {
        ex(g, e.a, 'i32');
        i32c(g, lit);
        op(g, e.op === '/' ? 'i32.div_s' : 'i32.rem_s');
        return 'i32';
      }
      const a = local(g, 'i32');
      const b = local(g, 'i32');
      ex(g, e.a, 'i32');
      set(g, a);
      ex(g, e.b, 'i32');
      set(g, b);
      get(g, b);
      op(g, 'i32.eqz');
      ifThen(g, true, () => i32c(g, 0), () => {
        if (e.op === '%') {
          // INT32_MIN % -1 is 0 in wasm (no trap), as in JS.
          get(g, a);
          get(g, b);
          op(g, 'i32.rem_s');
          return;
        }
        get(g, b);
        i32c(g, -1);
        op(g, 'i32.eq');
        ifThen(g, true, () => {
          i32c(g, 0);
          get(g, a);
          op(g, 'i32.sub');
        }, () => {
          get(g, a);
          get(g, b);
          op(g, 'i32.div_s');
        });
      });
      return 'i32';
    }
    default:
      throw new InternalError(`wasm: binary operator ${e.op}`);
  }
}

// ------------------------------------------------------------------ primitives

/** Evaluate int32 arguments into fresh locals. */
function args(g: WGen, xs: readonly Expr[]): number[] {
  return xs.map((x) => {
    const l = local(g, 'i32');
    ex(g, x, 'i32');
    set(g, l);
    return l;
  });
}

/** select(a, b, a <cmp> b): min / max as the JS and C primitives write them. */
function pick(g: WGen, a: number, b: number, cmp: OpName): void {
  get(g, a);
  get(g, b);
  get(g, a);
  get(g, b);
  op(g, cmp);
  op(g, 'select');
}

/** SaturatingRoundingDoublingHighMul on locals a, b: (a*b + nudge) / 2^31 in int64, truncated. */
function srdhm(g: WGen, a: number, b: number): void {
  // Saturation (INT32_MIN * INT32_MIN) selects INT32_MAX below, pushed first.
  i32c(g, 2147483647);
  const s = local(g, 'i64');
  get(g, a);
  op(g, 'i64.extend_i32_s');
  get(g, b);
  op(g, 'i64.extend_i32_s');
  op(g, 'i64.mul');
  g.code.push(OP['local.tee']);
  uleb(g.code, s);
  // nudge: 2^30 when a*b >= 0, else 1 - 2^30
  i64c(g, 1n << 30n);
  i64c(g, 1n - (1n << 30n));
  get(g, s);
  i64c(g, 0n);
  op(g, 'i64.ge_s');
  op(g, 'select');
  op(g, 'i64.add');
  set(g, s);
  // truncating division by 2^31: add 2^31 - 1 to negative values before the arithmetic shift
  get(g, s);
  get(g, s);
  i64c(g, 63n);
  op(g, 'i64.shr_s');
  i64c(g, (1n << 31n) - 1n);
  op(g, 'i64.and');
  op(g, 'i64.add');
  i64c(g, 31n);
  op(g, 'i64.shr_s');
  op(g, 'i32.wrap_i64');
  get(g, a);
  i32c(g, INT32_MIN);
  op(g, 'i32.eq');
  get(g, b);
  i32c(g, INT32_MIN);
  op(g, 'i32.eq');
  op(g, 'i32.and');
  op(g, 'select');
}

/** RoundingDivideByPOT of locals x, e. */
function rdbpot(g: WGen, x: number, e: number): void {
  const mask = local(g, 'i32');
  i32c(g, 1);
  get(g, e);
  op(g, 'i32.shl');
  i32c(g, 1);
  op(g, 'i32.sub');
  set(g, mask);
  get(g, x);
  get(g, e);
  op(g, 'i32.shr_s');
  get(g, x);
  get(g, mask);
  op(g, 'i32.and');
  get(g, mask);
  i32c(g, 1);
  op(g, 'i32.shr_s');
  get(g, x);
  i32c(g, 0);
  op(g, 'i32.lt_s');
  op(g, 'i32.add');
  op(g, 'i32.gt_s');
  op(g, 'i32.add');
}

/** The int32 primitives written inline (the hot ones); every other primitive is imported from
 * the JS table (same function, called from wasm with its arguments as numbers). */
const INLINE: Readonly<Record<string, (g: WGen, a: readonly number[]) => void>> = {
  min: (g, [a = 0, b = 0]) => pick(g, a, b, 'i32.lt_s'),
  max: (g, [a = 0, b = 0]) => pick(g, a, b, 'i32.gt_s'),
  clamp: (g, [x = 0, lo = 0, hi = 0]) => {
    pick(g, x, lo, 'i32.gt_s');
    set(g, x);
    pick(g, x, hi, 'i32.lt_s');
  },
  shl: (g, [x = 0, n = 0]) => {
    get(g, x);
    get(g, n);
    op(g, 'i32.shl');
  },
  srdhm: (g, [a = 0, b = 0]) => srdhm(g, a, b),
  rdbpot: (g, [x = 0, e = 0]) => rdbpot(g, x, e),
  mbqm: (g, [x = 0, m = 0, s = 0]) => {
    // rdbpot(srdhm(x << max(s, 0), m), max(-s, 0))
    const shifted = local(g, 'i32');
    get(g, x);
    get(g, s);
    i32c(g, 0);
    get(g, s);
    i32c(g, 0);
    op(g, 'i32.gt_s');
    op(g, 'select');
    op(g, 'i32.shl');
    set(g, shifted);
    const hi = local(g, 'i32');
    srdhm(g, shifted, m);
    set(g, hi);
    const right = local(g, 'i32');
    i32c(g, 0);
    i32c(g, 0);
    get(g, s);
    op(g, 'i32.sub');
    get(g, s);
    i32c(g, 0);
    op(g, 'i32.gt_s');
    op(g, 'select');
    set(g, right);
    rdbpot(g, hi, right);
  },
  avgRound: (g, [a = 0, n = 0]) => {
    // (a > 0 ? a + n/2 : a - n/2) / n in int64, as JS computes it in doubles before `| 0` (no
    // int32 wrap of the sum; exact, the quotient then wraps); 0 when n = 0, as `| 0` makes of it.
    get(g, n);
    op(g, 'i32.eqz');
    ifThen(g, true, () => i32c(g, 0), () => {
      const h = local(g, 'i64');
      get(g, n);
      i32c(g, 2);
      op(g, 'i32.div_s');
      op(g, 'i64.extend_i32_s');
      set(g, h);
      get(g, a);
      op(g, 'i64.extend_i32_s');
      get(g, h);
      op(g, 'i64.add');
      get(g, a);
      op(g, 'i64.extend_i32_s');
      get(g, h);
      op(g, 'i64.sub');
      get(g, a);
      i32c(g, 0);
      op(g, 'i32.gt_s');
      op(g, 'select');
      get(g, n);
      op(g, 'i64.extend_i32_s');
      op(g, 'i64.div_s');
      op(g, 'i32.wrap_i64');
    });
  },
};

function callPrim(g: WGen, prim: string, xs: readonly Expr[]): Ty {
  const inline = INLINE[prim];
  if (inline !== undefined) {
    inline(g, args(g, xs));
    return 'i32';
  }
  if (PRIMITIVES[prim] === undefined) throw new InternalError(`unknown primitive '${prim}'`);
  let index = g.imports.get(prim);
  if (index === undefined) {
    index = g.imports.size + 1;
    g.imports.set(prim, index);
  }
  for (const x of xs) ex(g, x, 'f64');
  call(g, index);
  return 'f64prim';
}

// ------------------------------------------------------------------ statements

/** Run `f` in a nested scope: names bound inside are unbound (or rebound to the outer local) after. */
function scoped(g: WGen, f: () => void): void {
  const mark = g.undo.length;
  f();
  while (g.undo.length > mark) {
    const [name, outer] = g.undo.pop() as [string, number | undefined];
    if (outer === undefined) g.scope.delete(name);
    else g.scope.set(name, outer);
  }
}

function bind(g: WGen, name: string, l: number): void {
  g.undo.push([name, g.scope.get(name)]);
  g.scope.set(name, l);
}

function declare(g: WGen, name: string, e: Expr): void {
  const l = local(g, 'i32');
  ex(g, e, 'i32');
  set(g, l);
  bind(g, name, l);
}

function event(g: WGen, access: 'load' | 'store', name: string, addr: () => void): void {
  get(g, g.logBase);
  get(g, g.fill);
  op(g, 'i32.add');
  get(g, slot(g, { k: 'header', access, name }, `${access}:${name}`));
  mem(g, 'i32.store');
  get(g, g.logBase);
  get(g, g.fill);
  op(g, 'i32.add');
  addr();
  mem(g, 'i32.store', 4);
  get(g, g.fill);
  i32c(g, 8);
  op(g, 'i32.add');
  set(g, g.fill);
}

function readEvents(g: WGen, e: Expr): void {
  if (g.mode !== 'traced') return;
  for (const r of readsOf(e)) {
    const b = g.inst.buffers[r.name];
    if (b === undefined || b.offsetBytes === null) continue;
    event(g, 'load', r.name, () => address(g, b, r.name, r.index));
  }
}

function flush(g: WGen): void {
  get(g, slot(g, { k: 'op' }, 'op'));
  get(g, g.fill);
  i32c(g, 3);
  op(g, 'i32.shr_u');
  call(g, 0);
  i32c(g, 0);
  set(g, g.fill);
}

function stmt(g: WGen, s: Stmt): void {
  switch (s.k) {
    case 'for': {
      const trips = s.from.k === 'num' && s.to.k === 'num' ? s.to.v - s.from.v : null;
      const unrolled = trips === 1 ? 1 : fullUnrollTrips(g, s);
      if (unrolled !== null && s.from.k === 'num') {
        // Straight code, one block per trip binding the variable (as the JS lowering writes it).
        for (let k = 0; k < unrolled; k++) {
          scoped(g, () => {
            const v = local(g, 'i32');
            num(g, s.from as Extract<Expr, { k: 'num' }>);
            if (k !== 0) {
              i32c(g, k);
              op(g, 'i32.add');
            }
            set(g, v);
            bind(g, s.v, v);
            nest(g, s.body);
          });
        }
        return;
      }
      const v = local(g, 'i32');
      const end = local(g, 'i32');
      ex(g, s.from, 'i32');
      set(g, v);
      ex(g, s.to, 'i32');
      set(g, end);
      g.code.push(OP.block, 0x40);
      get(g, v);
      get(g, end);
      op(g, 'i32.ge_s');
      g.code.push(OP.br_if, 0);
      g.code.push(OP.loop, 0x40);
      scoped(g, () => {
        bind(g, s.v, v);
        nest(g, s.body);
      });
      get(g, v);
      i32c(g, 1);
      op(g, 'i32.add');
      g.code.push(OP['local.tee']);
      uleb(g.code, v);
      get(g, end);
      op(g, 'i32.lt_s');
      g.code.push(OP.br_if, 0);
      op(g, 'end');
      op(g, 'end');
      return;
    }
    case 'let':
      declare(g, s.name, s.e);
      return;
    case 'val':
      readEvents(g, s.e);
      declare(g, s.name, s.e);
      return;
    case 'set': {
      readEvents(g, s.e);
      const l = g.scope.get(s.name);
      if (l === undefined) throw new InternalError(`wasm: set of unknown '${s.name}'`);
      ex(g, s.e, 'i32');
      set(g, l);
      return;
    }
    case 'if':
      ex(g, s.cond, 'i32');
      ifThen(g, false, () => scoped(g, () => nest(g, s.then)), s.else.length ? () => scoped(g, () => nest(g, s.else)) : undefined);
      return;
    case 'store': {
      const b = g.inst.buffers[s.buf];
      if (b === undefined) throw new InternalError(`unknown buffer ${s.buf}`);
      if (g.mode === 'traced') {
        readEvents(g, s.e);
        event(g, 'store', s.buf, () => address(g, b, s.buf, s.index));
      }
      address(g, b, s.buf, s.index);
      storeValue(g, b, s.e);
      return;
    }
  }
}

function storeValue(g: WGen, b: BufferBinding, e: Expr): void {
  switch (b.dtype) {
    case 'int8':
    case 'uint8':
    case 'bool':
      ex(g, e, 'i32');
      mem(g, 'i32.store8');
      return;
    case 'int16':
      ex(g, e, 'i32');
      mem(g, 'i32.store16');
      return;
    case 'int32':
      ex(g, e, 'i32');
      mem(g, 'i32.store');
      return;
    case 'float32':
      // A Float32Array store rounds the number to float32, as these conversions do.
      op(g, raw(g, e) === 'i32' ? 'f32.convert_i32_s' : 'f32.demote_f64');
      mem(g, 'f32.store');
      return;
    default:
      throw new WasmUnsupported(`store to dtype ${b.dtype}`);
  }
}

/** Statements, with a log-capacity check in front of each run of loop-free statements (traced
 * mode), exactly where the JS lowering puts them. */
function nest(g: WGen, n: Nest): void {
  if (g.mode !== 'traced' || g.covered) {
    for (const s of n) stmt(g, s);
    return;
  }
  for (let i = 0; i < n.length;) {
    const { end: j, events } = loopFreeRun(g, n, i);
    if (j === i) {
      stmt(g, n[i] as Stmt);
      i++;
      continue;
    }
    if (8 * events > LOG_BYTES) throw new InternalError(`a loop-free block of ${events} trace events exceeds the log`);
    if (events > 0) {
      get(g, g.fill);
      i32c(g, LOG_BYTES - 8 * events);
      op(g, 'i32.gt_s');
      ifThen(g, false, () => flush(g));
    }
    g.covered = true;
    for (; i < j; i++) stmt(g, n[i] as Stmt);
    g.covered = false;
  }
}

/** One instance lowered: the module's bytes (shared by instances of the same structure) and the
 * values this instance passes in. */
export interface LoweredWasm {
  readonly bytes: Uint8Array;
  readonly key: string;
  readonly slots: readonly Slot[];
  readonly imports: readonly string[];
}

export function lowerWasm(inst: KernelInstance, mode: 'fast' | 'traced'): LoweredWasm {
  const folded = foldNest(inst.nest, { ...inst.flags, ...inst.scalars }, new Set(Object.keys(inst.scalars)));
  checkNest(inst, folded, []);
  const g: WGen = {
    inst, mode, code: [], locals: [], slots: [], slotLocal: [], named: new Map(), imports: new Map(),
    scope: new Map(), undo: [], logBase: 0, fill: 0, covered: false,
  };
  if (mode === 'traced') {
    g.logBase = slot(g, { k: 'log' });
    g.fill = local(g, 'i32');
  }
  nest(g, folded);
  if (mode === 'traced') {
    get(g, g.fill);
    ifThen(g, false, () => flush(g));
  }
  const body = g.code;
  g.code = [];
  g.slotLocal.forEach((l, i) => {
    get(g, 0);
    mem(g, 'i32.load', 4 * i);
    set(g, l);
  });
  const code = g.code.concat(body);
  const imports = [...g.imports.keys()];
  const bytes = encodeModule({
    importFuncs: [
      { module: 'm', field: 'flush', type: { params: ['i32', 'i32'], results: [] } },
      ...imports.map((p) => ({ module: 'p', field: p, type: { params: Array<ValType>(PRIMITIVES[p]?.arity ?? 0).fill('f64'), results: ['f64'] as ValType[] } })),
    ],
    memory: { module: 'm', field: 'mem', minPages: 1 },
    funcs: [{ type: { params: ['i32'], results: [] }, locals: g.locals, code, export: 'run' }],
  });
  return { bytes, key: latin1(bytes), slots: g.slots, imports };
}

/** The bytes as a string of char codes 0-255 (as Node's latin1 decoding; no Buffer, so it runs in a
 * browser too), in chunks that stay under the engine's argument limit. */
function latin1(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i += 8192) s += String.fromCharCode(...bytes.subarray(i, i + 8192));
  return s;
}

/** What lowerWasm is a function of: the mode and the instance without its placement (offsets,
 * tensor ids and the op index are slots the runtime resolves; constants and arrays are in memory). */
export function loweringKey(inst: KernelInstance, mode: 'fast' | 'traced'): string {
  return `${mode}:${placementFreeKey(inst, false)}`;
}

/** Lowerings by loweringKey for this process (a refusal as its message); bounded, as a search
 * lowers candidates of many shapes. */
const LOWERED = new Map<string, LoweredWasm | string>();
const MAX_LOWERED = 2048;

/** lowerWasm's lowering of `inst`, or the message of its refusal, once per key (its loweringKey)
 * in this process: the same object for equal keys. */
export function cachedLowering(inst: KernelInstance, mode: 'fast' | 'traced', key = loweringKey(inst, mode)): LoweredWasm | string {
  let r = LOWERED.get(key);
  if (r === undefined) {
    try {
      r = lowerWasm(inst, mode);
    } catch (e) {
      if (!(e instanceof WasmUnsupported)) throw e;
      r = e.message;
    }
    if (LOWERED.size >= MAX_LOWERED) LOWERED.clear();
    LOWERED.set(key, r);
  }
  return r;
}

/** lowerWasm, once per distinct loweringKey in this process (a refusal is thrown again). */
export function lowerWasmCached(inst: KernelInstance, mode: 'fast' | 'traced'): LoweredWasm {
  const r = cachedLowering(inst, mode);
  if (typeof r === 'string') throw new WasmUnsupported(r);
  return r;
}
