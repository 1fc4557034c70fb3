// The fixed-point primitives of the math kernels (primitives-math.ts): the int16 helpers exact
// against direct definitions of gemmlowp / hard_swish.h (including the int16 mask of
// RoundingDivideByPOT from exponent 16 on), tanh / log / inverse square root accurate against real
// math, and the C text equal to the JS text under UBSan on seeded inputs of each one's domain.
import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import { primitiveClosure, primitiveFunctions } from '../../src/kernels/index.ts';
import { compileAndRunC, hasGcc } from './replay-helpers.ts';

type Fn = (...a: number[]) => number;
const P = primitiveFunctions() as Readonly<Record<string, Fn>>;
const fn = (name: string): Fn => {
  const f = P[name];
  if (f === undefined) throw new Error(`no primitive ${name}`);
  return f;
};
const SEED = 'math-primitives-1';
const toInt16 = (v: number): number => ((v % 65536) + 65536 + 32768) % 65536 - 32768;

/** gemmlowp RoundingDivideByPOT<int16> spelled out: the mask is int16((1 << e) - 1). */
function rdbpot16Ref(x: number, e: number): number {
  const mask = toInt16(2 ** e - 1);
  const remainder = x & mask;
  const threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return toInt16(Math.floor(x / 2 ** e) + (remainder > threshold ? 1 : 0));
}

function cases(rng: () => number): Record<string, number[][]> {
  const n = 400;
  const i16 = (): number => Math.floor(rng() * 65536) - 32768;
  const i32 = (): number => Math.floor(rng() * 2 ** 32) - 2 ** 31;
  const gen = (f: () => number[]): number[][] => Array.from({ length: n }, f);
  return {
    wrap16: gen(() => [i32()]),
    srdhm16: gen(() => [i16(), i16()]),
    sdhm16: gen(() => [i16(), i16()]),
    sls16: gen(() => [i16(), Math.floor(rng() * 40)]),
    rdbpot16: gen(() => [i16(), Math.floor(rng() * 32)]),
    omxopx: gen(() => [i32()]),
    tanhQ: gen(() => [i32(), 1 + Math.floor(rng() * 5)]),
    satAdd: gen(() => [i32(), i32()]),
    satSub: gen(() => [i32(), i32()]),
    logGe1: gen(() => [2 ** 19 + Math.floor(rng() * (2 ** 31 - 2 ** 19)), 12, 5]),
    invSqrtShift: gen(() => [rng() < 0.1 ? Math.floor(rng() * 3) : Math.floor(rng() * 2 ** (1 + Math.floor(rng() * 31)))]),
    invSqrtMult: gen(() => [rng() < 0.1 ? Math.floor(rng() * 3) : Math.floor(rng() * 2 ** (1 + Math.floor(rng() * 31)))]),
  };
}

describe('math primitives', () => {
  it(`int16 helpers are exact (seed ${SEED})`, () => {
    const rng = seedrandom(SEED);
    const [srdhm16, sdhm16, sls16, rdbpot16] = ['srdhm16', 'sdhm16', 'sls16', 'rdbpot16'].map(fn) as [Fn, Fn, Fn, Fn];
    for (let i = 0; i < 20000; i++) {
      const a = Math.floor(rng() * 65536) - 32768;
      const b = Math.floor(rng() * 65536) - 32768;
      const e = Math.floor(rng() * 32);
      const ab = a * b;
      const sat = a === -32768 && b === -32768;
      expect(srdhm16(a, b), `srdhm16 ${a} ${b}`).toBe(sat ? 32767 : Math.trunc((ab + (ab >= 0 ? 16384 : 1 - 16384)) / 32768) | 0);
      expect(sdhm16(a, b), `sdhm16 ${a} ${b}`).toBe(sat ? 32767 : Math.trunc(ab / 32768) | 0);
      expect(sls16(a, e), `sls16 ${a} ${e}`).toBe(Math.max(-32768, Math.min(32767, a * 2 ** e)));
      expect(rdbpot16(a, e), `rdbpot16 ${a} ${e}`).toBe(rdbpot16Ref(a, e));
    }
    // From exponent 16 on the int16 mask is all ones: non-negative values round to 1, negative to -1.
    expect([rdbpot16(0, 16), rdbpot16(5, 20), rdbpot16(-5, 20), rdbpot16(-32768, 15)]).toEqual([1, 1, -1, -1]);
  });

  it('tanh, log and inverse square root approximate the real functions', () => {
    const tanhQ = fn('tanhQ');
    for (let v = -7.9; v < 8; v += 0.21) {
      const raw = Math.round(v * 2 ** 27);
      expect(Math.abs(tanhQ(raw, 4) / 2 ** 31 - Math.tanh(raw / 2 ** 27)), `tanh ${v}`).toBeLessThan(1e-6);
    }
    expect(tanhQ(0, 4)).toBe(0);
    const logGe1 = fn('logGe1');
    for (let v = 1; v < 4000; v *= 1.37) {
      const raw = Math.round(v * 2 ** 19);
      expect(Math.abs(logGe1(raw, 12, 5) / 2 ** 26 - Math.log(raw / 2 ** 19)), `log ${v}`).toBeLessThan(1e-5);
    }
    const mult = fn('invSqrtMult');
    const shift = fn('invSqrtShift');
    for (const x of [2, 3, 17, 255 * 255, 123456, 1 << 28, 2 ** 31 - 1]) {
      // mult * 2^shift / 2^31 = 1 / sqrt(x) (kReverseShift -1: a left shift count, <= 0 here).
      expect(Math.abs((mult(x) * 2 ** shift(x)) / 2 ** 31 - 1 / Math.sqrt(x)) * Math.sqrt(x), `invsqrt ${x}`).toBeLessThan(1e-4);
    }
    expect([mult(0), shift(0), mult(1), shift(1)]).toEqual([2147483647, 0, 2147483647, 0]);
  });

  it.skipIf(!hasGcc)(`expf32 / logf32: JS == C == the host libm's expf / logf on seeded floats (seed ${SEED})`, () => {
    const rng = seedrandom(SEED);
    const bits: number[] = [];
    for (let i = 0; i < 20000; i++) bits.push(Math.floor(rng() * 2 ** 32) | 0);
    for (let v = -110; v < 90; v += 0.0173) bits.push(fn('f32Bits')(Math.fround(v)));
    const finite = bits.filter((b) => Number.isFinite(fn('f32FromBits')(b)));
    const prims = primitiveClosure(['expf32', 'logf32', 'f32Bits', 'f32FromBits']).map((p) => p.c).join('\n');
    const data = finite.map((v) => (v === -2147483648 ? '(-2147483647 - 1)' : String(v))).join(', ');
    const src = `#include <stdint.h>\n#include <stdio.h>\n#include <math.h>\n${prims}\nstatic const int32_t in[] = { ${data} };\n` +
      'int main(void) {\n  for (unsigned i = 0; i < sizeof in / sizeof in[0]; ++i) {\n    const float x = mcu_f32FromBits(in[i]);\n' +
      '    printf("%d %d %d %d\\n", mcu_f32Bits(mcu_expf32(x)), mcu_f32Bits(expf(x)), mcu_f32Bits(mcu_logf32(x)), mcu_f32Bits(logf(x)));\n  }\n  return 0;\n}\n';
    const lines = compileAndRunC(src, ['-fsanitize=undefined', '-fno-sanitize-recover=all', '-lm']).trim().split('\n');
    expect(lines.length).toBe(finite.length);
    const isNan = (b: number): boolean => Number.isNaN(fn('f32FromBits')(b));
    lines.forEach((l, i) => {
      const [ce, le, cl, ll] = l.split(' ').map(Number) as [number, number, number, number];
      const x = fn('f32FromBits')(finite[i] as number);
      expect(ce, `expf32(${x}) C vs libm`).toBe(le);
      expect(fn('f32Bits')(fn('expf32')(x)), `expf32(${x}) JS vs C`).toBe(ce);
      if (!isNan(ll)) {
        expect(cl, `logf32(${x}) C vs libm`).toBe(ll);
        expect(fn('f32Bits')(fn('logf32')(x)), `logf32(${x}) JS vs C`).toBe(cl);
      } else {
        expect(isNan(cl) && Number.isNaN(fn('logf32')(x)), `logf32(${x}) NaN`).toBe(true);
      }
    });
  });

  it.skipIf(!hasGcc)(`C text equals JS text on seeded inputs under UBSan (seed ${SEED})`, () => {
    const all = cases(seedrandom(SEED));
    const names = Object.keys(all);
    let body = '';
    let data = '';
    const expected: string[] = [];
    for (const name of names) {
      const args = all[name] ?? [];
      const arity = args[0]?.length ?? 0;
      const flat = args.flat().map((v) => (v === -2147483648 ? '(-2147483647 - 1)' : String(v)));
      data += `static const int32_t in_${name}[] = { ${flat.join(', ')} };\n`;
      const call = Array.from({ length: arity }, (_, j) => `in_${name}[i * ${arity} + ${j}]`).join(', ');
      body += `  for (int i = 0; i < ${args.length}; ++i) printf("%d\\n", (int)mcu_${name}(${call}));\n`;
      for (const a of args) expected.push(String(fn(name)(...a)));
    }
    const prims = primitiveClosure(names).map((p) => p.c).join('\n');
    const src = `#include <stdint.h>\n#include <stdio.h>\n${prims}\n${data}int main(void) {\n${body}  return 0;\n}\n`;
    const lines = compileAndRunC(src, ['-fsanitize=undefined', '-fno-sanitize-recover=all']).trim().split('\n');
    expect(lines.length).toBe(expected.length);
    lines.forEach((l, i) => expect(l, `line ${i}`).toBe(expected[i]));
  });
});
