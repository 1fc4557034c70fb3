import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import {
  compressMfv,
  decompressMfv,
  mfvCodecTimeUs,
  mfvEncodedBytes,
  mostFrequentByte,
} from '../../../src/sim/storage/index.ts';
import { niclaVision } from '../../../src/sim/targets/index.ts';

const E_STORAGE = expect.objectContaining({ code: 'E_STORAGE' });
const SEED = 'mfv-codec-1';

type Gen = (rng: seedrandom.PRNG, n: number) => Uint8Array;

const generators: Record<string, Gen> = {
  uniform: (rng, n) => Uint8Array.from({ length: n }, () => Math.floor(rng() * 256)),
  // One dominant value (TinySeg Fig. 9(b): ~50% of a tensor), the rest random.
  skewed: (rng, n) => {
    const rep = Math.floor(rng() * 256);
    const p = rng();
    return Uint8Array.from({ length: n }, () => (rng() < p ? rep : Math.floor(rng() * 256)));
  },
  fewValues: (rng, n) => Uint8Array.from({ length: n }, () => Math.floor(rng() * 3) * 85),
  allEqual: (rng, n) => new Uint8Array(n).fill(Math.floor(rng() * 256)),
  allDifferent: (rng, n) => {
    const perm = Uint8Array.from({ length: 256 }, (_, i) => i);
    for (let i = 255; i > 0; i--) {
      const j = Math.floor(rng() * (i + 1));
      [perm[i], perm[j]] = [perm[j]!, perm[i]!];
    }
    return perm.slice(0, Math.min(n, 256));
  },
};

describe('most-frequent-value codec', () => {
  it('round-trips thousands of seeded arrays losslessly', () => {
    const rng = seedrandom(SEED);
    let cases = 0;
    for (const [name, gen] of Object.entries(generators)) {
      for (let k = 0; k < 600; k++) {
        const n = k < 20 ? k : Math.floor(rng() * 700);
        const raw = gen(rng, n);
        const enc = compressMfv(raw);
        const rep = mostFrequentByte(raw);
        let others = 0;
        for (const v of raw) if (v !== rep) others++;
        const back = decompressMfv(enc, raw.length);
        const ok = enc.length === mfvEncodedBytes(raw.length, others) && Buffer.compare(back, raw) === 0;
        if (!ok) expect.fail(`seed ${SEED} ${name} #${k}: round trip failed for ${raw.length} bytes`);
        cases++;
      }
    }
    expect(cases).toBe(3000);
  });

  it('handles the empty, all-equal and all-different extremes', () => {
    expect(decompressMfv(compressMfv(new Uint8Array(0)), 0)).toEqual(new Uint8Array(0));
    const flat = new Uint8Array(1000).fill(0xf7);
    expect(compressMfv(flat).length).toBe(1 + 125);
    const distinct = Uint8Array.from({ length: 256 }, (_, i) => 255 - i);
    expect(compressMfv(distinct).length).toBe(1 + 32 + 255);
    expect(decompressMfv(compressMfv(distinct), 256)).toEqual(distinct);
  });

  it('picks the most frequent value, ties to the smallest', () => {
    expect(mostFrequentByte(Uint8Array.from([9, 3, 3, 9]))).toBe(3);
    expect(mostFrequentByte(Uint8Array.from([0xf7, 0xf7, 1]))).toBe(0xf7);
  });

  it('rejects inconsistent streams with E_STORAGE', () => {
    const enc = compressMfv(Uint8Array.from([1, 2, 2, 2, 5]));
    expect(() => decompressMfv(enc, 6)).not.toThrow(); // 6 still fits the bitmap byte and values
    expect(() => decompressMfv(enc.subarray(0, enc.length - 1), 5)).toThrowError(E_STORAGE);
    expect(() => decompressMfv(enc, 40)).toThrowError(E_STORAGE);
    const stray = Uint8Array.from(enc);
    stray[1] = stray[1]! | 0x80; // marks element 7 of a 5-element tensor
    expect(() => decompressMfv(stray, 5)).toThrowError(E_STORAGE);
    expect(() => decompressMfv(enc, -1)).toThrowError(E_STORAGE);
  });

  it('models codec time from per-byte cycles, slower on the second core', () => {
    const m7 = mfvCodecTimeUs(niclaVision, 'compress', 76_800);
    const m4 = mfvCodecTimeUs(niclaVision, 'compress', 76_800, niclaVision.secondCore);
    expect(m7).toBeGreaterThan(0);
    expect(m4).toBeCloseTo(2 * m7, 6);
    expect(mfvCodecTimeUs(niclaVision, 'decompress', 0)).toBe(0);
  });
});
