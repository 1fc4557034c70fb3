// A kernel instance: one prepared nest with its params and buffer bindings (arena offset or
// constant bytes), ready for any lowering. Also the shared nest passes every lowering runs first:
// folding of inlined params and the check that bounds, conditions and addresses never depend on
// loaded data (what makes the address-only walk exact).
import type { DType } from '../ir/index.ts';
import { DTYPE_BYTES, InternalError } from '../ir/index.ts';
import type { BinOp, Expr, Nest, Stmt } from './nest.ts';
import { namesOf, readsOf } from './nest.ts';
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

/** Substitute `consts` and fold constant subexpressions and neutral elements. */
export function foldExpr(e: Expr, consts: Readonly<Record<string, number>>): Expr {
  switch (e.k) {
    case 'num':
      return e;
    case 'name': {
      const v = consts[e.name];
      return v === undefined ? e : { k: 'num', v };
    }
    case 'neg': {
      const a = foldExpr(e.a, consts);
      return a.k === 'num' ? { k: 'num', v: i32(-a.v) } : { k: 'neg', a };
    }
    case 'not': {
      const a = foldExpr(e.a, consts);
      return a.k === 'num' ? { k: 'num', v: a.v === 0 ? 1 : 0 } : { k: 'not', a };
    }
    case 'call':
      return { k: 'call', prim: e.prim, args: e.args.map((x) => foldExpr(x, consts)) };
    case 'index':
      return { k: 'index', name: e.name, index: foldExpr(e.index, consts) };
    case 'bin': {
      const a = foldExpr(e.a, consts);
      const b = foldExpr(e.b, consts);
      if (a.k === 'num' && b.k === 'num') {
        const v = evalBin(e.op, a.v, b.v);
        if (v !== null) return { k: 'num', v };
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

export function foldNest(nest: Nest, consts: Readonly<Record<string, number>>): Nest {
  const out: Stmt[] = [];
  for (const s of nest) {
    switch (s.k) {
      case 'for': {
        const from = foldExpr(s.from, consts);
        const to = foldExpr(s.to, consts);
        if (from.k === 'num' && to.k === 'num' && from.v >= to.v) break;
        out.push({ ...s, from, to, body: foldNest(s.body, consts) });
        break;
      }
      case 'let':
      case 'val':
      case 'set':
        out.push({ ...s, e: foldExpr(s.e, consts) });
        break;
      case 'if': {
        const cond = foldExpr(s.cond, consts);
        if (cond.k === 'num') out.push(...foldNest(cond.v !== 0 ? s.then : s.else, consts));
        else out.push({ k: 'if', cond, then: foldNest(s.then, consts), else: foldNest(s.else, consts) });
        break;
      }
      case 'store':
        out.push({ ...s, index: foldExpr(s.index, consts), e: foldExpr(s.e, consts) });
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
