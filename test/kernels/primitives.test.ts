import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import { activationRange, frexp, primitiveFunctions, quantizeMultiplier } from '../../src/kernels/index.ts';

const P = primitiveFunctions();
const srdhm = P['srdhm'] as (a: number, b: number) => number;
const rdbpot = P['rdbpot'] as (x: number, e: number) => number;
const mbqm = P['mbqm'] as (x: number, m: number, s: number) => number;

// BigInt references written from gemmlowp's definitions.
function srdhmRef(a: number, b: number): number {
  if (a === -2147483648 && b === -2147483648) return 2147483647;
  const ab = BigInt(a) * BigInt(b);
  const nudge = ab >= 0n ? 1n << 30n : 1n - (1n << 30n);
  return Number((ab + nudge) / (1n << 31n)); // BigInt division truncates like C
}
function rdbpotRef(x: number, e: number): number {
  const mask = (1n << BigInt(e)) - 1n;
  const rem = BigInt(x) & mask;
  const thr = (mask >> 1n) + (x < 0 ? 1n : 0n);
  return Number((BigInt(x) >> BigInt(e)) + (rem > thr ? 1n : 0n));
}

describe('fixed-point primitives', () => {
  const seed = 'primitives-1';
  const rng = seedrandom(seed);
  const i32 = (): number => {
    const r = rng();
    if (r < 0.05) return [-2147483648, 2147483647, 0, 1, -1][Math.floor(rng() * 5)] as number;
    if (r < 0.4) return Math.floor((rng() - 0.5) * 2 ** 17);
    return Math.floor(rng() * 2 ** 32) - 2 ** 31;
  };

  it(`srdhm matches the exact 64-bit definition (seed ${seed})`, () => {
    for (let i = 0; i < 20000; i++) {
      const a = i32();
      const b = i32();
      expect(srdhm(a, b), `a=${a} b=${b}`).toBe(srdhmRef(a, b));
    }
    expect(srdhm(-2147483648, -2147483648)).toBe(2147483647);
  });

  it('srdhm matches on every pair of powers of two and their neighbours (exact multiples of 2^31, both signs)', () => {
    const edges = [0, 2147483647, -2147483648];
    for (let k = 0; k < 31; k++) for (const d of [-1, 0, 1]) edges.push(2 ** k + d, -(2 ** k) + d);
    for (const a of edges) for (const b of edges) expect(srdhm(a, b), `a=${a} b=${b}`).toBe(srdhmRef(a, b));
  });

  it(`rdbpot matches the definition for exponents 0..31 (seed ${seed})`, () => {
    for (let i = 0; i < 20000; i++) {
      const x = i32();
      const e = Math.floor(rng() * 32);
      expect(rdbpot(x, e), `x=${x} e=${e}`).toBe(rdbpotRef(x, e));
    }
  });

  it('mbqm is the double-rounding form', () => {
    for (let i = 0; i < 5000; i++) {
      const x = Math.floor((rng() - 0.5) * 2 ** 24);
      const q = quantizeMultiplier(rng() * 4);
      const ls = Math.max(q.shift, 0);
      const want = rdbpotRef(srdhmRef(Number(BigInt.asIntN(32, BigInt(x) << BigInt(ls))), q.multiplier), Math.max(-q.shift, 0));
      expect(mbqm(x, q.multiplier, q.shift)).toBe(want);
    }
  });
});

describe('quantizeMultiplier', () => {
  it('follows TFLM: frexp, round half away, 2^31 rounding carry, tiny -> 0', () => {
    expect(quantizeMultiplier(0)).toEqual({ multiplier: 0, shift: 0 });
    expect(quantizeMultiplier(0.5)).toEqual({ multiplier: 2 ** 30, shift: 0 });
    expect(quantizeMultiplier(1)).toEqual({ multiplier: 2 ** 30, shift: 1 });
    expect(quantizeMultiplier(1 - 2 ** -40)).toEqual({ multiplier: 2 ** 30, shift: 1 });
    expect(quantizeMultiplier(2 ** -40)).toEqual({ multiplier: 0, shift: 0 });
    expect(frexp(0.75)).toEqual({ q: 0.75, e: 0 });
    expect(frexp(3)).toEqual({ q: 0.75, e: 2 });
  });

  it('computes activation ranges with a float32 division', () => {
    expect(activationRange('relu6', Math.fround(0.05), 3)).toEqual({ min: 3, max: 123 });
    expect(activationRange('none', 1, 0)).toEqual({ min: -128, max: 127 });
  });
});
