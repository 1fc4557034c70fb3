// QUANTIZE between uint8 and int8 (TFLM quantize_common.cc: Requantize<uint8_t, int8_t> and
// <int8_t, uint8_t>): seeded cases against an independent BigInt Requantize, fast == traced == C,
// walk == trace, TFLM's x ^ 0x80 fast path for equal scales, and the pairs TFLM refuses.
import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import { ModelError } from '../../src/ir/index.ts';
import { prepareOp, quantizeMultiplier } from '../../src/kernels/index.ts';
import type { ConformanceSetup, VectorCase, VectorTensor } from '../../src/sim/index.ts';
import { setupVectorCase } from '../../src/sim/index.ts';
import { collectTrace, hasGcc, hex, runC, runSetup, walkTrace } from './replay-helpers.ts';

type Rng = () => number;
const int = (rng: Rng, lo: number, hi: number): number => lo + Math.floor(rng() * (hi - lo + 1));
const scale = (rng: Rng): number => Math.fround(0.003 * (0.1 / 0.003) ** rng());

/** gemmlowp's SaturatingRoundingDoublingHighMul and RoundingDivideByPOT, in BigInt. */
function mbqmReference(x: number, multiplier: number, shift: number): number {
  const left = shift > 0 ? shift : 0;
  const right = shift > 0 ? 0 : -shift;
  const a = BigInt(x) * (1n << BigInt(left));
  const b = BigInt(multiplier);
  let high: bigint;
  if (a === -(2n ** 31n) && b === a) high = 2n ** 31n - 1n;
  else {
    const ab = a * b;
    const nudge = ab >= 0n ? 1n << 30n : 1n - (1n << 30n);
    high = (ab + nudge) / (1n << 31n); // BigInt division truncates toward zero, as C++ does
  }
  const h = Number(BigInt.asIntN(32, high));
  const mask = (1 << right) - 1;
  const remainder = h & mask;
  const threshold = (mask >> 1) + (h < 0 ? 1 : 0);
  return (h >> right) + (remainder > threshold ? 1 : 0);
}

function requantizeReference(c: VectorCase): number[] {
  const i = c.inputs[0]!;
  const o = c.outputs[0]!;
  const q = quantizeMultiplier(Math.fround(i.quant!.scale[0]!) / Math.fround(o.quant!.scale[0]!));
  const [lo, hi] = o.dtype === 'uint8' ? [0, 255] : [-128, 127];
  return i.data.map((v) => Math.min(hi, Math.max(lo, mbqmReference(v - i.quant!.zero_point[0]!, q.multiplier, q.shift) + o.quant!.zero_point[0]!)));
}

function tensorOf(name: string, dtype: string, shape: number[], s: number, zp: number, data: number[]): VectorTensor {
  return { name, dtype, shape, const: false, quant: { scale: [s], zero_point: [zp], quantized_dimension: 0 }, data };
}

function requantizeCase(rng: Rng, from: 'uint8' | 'int8', id: number, sameScale = false): VectorCase {
  const shape = Array.from({ length: int(rng, 1, 4) }, () => int(rng, 1, 7));
  const n = shape.reduce((a, d) => a * d, 1);
  const [lo, hi] = from === 'uint8' ? [0, 255] : [-128, 127];
  const to = from === 'uint8' ? 'int8' : 'uint8';
  const inScale = scale(rng);
  const inZp = int(rng, lo, hi);
  const outScale = sameScale ? inScale : scale(rng);
  const outZp = sameScale ? inZp + (from === 'uint8' ? -128 : 128) : int(rng, to === 'uint8' ? 0 : -128, to === 'uint8' ? 255 : 127);
  const data = Array.from({ length: n }, () => int(rng, lo, hi));
  return {
    op: 'QUANTIZE',
    id,
    options: {},
    inputs: [tensorOf('input', from, shape, inScale, inZp, data)],
    outputs: [tensorOf('output', to, shape, outScale, outZp, new Array<number>(n).fill(0))],
  };
}

const decode = (dtype: string, bytes: Uint8Array): number[] => [...(dtype === 'uint8' ? bytes : new Int8Array(bytes.buffer, bytes.byteOffset, bytes.length))];

describe('QUANTIZE uint8 <-> int8 (seeded)', () => {
  const seed = 'quantize-uint8-1';
  const rng = seedrandom(seed);
  const cases: VectorCase[] = [];
  for (let i = 0; i < 40; i++) cases.push(requantizeCase(rng, 'uint8', i), requantizeCase(rng, 'int8', i));
  const setups: ConformanceSetup[] = cases.map(setupVectorCase);

  it(`fast equals an independent Requantize, traced equals fast, walk equals trace (seed ${seed})`, () => {
    setups.forEach((s, k) => {
      const c = cases[k]!;
      const label = `seed ${seed} ${c.inputs[0]!.dtype} -> ${c.outputs[0]!.dtype} #${c.id}`;
      const fast = runSetup(s);
      expect(decode(c.outputs[0]!.dtype, fast[0]!), label).toEqual(requantizeReference(c));
      const t = collectTrace();
      expect(runSetup(s, t.sink).map(hex), label).toEqual(fast.map(hex));
      expect(walkTrace(s).equals(t.bytes()), label).toBe(true);
    });
  });

  it('gives the bytes of TFLM\'s x ^ 0x80 fast path when only the zero point moves by 128', () => {
    const r = seedrandom(`${seed}-same-scale`);
    for (const from of ['uint8', 'int8'] as const) {
      for (let i = 0; i < 10; i++) {
        const c = requantizeCase(r, from, i, true);
        const inBytes = setupVectorCase(c).inputs[0]!;
        const out = runSetup(setupVectorCase(c))[0]!;
        expect([...out], `${from} #${i}`).toEqual([...inBytes].map((b) => b ^ 0x80));
      }
    }
  });

  it.skipIf(!hasGcc)(`emitted C equals the fast executor (seed ${seed})`, () => {
    const lines = runC(setups);
    expect(lines).toEqual(setups.flatMap((s) => runSetup(s).map(hex)));
  });

  it('refuses the pairs TFLM\'s reference quantize has no path for, with the constraint id', () => {
    const c = requantizeCase(seedrandom(`${seed}-bad`), 'uint8', 0);
    const uint8ToUint8 = { ...c, outputs: [{ ...c.outputs[0]!, dtype: 'uint8', quant: { scale: [0.1], zero_point: [0], quantized_dimension: 0 } }] };
    let err: unknown;
    try {
      prepareOp(setupVectorCase(uint8ToUint8).graph, 0);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ModelError);
    expect((err as ModelError).code).toBe('E_KERNEL_CONSTRAINT');
    expect((err as ModelError).issues.map((i) => i.message).join()).toContain('quantize.types');
  });
});
