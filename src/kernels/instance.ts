// A kernel instance: one prepared nest with its params and buffer bindings (arena offset or
// constant bytes), ready for any lowering. Also the shared nest passes every lowering runs first:
// folding of inlined params and the check that bounds, conditions and addresses never depend on
// loaded data (what makes the address-only walk exact).
import type { DType } from '../ir/index.ts';
import { DTYPE_BYTES, InternalError } from '../ir/index.ts';
import type { BinOp, Expr, Nest, Stmt } from './nest.ts';
import { namesOf, nestId, readsOf } from './nest.ts';
import { PRIMITIVES } from './primitives.ts';

export interface BufferBinding {
  readonly dtype: DType;
  /** Absolute arena byte offset; null for a constant in the read-only model region. */
  readonly offsetBytes: number | null;
  /** Constant bytes (little-endian) when offsetBytes is null. */
  readonly data: Uint8Array | null;
  /** Tensor index, or -(k+1) for scratch buffer k: the id reported in trace events. */
  readonly id: number;
  readonly sizeBytes: number;
  /**
   * 'storage': a read-only buffer in the storage device's memory-mapped region (TinySeg's spilled
   * slot); `offsetBytes` is then its device address. Absent: the arena (or a constant).
   */
  readonly region?: 'storage';
}

export interface KernelInstance {
  /** Used to name emitted C functions (op kind). */
  readonly name: string;
  readonly opIndex: number;
  readonly nest: Nest;
  /** Folded into every lowering (structure, e.g. hasBias). */
  readonly flags: Readonly<Record<string, number>>;
  /** Literals in JS; the params array in C. */
  readonly scalars: Readonly<Record<string, number>>;
  readonly arrays: Readonly<Record<string, Int32Array>>;
  readonly buffers: Readonly<Record<string, BufferBinding>>;
}

/**
 * An instance without its placement, as cache-key text: the nest (by content), flags, scalars and
 * each buffer's name, type and kind (arena, constant, storage) and the arrays' names; never
 * offsets, tensor ids, the op index or constant bytes. `withData` adds each buffer's size and the
 * arrays' contents, which a cost walk may read (loop bounds) and a lowering never does.
 */
export function placementFreeKey(inst: KernelInstance, withData: boolean): string {
  const buffers = Object.entries(inst.buffers).map(([k, b]) => {
    const kind = b.offsetBytes === null ? 'const' : (b.region ?? 'arena');
    return withData ? [k, b.dtype, kind, b.sizeBytes] : [k, b.dtype, kind];
  });
  const arrays = withData ? Object.entries(inst.arrays).map(([k, a]) => [k, a.join(',')]) : Object.keys(inst.arrays);
  return JSON.stringify([inst.name, nestId(inst.nest), inst.flags, inst.scalars, buffers, arrays]);
}

export function elementBytes(dtype: DType): number {
  return DTYPE_BYTES[dtype];
}

const i32 = (x: number): number => x | 0;

function evalBin(op: BinOp, a: number, b: number): number | null {
  switch (op) {
    case '+': return i32(a + b);
    case '-': return i32(a - b);
    case '*': return Math.imul(a, b);
    case '/': return b === 0 ? null : i32(a / b);
    case '%': return b === 0 ? null : i32(a % b);
    case '<': return a < b ? 1 : 0;
    case '<=': return a <= b ? 1 : 0;
    case '>': return a > b ? 1 : 0;
    case '>=': return a >= b ? 1 : 0;
    case '==': return a === b ? 1 : 0;
    case '!=': return a !== b ? 1 : 0;
    case '&&': return a !== 0 && b !== 0 ? 1 : 0;
    case '||': return a !== 0 || b !== 0 ? 1 : 0;
  }
}

const NO_PARAMS: ReadonlySet<string> = new globalThis.Set();

/** A folded number, param-derived when any operand was. */
const num = (v: number, p: boolean): Expr => (p ? { k: 'num', v, p: true } : { k: 'num', v });

/**
 * Substitute `consts` and fold constant subexpressions and neutral elements. Numbers substituted
 * for names in `params`, and numbers folded from them, are marked param-derived (`p`).
 */
export function foldExpr(e: Expr, consts: Readonly<Record<string, number>>, params: ReadonlySet<string> = NO_PARAMS): Expr {
  const f = (x: Expr): Expr => foldExpr(x, consts, params);
  switch (e.k) {
    case 'num':
      return e;
    case 'name': {
      const v = consts[e.name];
      return v === undefined ? e : num(v, params.has(e.name));
    }
    case 'neg': {
      const a = f(e.a);
      return a.k === 'num' ? num(i32(-a.v), a.p === true) : { k: 'neg', a };
    }
    case 'not': {
      const a = f(e.a);
      return a.k === 'num' ? num(a.v === 0 ? 1 : 0, a.p === true) : { k: 'not', a };
    }
    case 'call':
      return { k: 'call', prim: e.prim, args: e.args.map(f) };
    case 'index':
      return { k: 'index', name: e.name, index: f(e.index) };
    case 'bin': {
      const a = f(e.a);
      const b = f(e.b);
      if (a.k === 'num' && b.k === 'num') {
        const v = evalBin(e.op, a.v, b.v);
        if (v !== null) return num(v, a.p === true || b.p === true);
      }
      const an = a.k === 'num' ? a.v : null;
      const bn = b.k === 'num' ? b.v : null;
      if (e.op === '+' && an === 0) return b;
      if ((e.op === '+' || e.op === '-') && bn === 0) return a;
      if (e.op === '*' && an === 1) return b;
      if ((e.op === '*' || e.op === '/') && bn === 1) return a;
      if (e.op === '*' && (an === 0 || bn === 0) && readsOf(e).length === 0) return { k: 'num', v: 0 };
      if (e.op === '&&' && an !== null) return an === 0 ? { k: 'num', v: 0 } : b;
      if (e.op === '||' && an !== null) return an !== 0 ? { k: 'num', v: 1 } : b;
      return { k: 'bin', op: e.op, a, b };
    }
  }
}

/** foldExpr over a nest; loops folded to no trips and branches with folded conditions disappear. */
export function foldNest(nest: Nest, consts: Readonly<Record<string, number>>, params: ReadonlySet<string> = NO_PARAMS): Nest {
  const fe = (e: Expr): Expr => foldExpr(e, consts, params);
  const out: Stmt[] = [];
  for (const s of nest) {
    switch (s.k) {
      case 'for': {
        const from = fe(s.from);
        const to = fe(s.to);
        if (from.k === 'num' && to.k === 'num' && from.v >= to.v) break;
        out.push({ ...s, from, to, body: foldNest(s.body, consts, params) });
        break;
      }
      case 'let':
      case 'val':
      case 'set':
        out.push({ ...s, e: fe(s.e) });
        break;
      case 'if': {
        const cond = fe(s.cond);
        if (cond.k === 'num') out.push(...foldNest(cond.v !== 0 ? s.then : s.else, consts, params));
        else out.push({ k: 'if', cond, then: foldNest(s.then, consts, params), else: foldNest(s.else, consts, params) });
        break;
      }
      case 'store':
        out.push({ ...s, index: fe(s.index), e: fe(s.e) });
        break;
    }
  }
  return out;
}

type NameKind = 'index' | 'value';

/**
 * Check names resolve and that everything the address walk keeps (loop bounds, lets, conditions,
 * read/store indices) depends only on indices, params and constant arrays, never on loaded data.
 */
export function checkNest(inst: KernelInstance, nest: Nest, scalarNames: readonly string[]): void {
  const fail = (msg: string): never => {
    throw new InternalError(`kernel ${inst.name} (op ${inst.opIndex}): ${msg}`);
  };
  const params = new globalThis.Set([...scalarNames, ...Object.keys(inst.flags)]);
  const checkExpr = (e: Expr, scope: ReadonlyMap<string, NameKind>, indexOnly: boolean, what: string): void => {
    for (const n of namesOf(e)) {
      const k = scope.get(n);
      if (k === undefined && !params.has(n)) fail(`unknown name '${n}' in ${what}`);
      if (indexOnly && k === 'value') fail(`${what} depends on data value '${n}'`);
    }
    for (const r of readsOf(e)) {
      const isBuf = inst.buffers[r.name] !== undefined;
      if (!isBuf && inst.arrays[r.name] === undefined) fail(`unknown buffer or array '${r.name}' in ${what}`);
      if (indexOnly && isBuf) fail(`${what} depends on loaded data from '${r.name}'`);
      // A constant array (a lookup table) read inside a data value may be indexed by data: it is
      // not arena memory, so the address walk never evaluates it.
      checkExpr(r.index, scope, indexOnly || isBuf, `index of ${r.name}`);
    }
    const calls = (x: Expr): void => {
      if (x.k === 'call') {
        const p = PRIMITIVES[x.prim];
        if (p === undefined) fail(`unknown primitive '${x.prim}'`);
        else if (p.arity !== x.args.length) fail(`primitive '${x.prim}' takes ${p.arity} arguments`);
        x.args.forEach(calls);
      } else if (x.k === 'bin') (calls(x.a), calls(x.b));
      else if (x.k === 'neg' || x.k === 'not') calls(x.a);
      else if (x.k === 'index') calls(x.index);
    };
    calls(e);
  };
  const walk = (n: Nest, outer: ReadonlyMap<string, NameKind>): void => {
    const scope = new Map(outer);
    for (const s of n) {
      switch (s.k) {
        case 'for':
          checkExpr(s.from, scope, true, `bound of loop ${s.v}`);
          checkExpr(s.to, scope, true, `bound of loop ${s.v}`);
          walk(s.body, new Map([...scope, [s.v, 'index']]));
          break;
        case 'let':
          checkExpr(s.e, scope, true, `let ${s.name}`);
          scope.set(s.name, 'index');
          break;
        case 'val':
          checkExpr(s.e, scope, false, `val ${s.name}`);
          scope.set(s.name, 'value');
          break;
        case 'set':
          if (scope.get(s.name) !== 'value') fail(`set of '${s.name}' which is not a val`);
          checkExpr(s.e, scope, false, `set ${s.name}`);
          break;
        case 'if':
          checkExpr(s.cond, scope, true, 'condition');
          walk(s.then, scope);
          walk(s.else, scope);
          break;
        case 'store': {
          const b = inst.buffers[s.buf];
          if (b === undefined) fail(`store to unknown buffer '${s.buf}'`);
          else if (b.offsetBytes === null) fail(`store to constant buffer '${s.buf}'`);
          else if (b.region === 'storage') fail(`store to read-only storage buffer '${s.buf}'`);
          checkExpr(s.index, scope, true, `index of store to ${s.buf}`);
          checkExpr(s.e, scope, false, `value stored to ${s.buf}`);
          break;
        }
      }
    }
  };
  walk(nest, new Map());
}
