// Softmax and Logistic (gemmlowp fixed point): TFLM oracle vectors through every reading of the
// spec, seeded random cases beyond the vectors (fast == traced == C, walk == trace), the
// TFLITE_CHECK abort of a large softmax sum and the Prepare-time constraints.
import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import type { ConformanceSetup, VectorCase } from '../../src/sim/index.ts';
import { runVectorCase, setupVectorCase } from '../../src/sim/index.ts';
import { cProgram, compileAndRunC, hasGcc, hex, oracleReplaySuite, replayAgrees, runC, runSetup, vt } from './replay-helpers.ts';

oracleReplaySuite('SOFTMAX');
oracleReplaySuite('LOGISTIC');

const OUT_Q = { scale: [1 / 256], zp: [-128] };

function randomShape(rng: () => number, last: number): number[] {
  const r = 1 + Math.floor(rng() * 4);
  const s = Array.from({ length: r - 1 }, () => 1 + Math.floor(rng() * 4));
  return [...s, last];
}
const randomData = (rng: () => number, n: number, zp: number): number[] =>
  Array.from({ length: n }, () => (rng() < 0.5 ? Math.floor(rng() * 256) - 128 : Math.max(-128, Math.min(127, zp + Math.floor((rng() - 0.5) * 24)))));

function softmaxCase(rng: () => number, id: number): VectorCase {
  // depth < 512 keeps the Q12.19 sum of exps below 512 (no TFLITE_CHECK abort).
  const shape = randomShape(rng, 1 + Math.floor(rng() * (rng() < 0.2 ? 511 : 64)));
  const n = shape.reduce((a, d) => a * d, 1);
  const scale = Math.fround(Math.exp(Math.log(0.002) + rng() * Math.log(1000)));
  const zp = rng() < 0.3 ? -128 : Math.floor(rng() * 256) - 128;
  const beta = rng() < 0.6 ? 1 : Math.fround(0.05 + rng() * 4);
  return {
    op: 'SOFTMAX', id, options: { beta },
    inputs: [vt('input', 'int8', shape, randomData(rng, n, zp), { scale: [scale], zp: [zp] })],
    outputs: [vt('output', 'int8', shape, new Array(n).fill(0), OUT_Q)],
  };
}

function logisticCase(rng: () => number, id: number): VectorCase {
  const shape = randomShape(rng, 1 + Math.floor(rng() * 40));
  const n = shape.reduce((a, d) => a * d, 1);
  // Log-uniform 2^-20 .. 16 covers radii from huge to 0 (shift capped at 30).
  const scale = Math.fround(2 ** (-20 + rng() * 24));
  const zp = Math.floor(rng() * 256) - 128;
  return {
    op: 'LOGISTIC', id, options: {},
    inputs: [vt('input', 'int8', shape, randomData(rng, n, zp), { scale: [scale], zp: [zp] })],
    outputs: [vt('output', 'int8', shape, new Array(n).fill(0), OUT_Q)],
  };
}

describe.each([
  ['softmax', softmaxCase, 'softmax-prop-1'],
  ['logistic', logisticCase, 'logistic-prop-1'],
] as const)('%s seeded property cases', (_name, make, seed) => {
  it(`fast == traced, walk == trace, C == fast (seed ${seed})`, () => {
    const rng = seedrandom(seed);
    const setups: ConformanceSetup[] = [];
    const fast: string[] = [];
    for (let i = 0; i < 40; i++) {
      const s = setupVectorCase(make(rng, i));
      const r = replayAgrees(s);
      expect(r.same, `seed ${seed} case ${i}`).toBe(true);
      setups.push(s);
      fast.push(...r.fast.map(hex));
    }
    if (hasGcc) expect(runC(setups), `seed ${seed}`).toEqual(fast);
  });
});

describe('softmax TFLITE_CHECK(0 <= exponent <= 31)', () => {
  // 600 equal logits: the sum of exps is 600 >= 512, TFLM aborts.
  const big: VectorCase = {
    op: 'SOFTMAX', id: 0, options: { beta: 1 },
    inputs: [vt('input', 'int8', [1, 600], new Array(600).fill(3), { scale: [0.05], zp: [0] })],
    outputs: [vt('output', 'int8', [1, 600], new Array(600).fill(0), OUT_Q)],
  };

  it('raises a KernelError-coded error in the fast and traced executors', () => {
    const s = setupVectorCase(big);
    for (const trace of [undefined, () => undefined]) {
      let err: unknown = null;
      try {
        runSetup(s, trace);
      } catch (e) {
        err = e;
      }
      expect((err as { code?: string } | null)?.code).toBe('E_KERNEL_CONSTRAINT');
      expect((err as Error).name).toBe('KernelError');
    }
    expect(runVectorCase(big).pass).toBe(false);
  });

  it.skipIf(!hasGcc)('aborts in the emitted C, as TFLM does', () => {
    expect(() => compileAndRunC(cProgram([setupVectorCase(big)]))).toThrow();
  });

  it('511 equal logits (sum just below 512) still run', () => {
    const ok: VectorCase = {
      ...big,
      inputs: [vt('input', 'int8', [1, 511], new Array(511).fill(3), { scale: [0.05], zp: [0] })],
      outputs: [vt('output', 'int8', [1, 511], new Array(511).fill(0), OUT_Q)],
    };
    const out = runSetup(setupVectorCase(ok))[0] as Uint8Array;
    expect(new Set(out).size).toBe(1);
  });
});

describe('constraints', () => {
  const base = softmaxCase(seedrandom('softmax-constraints'), 0);
  const codeOf = (c: VectorCase): string | undefined => {
    try {
      runSetup(setupVectorCase(c));
      return undefined;
    } catch (e) {
      return (e as { code?: string }).code;
    }
  };
  const out = base.outputs[0]!;

  it('softmax needs output scale 1/256 and zero point -128', () => {
    expect(codeOf({ ...base, outputs: [{ ...out, quant: { scale: [1 / 255], zero_point: [-128], quantized_dimension: 0 } }] })).toBe('E_KERNEL_CONSTRAINT');
    expect(codeOf({ ...base, outputs: [{ ...out, quant: { scale: [1 / 256], zero_point: [0], quantized_dimension: 0 } }] })).toBe('E_KERNEL_CONSTRAINT');
    expect(codeOf({ ...base, options: { beta: 1e-12 } })).toBe('E_KERNEL_CONSTRAINT');
  });

  it('logistic needs output zero point -128 and a usable input scale', () => {
    const l = logisticCase(seedrandom('logistic-constraints'), 0);
    const lin = l.inputs[0]!;
    const lout = l.outputs[0]!;
    expect(codeOf({ ...l, outputs: [{ ...lout, quant: { scale: [1 / 256], zero_point: [0], quantized_dimension: 0 } }] })).toBe('E_KERNEL_CONSTRAINT');
    expect(codeOf({ ...l, inputs: [{ ...lin, quant: { scale: [2 ** -30], zero_point: [0], quantized_dimension: 0 } }] })).toBe('E_KERNEL_CONSTRAINT');
  });
});
