// The zoo's builder pieces: seeded int8 codes, the closed-form statistics behind the analytic
// calibration (checked against numeric integration), output ranges, and builder misuse.
import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import { GraphBuilder, InternalError, validateModel } from '../../../src/ir/index.ts';
import { uniformInt8Codes, weightScales } from '../../../src/ir/zoo/seeded-weights.ts';
import { clampedGaussian, standardNormalMax } from '../../../src/ir/zoo/value-stats.ts';
import { rangeQuant } from '../../../src/ir/zoo/weighted-layer.ts';

/** Moments of clamp(N(mu, sigma^2), lo, hi) by a fine midpoint rule over +-10 sigma. */
function numericClamped(mu: number, sigma: number, lo: number, hi: number): { mean: number; meanSq: number } {
  const steps = 20000;
  let m1 = 0;
  let m2 = 0;
  for (let i = 0; i < steps; i++) {
    const z = -10 + (20 * (i + 0.5)) / steps;
    const w = ((20 / steps) * Math.exp(-0.5 * z * z)) / Math.sqrt(2 * Math.PI);
    const x = Math.min(hi, Math.max(lo, mu + sigma * z));
    m1 += w * x;
    m2 += w * x * x;
  }
  return { mean: m1, meanSq: m2 };
}

describe('seeded weights', () => {
  it('draws int8 codes uniformly on [-127, 127], identically for the same seed', () => {
    const a = uniformInt8Codes('zoo-test', 255 * 200);
    expect(uniformInt8Codes('zoo-test', 255 * 200)).toEqual(a);
    expect(uniformInt8Codes('zoo-test-2', 16)).not.toEqual(a.slice(0, 16));
    const counts = new Map<number, number>();
    for (const q of a) counts.set(q, (counts.get(q) ?? 0) + 1);
    expect(counts.size).toBe(255);
    expect(counts.has(-128)).toBe(false);
    for (const n of counts.values()) expect(n).toBeGreaterThan(120);
  });

  it('takes the codes off the ARC4 stream exactly as seedrandom\'s int32() draws give them', () => {
    // The reference: one int32() per four codes, least significant byte first, 255 rejected.
    const reference = (seed: string, count: number): Int8Array => {
      const prng = seedrandom(seed);
      const out = new Int8Array(count);
      let i = 0;
      while (i < count) {
        let word = prng.int32() >>> 0;
        for (let k = 0; k < 4 && i < count; k++) {
          const b = word & 0xff;
          word >>>= 8;
          if (b !== 255) out[i++] = b - 127;
        }
      }
      return out;
    };
    for (const [seed, count] of [['a', 0], ['a', 1], ['a', 3], ['mobilenet-v2/conv0/filter', 4099], ['', 5000], ['zoo-test', 255 * 40 + 7]] as const) {
      expect(uniformInt8Codes(seed, count), `${seed} x${count}`).toEqual(reference(seed, count));
    }
  });

  it('gives float32-exact per-channel scales', () => {
    const s = weightScales('zoo-test', 64, 0.01);
    expect(s.length).toBe(64);
    for (const x of s) expect(Math.fround(x)).toBe(x);
    expect(new Set(s).size).toBe(64);
  });
});

describe('value statistics', () => {
  it('clamped Gaussian moments match numeric integration', () => {
    const seed = 'zoo-stats-1';
    const rng = seedrandom(seed);
    for (let k = 0; k < 40; k++) {
      const mu = 4 * rng() - 2;
      const sigma = 0.1 + 3 * rng();
      const lo = rng() < 0.3 ? -Infinity : -3 * rng();
      const hi = rng() < 0.3 ? Infinity : 3 * rng();
      const got = clampedGaussian(mu, sigma, lo, hi);
      const want = numericClamped(mu, sigma, lo, hi);
      expect(Math.abs(got.mean - want.mean), `seed ${seed} case ${k}`).toBeLessThan(1e-4 * (1 + Math.abs(want.mean)));
      expect(Math.abs(got.meanSq - want.meanSq), `seed ${seed} case ${k}`).toBeLessThan(1e-4 * (1 + want.meanSq));
    }
  });

  it('knows the max of two standard normals (mean 1/sqrt(pi), variance 1 - 1/pi)', () => {
    const m = standardNormalMax(2);
    expect(m.mean).toBeCloseTo(1 / Math.sqrt(Math.PI), 3);
    expect(m.std).toBeCloseTo(Math.sqrt(1 - 1 / Math.PI), 3);
    expect(standardNormalMax(1)).toEqual({ mean: 0, std: 1 });
  });

  it('picks output ranges: ReLU6 fixed at 6/255, ReLU from zero, linear symmetric', () => {
    expect(rangeQuant(2, 'relu6')).toEqual({ scale: Math.fround(6 / 255), zeroPoint: -128 });
    expect(rangeQuant(1, 'relu')).toEqual({ scale: Math.fround(4 / 255), zeroPoint: -128 });
    expect(rangeQuant(1, 'none')).toEqual({ scale: Math.fround(8 / 255), zeroPoint: 0 });
  });
});

describe('GraphBuilder', () => {
  it('builds a small valid graph', () => {
    const b = new GraphBuilder('builder-test');
    const x = b.input('x', [1, 8, 8, 4], { scale: 0.05, zeroPoint: 3 });
    const y = b.conv2d(x, { name: 'c', outChannels: 6, kernel: 3, stride: 2, activation: 'relu' });
    const z = b.depthwiseConv2d(y, { name: 'd', kernel: 3, depthMultiplier: 2 });
    const p = b.averagePool2d(z, { name: 'p', filter: 4 });
    const f = b.fullyConnected(b.reshape('r', p, [1, 12]), { name: 'fc', units: 5, perChannel: true });
    const m = b.build('test', [b.softmax('s', f)]);
    expect(() => validateModel(m)).not.toThrow();
    expect(m.graph.tensors[z.index]?.shape).toEqual([1, 4, 4, 12]);
    const fcFilter = m.graph.tensors.find((t) => t.name === 'fc/filter');
    expect(fcFilter?.quant?.scale.length).toBe(5);
  });

  it('refuses to concatenate tensors with different quantization', () => {
    const b = new GraphBuilder('builder-test');
    const x = b.input('x', [1, 4, 4, 2], { scale: 0.05, zeroPoint: 0 });
    const y = b.conv2d(x, { name: 'c', outChannels: 2, kernel: 1 });
    expect(() => b.concatenation('cat', [x, y])).toThrow(InternalError);
    try {
      b.concatenation('cat', [x, y]);
    } catch (e) {
      expect((e as InternalError).code).toBe('E_INTERNAL');
    }
  });
});
