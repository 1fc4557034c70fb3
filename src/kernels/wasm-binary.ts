// A minimal WebAssembly binary writer: the opcodes, LEB128 numbers and sections the kernel lowering
// (lower-wasm.ts) uses, nothing else. Spec: https://webassembly.github.io/spec/core/binary/.

export type ValType = 'i32' | 'i64' | 'f32' | 'f64';

const VAL: Readonly<Record<ValType, number>> = { i32: 0x7f, i64: 0x7e, f32: 0x7d, f64: 0x7c };

/** Opcodes by the spec's instruction names. */
export const OP = {
  unreachable: 0x00, block: 0x02, loop: 0x03, if: 0x04, else: 0x05, end: 0x0b, br: 0x0c, br_if: 0x0d,
  return: 0x0f, call: 0x10, drop: 0x1a, select: 0x1b,
  'local.get': 0x20, 'local.set': 0x21, 'local.tee': 0x22,
  'i32.load': 0x28, 'f32.load': 0x2a, 'i32.load8_s': 0x2c, 'i32.load8_u': 0x2d, 'i32.load16_s': 0x2e, 'i32.load16_u': 0x2f,
  'i32.store': 0x36, 'f32.store': 0x38, 'i32.store8': 0x3a, 'i32.store16': 0x3b,
  'i32.const': 0x41, 'i64.const': 0x42,
  'i32.eqz': 0x45, 'i32.eq': 0x46, 'i32.ne': 0x47, 'i32.lt_s': 0x48, 'i32.lt_u': 0x49, 'i32.gt_s': 0x4a, 'i32.le_s': 0x4c, 'i32.ge_s': 0x4e, 'i32.ge_u': 0x4f,
  'i64.lt_s': 0x53, 'i64.ge_s': 0x59,
  'i32.add': 0x6a, 'i32.sub': 0x6b, 'i32.mul': 0x6c, 'i32.div_s': 0x6d, 'i32.rem_s': 0x6f,
  'i32.and': 0x71, 'i32.or': 0x72, 'i32.xor': 0x73, 'i32.shl': 0x74, 'i32.shr_s': 0x75, 'i32.shr_u': 0x76,
  'i64.add': 0x7c, 'i64.sub': 0x7d, 'i64.mul': 0x7e, 'i64.div_s': 0x7f, 'i64.and': 0x83, 'i64.shr_s': 0x87,
  'i32.wrap_i64': 0xa7, 'i64.extend_i32_s': 0xac, 'f32.convert_i32_s': 0xb2, 'f32.demote_f64': 0xb6,
  'f64.convert_i32_s': 0xb7, 'f64.promote_f32': 0xbb,
} as const;

export type OpName = keyof typeof OP;

/** Unsigned LEB128. */
export function uleb(out: number[], v: number): void {
  do {
    let b = v & 0x7f;
    v = Math.floor(v / 128);
    if (v !== 0) b |= 0x80;
    out.push(b);
  } while (v !== 0);
}

/** Signed LEB128 of an int32 or int64-range integer given as a bigint or safe number. */
export function sleb(out: number[], value: number | bigint): void {
  let v = BigInt(value);
  for (;;) {
    const b = Number(v & 0x7fn);
    v >>= 7n;
    if ((v === 0n && (b & 0x40) === 0) || (v === -1n && (b & 0x40) !== 0)) {
      out.push(b);
      return;
    }
    out.push(b | 0x80);
  }
}

function vec(out: number[], items: readonly (readonly number[])[]): void {
  uleb(out, items.length);
  for (const x of items) out.push(...x);
}

function section(out: number[], id: number, body: readonly number[]): void {
  out.push(id);
  uleb(out, body.length);
  for (const b of body) out.push(b);
}

function name(s: string): number[] {
  const bytes = [...new TextEncoder().encode(s)];
  const out: number[] = [];
  uleb(out, bytes.length);
  return out.concat(bytes);
}

export interface FuncType {
  readonly params: readonly ValType[];
  readonly results: readonly ValType[];
}

export interface ModuleSpec {
  /** Imported functions (module, field, type), in function-index order before the defined ones. */
  readonly importFuncs: readonly { readonly module: string; readonly field: string; readonly type: FuncType }[];
  /** The one imported memory (module, field, minimum pages). */
  readonly memory: { readonly module: string; readonly field: string; readonly minPages: number };
  /** Defined functions: type, extra locals (after the params), body code without the final `end`. */
  readonly funcs: readonly { readonly type: FuncType; readonly locals: readonly ValType[]; readonly code: readonly number[]; readonly export?: string }[];
}

/** The module's binary encoding. */
export function encodeModule(m: ModuleSpec): Uint8Array {
  const types: string[] = [];
  const typeIndex = (t: FuncType): number => {
    const key = `${t.params.join(',')}>${t.results.join(',')}`;
    let i = types.indexOf(key);
    if (i < 0) i = types.push(key) - 1;
    return i;
  };
  const imports = m.importFuncs.map((f) => [...name(f.module), ...name(f.field), 0x00, ...ulebBytes(typeIndex(f.type))]);
  imports.push([...name(m.memory.module), ...name(m.memory.field), 0x02, 0x00, ...ulebBytes(m.memory.minPages)]);
  const funcs = m.funcs.map((f) => ulebBytes(typeIndex(f.type)));
  const exports: number[][] = [];
  m.funcs.forEach((f, i) => {
    if (f.export !== undefined) exports.push([...name(f.export), 0x00, ...ulebBytes(m.importFuncs.length + i)]);
  });
  // Function bodies: local declarations, then the code (copied once, as a typed array, below).
  const bodies = m.funcs.map((f) => {
    const groups: [number, ValType][] = [];
    for (const t of f.locals) {
      const last = groups[groups.length - 1];
      if (last !== undefined && last[1] === t) last[0]++;
      else groups.push([1, t]);
    }
    const head: number[] = [];
    vec(head, groups.map(([n, t]) => [...ulebBytes(n), VAL[t]]));
    const size = head.length + f.code.length + 1;
    return { prefix: [...ulebBytes(size), ...head], code: f.code };
  });
  const typeEntries = types.map((key) => {
    const [p = '', r = ''] = key.split('>');
    const ps = p === '' ? [] : (p.split(',') as ValType[]);
    const rs = r === '' ? [] : (r.split(',') as ValType[]);
    const out = [0x60];
    vec(out, ps.map((t) => [VAL[t]]));
    vec(out, rs.map((t) => [VAL[t]]));
    return out;
  });
  const head: number[] = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];
  const sec = (id: number, items: readonly (readonly number[])[]): void => {
    const body: number[] = [];
    vec(body, items);
    section(head, id, body);
  };
  sec(1, typeEntries);
  sec(2, imports);
  sec(3, funcs);
  sec(7, exports);
  const codeCount: number[] = [];
  uleb(codeCount, bodies.length);
  const codeSize = bodies.reduce((a, b) => a + b.prefix.length + b.code.length + 1, codeCount.length);
  head.push(10);
  uleb(head, codeSize);
  for (const b of codeCount) head.push(b);
  const out = new Uint8Array(head.length + codeSize - codeCount.length);
  out.set(head);
  let at = head.length;
  for (const b of bodies) {
    out.set(b.prefix, at);
    at += b.prefix.length;
    out.set(b.code, at);
    at += b.code.length;
    out[at++] = OP.end;
  }
  return out;
}

function ulebBytes(v: number): number[] {
  const out: number[] = [];
  uleb(out, v);
  return out;
}
