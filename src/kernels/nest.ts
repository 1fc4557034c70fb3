// The loop-nest IR every kernel body is written in (DESIGN.md §2): statements (for / let / val /
// set / if / store) over int32 expressions, parsed once from a small C-like expression syntax so
// a spec reads like the TFLM reference loop it mirrors. Lowerings (JS, traced JS, address walk,
// C, cost counts) read this data; nothing here executes it.
import { InternalError } from '../ir/index.ts';

export type BinOp = '+' | '-' | '*' | '/' | '%' | '<' | '<=' | '>' | '>=' | '==' | '!=' | '&&' | '||';

/** An int32 expression. `index` reads a buffer (tensor or scratch) or an array param by name. */
export type Expr =
  /** `p`: derived from op params when folded (the JS lowering passes it in instead of inlining it). */
  | { readonly k: 'num'; readonly v: number; readonly p?: true }
  | { readonly k: 'name'; readonly name: string }
  | { readonly k: 'bin'; readonly op: BinOp; readonly a: Expr; readonly b: Expr }
  | { readonly k: 'neg'; readonly a: Expr }
  | { readonly k: 'not'; readonly a: Expr }
  | { readonly k: 'call'; readonly prim: string; readonly args: readonly Expr[] }
  | { readonly k: 'index'; readonly name: string; readonly index: Expr };

/** Statement tags feed the cost counts (a `mac` set counts one multiply-accumulate). */
export type StmtTag = 'mac';

export type Stmt =
  /** for (v = from; v < to; v++) */
  | { readonly k: 'for'; readonly v: string; readonly from: Expr; readonly to: Expr; readonly body: Nest }
  /** Immutable index value (addresses, bounds); must not depend on loaded data. */
  | { readonly k: 'let'; readonly name: string; readonly e: Expr }
  /** Mutable data value (accumulators, loaded values); dropped by the address walk. */
  | { readonly k: 'val'; readonly name: string; readonly e: Expr; readonly tag?: StmtTag }
  | { readonly k: 'set'; readonly name: string; readonly e: Expr; readonly tag?: StmtTag }
  /** Branch on index values only (bounds checks); never on loaded data. */
  | { readonly k: 'if'; readonly cond: Expr; readonly then: Nest; readonly else: Nest }
  | { readonly k: 'store'; readonly buf: string; readonly index: Expr; readonly e: Expr };

export type Nest = readonly Stmt[];

// ---------------------------------------------------------------- builders (parse once)

export function For(v: string, from: string, to: string, body: Nest): Stmt {
  return { k: 'for', v, from: parseExpr(from), to: parseExpr(to), body };
}
export function Let(name: string, e: string): Stmt {
  return { k: 'let', name, e: parseExpr(e) };
}
export function Val(name: string, e: string, tag?: StmtTag): Stmt {
  return tag ? { k: 'val', name, e: parseExpr(e), tag } : { k: 'val', name, e: parseExpr(e) };
}
export function Set(name: string, e: string, tag?: StmtTag): Stmt {
  return tag ? { k: 'set', name, e: parseExpr(e), tag } : { k: 'set', name, e: parseExpr(e) };
}
export function If(cond: string, then: Nest, otherwise: Nest = []): Stmt {
  return { k: 'if', cond: parseExpr(cond), then, else: otherwise };
}
export function Store(buf: string, index: string, e: string): Stmt {
  return { k: 'store', buf, index: parseExpr(index), e: parseExpr(e) };
}

// ---------------------------------------------------------------- expression parser

const TOKEN = /\s*(?:(\d+)|([A-Za-z_][A-Za-z0-9_]*)|(&&|\|\||<=|>=|==|!=|[-+*/%<>()[\],!]))/y;

/** The expressions the CLI bundles start with: every text the kernel specs parse when their modules
 * load, parsed by scripts/build.mjs and written at the top of each bundle that has the kernels (a
 * `var` of the bundle's scope). Absent outside the bundles (the library import, the tests). */
declare const __mcusimParsedExprs: Readonly<Record<string, Expr>> | undefined;

/** Parsed expressions by text: a text is parsed once per process (the specs' 700 parses at load
 * are of 250 texts), and a bundle's texts are not parsed at all: at load, each thread spent ~8 ms
 * parsing and V8 another ~0.1 s of a background thread optimizing the parser, which `verify --jobs`
 * startup shares the two cores with. Shared trees are safe: nothing mutates an Expr. */
const PARSED = new Map<string, Expr>(typeof __mcusimParsedExprs === 'object' ? Object.entries(__mcusimParsedExprs) : []);

/** Parse `a*b + f(x, y[i])` style integer expressions (once per text: PARSED). Throws InternalError (specs are code). */
export function parseExpr(src: string): Expr {
  let e = PARSED.get(src);
  if (e === undefined) {
    e = parseText(src);
    PARSED.set(src, e);
  }
  return e;
}

/** Every expression parsed so far in this process, by text (what scripts/build.mjs writes into the bundles). */
export function parsedExprs(): ReadonlyMap<string, Expr> {
  return PARSED;
}

/** Parse one expression's text, always anew (parseExpr keeps the results). */
export function parseText(src: string): Expr {
  const toks: string[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < src.length) {
    if (/^\s*$/.test(src.slice(TOKEN.lastIndex))) break;
    const m = TOKEN.exec(src);
    if (!m) throw new InternalError(`nest: cannot tokenize '${src}' at ${TOKEN.lastIndex}`);
    toks.push((m[1] ?? m[2] ?? m[3]) as string);
  }
  let pos = 0;
  const peek = (): string | undefined => toks[pos];
  const take = (t?: string): string => {
    const x = toks[pos++];
    if (x === undefined || (t !== undefined && x !== t)) throw new InternalError(`nest: expected '${t ?? 'token'}' in '${src}'`);
    return x;
  };
  const levels: readonly (readonly BinOp[])[] = [['||'], ['&&'], ['==', '!=', '<', '<=', '>', '>='], ['+', '-'], ['*', '/', '%']];
  const binary = (lvl: number): Expr => {
    const ops = levels[lvl];
    if (ops === undefined) return unary();
    let a = binary(lvl + 1);
    for (let t = peek(); t !== undefined && (ops as readonly string[]).includes(t); t = peek()) {
      take();
      a = { k: 'bin', op: t as BinOp, a, b: binary(lvl + 1) };
    }
    return a;
  };
  const unary = (): Expr => {
    if (peek() === '-') return take(), { k: 'neg', a: unary() };
    if (peek() === '!') return take(), { k: 'not', a: unary() };
    return primary();
  };
  const primary = (): Expr => {
    const t = take();
    if (t === '(') {
      const e = binary(0);
      take(')');
      return e;
    }
    if (/^\d/.test(t)) return { k: 'num', v: Number(t) };
    if (!/^[A-Za-z_]/.test(t)) throw new InternalError(`nest: unexpected '${t}' in '${src}'`);
    if (peek() === '(') {
      take('(');
      const args: Expr[] = [];
      if (peek() !== ')') {
        args.push(binary(0));
        while (peek() === ',') take(), args.push(binary(0));
      }
      take(')');
      return { k: 'call', prim: t, args };
    }
    if (peek() === '[') {
      take('[');
      const index = binary(0);
      take(']');
      return { k: 'index', name: t, index };
    }
    return { k: 'name', name: t };
  };
  const e = binary(0);
  if (pos !== toks.length) throw new InternalError(`nest: trailing tokens in '${src}'`);
  return e;
}

/** Buffer/array reads of an expression in left-to-right evaluation order. */
export function readsOf(e: Expr, out: Extract<Expr, { k: 'index' }>[] = []): Extract<Expr, { k: 'index' }>[] {
  switch (e.k) {
    case 'num':
    case 'name':
      return out;
    case 'bin':
      readsOf(e.a, out);
      return readsOf(e.b, out);
    case 'neg':
    case 'not':
      return readsOf(e.a, out);
    case 'call':
      for (const a of e.args) readsOf(a, out);
      return out;
    case 'index':
      readsOf(e.index, out);
      out.push(e);
      return out;
  }
}

/** Primitive names called anywhere in an expression. */
export function callsOf(e: Expr, out: string[] = []): string[] {
  switch (e.k) {
    case 'num':
    case 'name':
      return out;
    case 'bin':
      callsOf(e.a, out);
      return callsOf(e.b, out);
    case 'neg':
    case 'not':
      return callsOf(e.a, out);
    case 'call':
      out.push(e.prim);
      for (const a of e.args) callsOf(a, out);
      return out;
    case 'index':
      return callsOf(e.index, out);
  }
}

/** Names referenced by an expression (not buffers). */
export function namesOf(e: Expr, out: string[] = []): string[] {
  switch (e.k) {
    case 'num':
      return out;
    case 'name':
      out.push(e.name);
      return out;
    case 'bin':
      namesOf(e.a, out);
      return namesOf(e.b, out);
    case 'neg':
    case 'not':
      return namesOf(e.a, out);
    case 'call':
      for (const a of e.args) namesOf(a, out);
      return out;
    case 'index':
      return namesOf(e.index, out);
  }
}

// ---------------------------------------------------------------- identity (cache keys)

/** Nest ids: one per distinct nest (by object, then by its JSON text), so cache keys stay short. */
const NEST_IDS = new WeakMap<object, number>();
const NEST_TEXT_IDS = new Map<string, number>();
const MAX_NEST_TEXTS = 4096;
let nextNestId = 0;

/** A number naming `nest`'s content in this process: equal nests get the same id (unless the
 * text table was cleared since, which costs a cache miss, never a collision: ids are not reused). */
export function nestId(nest: Nest): number {
  let id = NEST_IDS.get(nest);
  if (id === undefined) {
    const text = JSON.stringify(nest);
    id = NEST_TEXT_IDS.get(text);
    if (id === undefined) {
      if (NEST_TEXT_IDS.size >= MAX_NEST_TEXTS) NEST_TEXT_IDS.clear();
      id = nextNestId++;
      NEST_TEXT_IDS.set(text, id);
    }
    NEST_IDS.set(nest, id);
  }
  return id;
}
