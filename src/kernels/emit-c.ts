// C99 emitter reading the same nest as the JS executors. Calling convention (one choice, used by
// the C port): every kernel is `void NAME(const int32_t* p, <int32 arrays>, <tensor pointers>)`;
// scalar params come from `p` in `paramNames` order, arrays (multipliers, shifts) and tensors are
// passed as pointers in the order listed. Flags (structure) are folded, so identical op shapes and
// variants share one function: emitCUnit dedupes identical bodies and emits only used primitives.
import type { DType } from '../ir/index.ts';
import { InternalError } from '../ir/index.ts';
import type { BufferBinding, KernelInstance } from './instance.ts';
import { checkNest, foldNest } from './instance.ts';
import type { Expr, Nest } from './nest.ts';
import { namesOf, readsOf } from './nest.ts';
import { primitiveClosure } from './primitives.ts';

export interface CBufferArg {
  readonly name: string;
  readonly ctype: string;
  readonly isConst: boolean;
  readonly binding: BufferBinding;
}

export interface CKernel {
  /** The function definition; its name is the placeholder `@NAME@`. */
  readonly text: string;
  readonly prims: readonly string[];
  readonly paramNames: readonly string[];
  readonly params: readonly number[];
  readonly arrays: readonly { readonly name: string; readonly values: Int32Array }[];
  readonly buffers: readonly CBufferArg[];
}

export interface CUnit {
  /** Includes, the used primitives and the deduplicated kernel functions. */
  readonly source: string;
  /** The function name each input kernel calls. */
  readonly functionNames: readonly string[];
}

const C_TYPES: Partial<Record<DType, string>> = {
  int8: 'int8_t', uint8: 'uint8_t', int16: 'int16_t', uint16: 'uint16_t', int32: 'int32_t',
  uint32: 'uint32_t', float32: 'float', bool: 'int8_t',
};

export function cType(dtype: DType): string {
  const t = C_TYPES[dtype];
  if (t === undefined) throw new InternalError(`no C type for ${dtype}`);
  return t;
}

function num(v: number): string {
  if (v === -2147483648) return '(-2147483647 - 1)';
  return v < 0 ? `(${v})` : String(v);
}

/** Every name and buffer referenced anywhere in a nest. */
function usedNames(n: Nest, out: Set<string> = new Set()): Set<string> {
  const add = (e: Expr): void => {
    for (const x of namesOf(e)) out.add(x);
    for (const r of readsOf(e)) out.add(r.name);
  };
  for (const s of n) {
    switch (s.k) {
      case 'for': add(s.from); add(s.to); usedNames(s.body, out); break;
      case 'let': case 'val': case 'set': add(s.e); break;
      case 'if': add(s.cond); usedNames(s.then, out); usedNames(s.else, out); break;
      case 'store': out.add(s.buf); add(s.index); add(s.e); break;
    }
  }
  return out;
}

export function emitCKernel(inst: KernelInstance): CKernel {
  const folded = foldNest(inst.nest, inst.flags);
  checkNest(inst, folded, Object.keys(inst.scalars));
  const used = usedNames(folded);
  const scalars = new Set(Object.keys(inst.scalars).filter((n) => used.has(n)));
  const prims = new Set<string>();
  let tmp = 0;
  const expr = (e: Expr): string => {
    switch (e.k) {
      case 'num': return num(e.v);
      case 'name': return scalars.has(e.name) ? `s_${e.name}` : `v_${e.name}`;
      case 'neg': return `(-${expr(e.a)})`;
      case 'not': return `(!${expr(e.a)})`;
      case 'call':
        prims.add(e.prim);
        return `mcu_${e.prim}(${e.args.map(expr).join(', ')})`;
      case 'index':
        return `${inst.arrays[e.name] !== undefined ? 'a' : 'b'}_${e.name}[${expr(e.index)}]`;
      case 'bin':
        return `(${expr(e.a)} ${e.op} ${expr(e.b)})`;
    }
  };
  const body = (n: Nest, ind: string): string =>
    n
      .map((s) => {
        switch (s.k) {
          case 'for': {
            const end = `e${tmp++}`;
            return `${ind}for (int32_t v_${s.v} = ${expr(s.from)}, ${end} = ${expr(s.to)}; v_${s.v} < ${end}; ++v_${s.v}) {\n${body(s.body, ind + '  ')}${ind}}\n`;
          }
          case 'let':
            return used.has(s.name) ? `${ind}const int32_t v_${s.name} = ${expr(s.e)};\n` : '';
          case 'val':
            return `${ind}int32_t v_${s.name} = ${expr(s.e)};\n`;
          case 'set':
            return `${ind}v_${s.name} = ${expr(s.e)};\n`;
          case 'if': {
            const els = s.else.length ? ` else {\n${body(s.else, ind + '  ')}${ind}}` : '';
            return `${ind}if (${expr(s.cond)}) {\n${body(s.then, ind + '  ')}${ind}}${els}\n`;
          }
          case 'store': {
            const b = inst.buffers[s.buf];
            if (b === undefined) throw new InternalError(`unknown buffer ${s.buf}`);
            return `${ind}b_${s.buf}[${expr(s.index)}] = (${cType(b.dtype)})(${expr(s.e)});\n`;
          }
        }
      })
      .join('');
  const code = body(folded, '  ');
  const paramNames = [...scalars].sort();
  const arrays = Object.keys(inst.arrays).filter((n) => used.has(n)).sort();
  const stored = new Set<string>();
  const findStores = (n: Nest): void => {
    for (const s of n) {
      if (s.k === 'store') stored.add(s.buf);
      else if (s.k === 'for') findStores(s.body);
      else if (s.k === 'if') (findStores(s.then), findStores(s.else));
    }
  };
  findStores(folded);
  const buffers: CBufferArg[] = Object.keys(inst.buffers)
    .filter((n) => used.has(n))
    .sort()
    .map((name) => {
      const binding = inst.buffers[name] as BufferBinding;
      return { name, ctype: cType(binding.dtype), isConst: !stored.has(name), binding };
    });
  const args = [
    'const int32_t* p',
    ...arrays.map((a) => `const int32_t* a_${a}`),
    ...buffers.map((b) => `${b.isConst ? 'const ' : ''}${b.ctype}* b_${b.name}`),
  ];
  const unpack = paramNames.map((n, i) => `  const int32_t s_${n} = p[${i}];\n`).join('');
  const text = `void @NAME@(${args.join(', ')}) {\n${paramNames.length ? unpack : '  (void)p;\n'}${code}}\n`;
  return {
    text,
    prims: [...prims],
    paramNames,
    params: paramNames.map((n) => inst.scalars[n] ?? 0),
    arrays: arrays.map((name) => ({ name, values: inst.arrays[name] as Int32Array })),
    buffers,
  };
}

/** One C translation unit for several kernels; identical bodies become one function. */
export function emitCUnit(kernels: readonly CKernel[], prefix = 'mcusim_kernel'): CUnit {
  const byText = new Map<string, string>();
  const functionNames: string[] = [];
  const fns: string[] = [];
  for (const k of kernels) {
    let name = byText.get(k.text);
    if (name === undefined) {
      name = `${prefix}_${byText.size}`;
      byText.set(k.text, name);
      fns.push(k.text.replace('@NAME@', name));
    }
    functionNames.push(name);
  }
  const prims = primitiveClosure(kernels.flatMap((k) => k.prims)).map((p) => p.c);
  const source = `#include <stdint.h>\n\n${prims.join('\n')}\n\n${fns.join('\n')}`;
  return { source, functionNames };
}
