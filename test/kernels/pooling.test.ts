import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import type { Activation, OpOptionsMap, Padding } from '../../src/ir/index.ts';
import { convOutputSize, convPadding, McusimError } from '../../src/ir/index.ts';
import { activationRange, prepareOp } from '../../src/kernels/index.ts';
import type { ConformanceSetup } from '../../src/sim/index.ts';
import { runVectorCase, setupVectorCase } from '../../src/sim/index.ts';
import { execute, hasGcc, hex, loadCases, oracleReplaySuite, runC, setupOp } from './replay-helpers.ts';

const OPS = ['MAX_POOL_2D', 'AVERAGE_POOL_2D'] as const;

for (const op of OPS) oracleReplaySuite(op, { c: false });

type PoolKind = 'maxPool2d' | 'averagePool2d';

/** Straightforward pooling: every window tap checked against the input bounds. */
function referencePool(kind: PoolKind, x: readonly number[], shape: readonly number[], o: OpOptionsMap[PoolKind], outH: number, outW: number, lo: number, hi: number): number[] {
  const [n, h, w, c] = shape as [number, number, number, number];
  const padH = convPadding(o.strideH, 1, h, o.filterH, outH).before;
  const padW = convPadding(o.strideW, 1, w, o.filterW, outW).before;
  const out: number[] = [];
  for (let b = 0; b < n; b++)
    for (let oy = 0; oy < outH; oy++)
      for (let ox = 0; ox < outW; ox++)
        for (let ch = 0; ch < c; ch++) {
          let m = -128;
          let sum = 0;
          let taps = 0;
          for (let fy = 0; fy < o.filterH; fy++)
            for (let fx = 0; fx < o.filterW; fx++) {
              const iy = oy * o.strideH - padH + fy;
              const ix = ox * o.strideW - padW + fx;
              if (iy < 0 || iy >= h || ix < 0 || ix >= w) continue;
              const v = x[((b * h + iy) * w + ix) * c + ch] ?? 0;
              m = Math.max(m, v);
              sum += v;
              taps++;
            }
          const half = Math.trunc(taps / 2);
          const avg = sum > 0 ? Math.trunc((sum + half) / taps) : Math.trunc((sum - half) / taps);
          out.push(Math.min(hi, Math.max(lo, kind === 'maxPool2d' ? m : avg)));
        }
  return out;
}

const ACTS: readonly Activation[] = ['none', 'relu', 'relu6', 'reluN1To1'];

function randomPool(rng: seedrandom.PRNG, kind: PoolKind): { setup: ConformanceSetup; label: string } {
  const int = (lo: number, hi: number): number => lo + Math.floor(rng() * (hi - lo + 1));
  const padding: Padding = rng() < 0.5 ? 'same' : 'valid';
  const o: OpOptionsMap[PoolKind] = {
    padding, strideH: int(1, 3), strideW: int(1, 3), filterH: int(1, 5), filterW: int(1, 5),
    activation: ACTS[int(0, 3)] as Activation,
  };
  const shape = [int(1, 2), int(Math.max(1, o.filterH - 1), 9), int(Math.max(1, o.filterW - 1), 9), int(1, 6)];
  const [n, h, w, c] = shape as [number, number, number, number];
  let outH = convOutputSize(padding, h, o.filterH, o.strideH);
  let outW = convOutputSize(padding, w, o.filterW, o.strideW);
  const opts = outH < 1 || outW < 1 ? { ...o, padding: 'same' as const } : o;
  outH = convOutputSize(opts.padding, h, o.filterH, o.strideH);
  outW = convOutputSize(opts.padding, w, o.filterW, o.strideW);
  const quant = { scale: 0.003 + rng() * 0.1, zeroPoint: int(-128, 127) };
  const x = Array.from({ length: n * h * w * c }, () => int(-128, 127));
  const act = activationRange(opts.activation, Math.fround(quant.scale), quant.zeroPoint);
  const expected = referencePool(kind, x, shape, opts, outH, outW, act.min, act.max);
  const setup = setupOp(kind, opts, [{ dtype: 'int8', shape, quant }], [{ dtype: 'int8', shape: [n, outH, outW, c], quant }], [x], [expected]);
  return { setup, label: `${kind} ${JSON.stringify({ shape, ...opts })}` };
}

function propertyCases(): { setup: ConformanceSetup; label: string }[] {
  const out: { setup: ConformanceSetup; label: string }[] = [];
  for (let seed = 0; seed < 30; seed++) {
    const rng = seedrandom(`pool-${seed}`);
    out.push({ ...randomPool(rng, 'maxPool2d'), label: `seed pool-${seed} max` }, { ...randomPool(rng, 'averagePool2d'), label: `seed pool-${seed} avg` });
  }
  return out;
}

describe('pooling property cases (seeded)', () => {
  const cases = propertyCases();
  it('fast == reference == traced, walk == trace', () => {
    for (const { setup, label } of cases) {
      const r = execute(setup);
      expect(r.fast.map(hex), label).toEqual(setup.expected.map(hex));
      expect(r.traced.map(hex), label).toEqual(setup.expected.map(hex));
      expect(r.walkMatchesTrace, label).toBe(true);
    }
  });

  it('rejects mismatched input/output quantization with a constraint error', () => {
    const q = { scale: 0.05, zeroPoint: 3 };
    for (const kind of ['maxPool2d', 'averagePool2d'] as const) {
      const opts = { padding: 'valid' as const, strideH: 1, strideW: 1, filterH: 2, filterW: 2, activation: 'none' as const };
      const s = setupOp(kind, opts, [{ dtype: 'int8', shape: [1, 3, 3, 1], quant: q }], [{ dtype: 'int8', shape: [1, 2, 2, 1], quant: { ...q, zeroPoint: 4 } }], [], []);
      let err: unknown;
      try {
        prepareOp(s.graph, 0);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(McusimError);
      expect((err as McusimError).code).toBe('E_KERNEL_CONSTRAINT');
    }
  });
});

describe.skipIf(!hasGcc)('pooling emitted C (one gcc batch)', () => {
  it('reproduces every 5th oracle vector and the property cases', () => {
    const vectorSetups = OPS.flatMap((op) => loadCases(op).filter((_, i) => i % 5 === 0).map(setupVectorCase));
    const props = propertyCases();
    const setups = [...vectorSetups, ...props.map((p) => p.setup)];
    const lines = runC(setups);
    const expected = setups.flatMap((s) => s.expected.map(hex));
    expect(lines.length).toBe(expected.length);
    lines.forEach((l, i) => expect(l, `setup line ${i}`).toBe(expected[i]));
  });
});
