// The gemmlowp fixed-point primitives (softmax / logistic): JS text == C text on seeded int32
// inputs (including the out-of-domain values an eagerly evaluated select feeds them), exact
// SaturatingRoundingMultiplyByPOT against a BigInt definition, and accuracy against real math.
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

const SEED = 'gemmlowp-primitives-1';

function i32(rng: () => number): number {
  const r = rng();
  if (r < 0.05) return [-2147483648, 2147483647, 0, 1, -1][Math.floor(rng() * 5)] as number;
  if (r < 0.5) return -Math.floor(rng() * 2 ** 31);
  return Math.floor(rng() * 2 ** 32) - 2 ** 31;
}

/** Argument tuples per primitive: random int32 data, small exponents / integer-bit counts. */
function cases(rng: () => number): Record<string, number[][]> {
  const n = 400;
  const gen = (f: () => number[]): number[][] => Array.from({ length: n }, f);
  return {
    select: gen(() => [Math.floor(rng() * 2), i32(rng), i32(rng)]),
    clz: gen(() => [i32(rng) >> Math.floor(rng() * 32)]),
    srmbpot: gen(() => [i32(rng), Math.floor(rng() * 63) - 31]),
    expQ0: gen(() => [i32(rng)]),
    expNeg: gen(() => [i32(rng), Math.floor(rng() * 7)]),
    recip01: gen(() => [i32(rng)]),
    getRecip: gen(() => [i32(rng)]),
    logisticQ: gen(() => [i32(rng), 1 + Math.floor(rng() * 6)]),
  };
}

function srmbpotRef(x: number, e: number): number {
  if (e === 0) return x;
  if (e < 0) {
    const m = (1n << BigInt(-e)) - 1n;
    const thr = (m >> 1n) + (x < 0 ? 1n : 0n);
    return Number((BigInt(x) >> BigInt(-e)) + ((BigInt(x) & m) > thr ? 1n : 0n));
  }
  const v = BigInt(x) << BigInt(e);
  return v > 2147483647n ? 2147483647 : v < -2147483648n ? -2147483648 : Number(v);
}

describe('gemmlowp primitives', () => {
  it(`srmbpot is exact for exponents -31..31 (seed ${SEED})`, () => {
    const rng = seedrandom(SEED);
    const f = fn('srmbpot');
    for (let i = 0; i < 20000; i++) {
      const x = i32(rng);
      const e = Math.floor(rng() * 63) - 31;
      expect(f(x, e), `x=${x} e=${e}`).toBe(srmbpotRef(x, e));
    }
  });

  it('approximate the real functions they stand for', () => {
    const expNeg = fn('expNeg');
    for (let v = -31.9; v <= 0; v += 0.173) {
      expect(Math.abs(expNeg(Math.round(v * 2 ** 26), 5) / 2 ** 31 - Math.exp(Math.round(v * 2 ** 26) / 2 ** 26))).toBeLessThan(1e-6);
    }
    expect(expNeg(0, 5)).toBe(2147483647);
    const recip01 = fn('recip01');
    for (let v = 0; v < 1; v += 0.01) expect(Math.abs(recip01(Math.round(v * 2 ** 31)) / 2 ** 31 - 1 / (1 + v))).toBeLessThan(1e-8);
    const getRecip = fn('getRecip');
    for (const x of [524288, 700000, 1 << 27, 123456789]) {
      const h = Math.clz32(x);
      expect(Math.abs(getRecip(x) / 2 ** 31 - 2 ** 31 / (x * 2 ** h))).toBeLessThan(1e-8);
    }
    const logisticQ = fn('logisticQ');
    for (let v = -15.9; v < 16; v += 0.37) {
      expect(Math.abs(logisticQ(Math.round(v * 2 ** 27), 4) / 2 ** 31 - 1 / (1 + Math.exp(-v)))).toBeLessThan(1e-6);
    }
    expect(logisticQ(0, 4)).toBe(1 << 30);
  });

  it.skipIf(!hasGcc)(`C text equals JS text on seeded int32 inputs (seed ${SEED})`, () => {
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
