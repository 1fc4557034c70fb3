// FDT and FFMT graph transforms: bit-exact outputs on random small graphs (property test),
// padding handling at tile borders (FFMT MACs may even drop: outputs no later op reads are not computed), partition counts, and coded errors for invalid paths.
import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import { GraphBuilder, McusimError, buildZooModel, findModelIssues } from '../../../src/ir/index.ts';
import type { Model } from '../../../src/ir/index.ts';
import { applyFdt, applyFfmt, graphMacs, preparePlannedModel, runPlanned, splitSizes } from '../../../src/optimizer/index.ts';

function sameOutputs(a: Model, b: Model, seeds: readonly number[]): boolean {
  const pa = preparePlannedModel(a);
  const pb = preparePlannedModel(b);
  return seeds.every((seed) => {
    const oa = runPlanned(pa, { seed }).outputs;
    const ob = runPlanned(pb, { seed }).outputs;
    return oa.every((o, i) => Buffer.from(o).equals(Buffer.from(ob[i] as Uint8Array)));
  });
}

function codeOf(f: () => unknown): string | undefined {
  try {
    f();
    return undefined;
  } catch (e) {
    return e instanceof McusimError ? e.code : 'raw';
  }
}

const pick = <T>(rng: seedrandom.PRNG, xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)] as T;

/** input -> conv (ops[0]) -> 1..3 spatially local / channel-local ops -> conv: a random chain. */
function randomChain(seed: string): { model: Model; middle: number[] } {
  const rng = seedrandom(seed);
  const b = new GraphBuilder(seed);
  let x = b.input('in', [1, 5 + Math.floor(rng() * 8), 5 + Math.floor(rng() * 8), 1 + Math.floor(rng() * 4)], { scale: 0.04, zeroPoint: Math.floor(rng() * 40) - 20 });
  x = b.conv2d(x, { name: 'c0', outChannels: 3 + Math.floor(rng() * 8), kernel: pick(rng, [1, 2, 3]), stride: pick(rng, [1, 1, 2]), padding: pick(rng, ['same', 'valid'] as const), activation: pick(rng, ['relu', 'none', 'relu6'] as const) });
  const middle: number[] = [];
  const n = 1 + Math.floor(rng() * 3);
  for (let i = 0; i < n; i++) {
    const kind = pick(rng, ['dw', 'max', 'avg'] as const);
    const small = (x.shape[1] ?? 0) < 6 || (x.shape[2] ?? 0) < 6;
    if (kind === 'dw' || small) {
      x = b.depthwiseConv2d(x, { name: `dw${i}`, kernel: small ? 1 : pick(rng, [1, 3, [3, 2]] as const), stride: small ? 1 : pick(rng, [1, 2]), padding: pick(rng, ['same', 'valid'] as const), activation: 'relu' });
    } else if (kind === 'max') {
      x = b.maxPool2d(x, { name: `mp${i}`, filter: pick(rng, [2, 3]), stride: 2, padding: pick(rng, ['same', 'valid'] as const) });
    } else {
      x = b.averagePool2d(x, { name: `ap${i}`, filter: pick(rng, [2, 3]), stride: pick(rng, [1, 2]), padding: pick(rng, ['same', 'valid'] as const) });
    }
    middle.push(i + 1);
  }
  x = b.conv2d(x, { name: 'c1', outChannels: 2 + Math.floor(rng() * 5), kernel: pick(rng, [1, 3]), padding: 'same', activation: 'relu' });
  return { model: b.build(`random chain ${seed}`, [x]), middle };
}

describe('tiling transforms', () => {
  it('splitSizes covers the range with near-equal parts', () => {
    expect(splitSizes(10, 3)).toEqual([{ start: 0, size: 4 }, { start: 4, size: 3 }, { start: 7, size: 3 }]);
  });

  it('property: FDT (concat and merge ends) and FFMT keep random graphs bit-exact', () => {
    let fdtChecked = 0;
    let ffmtChecked = 0;
    for (let s = 0; s < 16; s++) {
      const seed = `tiling-prop-${s}`;
      const { model, middle } = randomChain(seed);
      const rng = seedrandom(`${seed}-cfg`);
      const channels = model.graph.tensors[model.graph.ops[0]!.outputs[0]!]!.shape[3]!;
      const n = 2 + Math.floor(rng() * (channels - 1));
      const fanIn = rng() < 0.5 ? middle.length + 1 : null;
      const fdt = applyFdt(model, { fanOut: 0, part: middle, fanIn, partitions: fanIn === null ? Math.min(n, 10) : n });
      expect(findModelIssues(fdt), `seed ${seed}`).toEqual([]);
      expect(sameOutputs(model, fdt, [1, 2]), `FDT seed ${seed}`).toBe(true);
      expect(graphMacs(fdt.graph), `seed ${seed}`).toBe(graphMacs(model.graph));
      fdtChecked++;
      const ops = [0, ...middle, middle.length + 1].slice(Math.floor(rng() * 2));
      const y = model.graph.tensors[model.graph.ops[ops[ops.length - 1]!]!.outputs[0]!]!;
      const grid = { gridH: 1 + Math.floor(rng() * Math.min(3, y.shape[1]!)), gridW: 1 + Math.floor(rng() * Math.min(3, y.shape[2]!)) };
      if (grid.gridH * grid.gridW < 2) continue;
      let ffmt: Model;
      try {
        ffmt = applyFfmt(model, { ops, ...grid });
      } catch (e) {
        expect(e instanceof McusimError && e.code === 'E_PLAN_INFEASIBLE', `seed ${seed}: ${String(e)}`).toBe(true);
        continue;
      }
      expect(findModelIssues(ffmt), `seed ${seed}`).toEqual([]);
      expect(sameOutputs(model, ffmt, [1, 2]), `FFMT seed ${seed} ${JSON.stringify({ ops, grid })}`).toBe(true);
      ffmtChecked++;
    }
    expect(fdtChecked).toBe(16);
    expect(ffmtChecked).toBeGreaterThan(5);
  });

  it('FFMT handles SAME borders on 3x3 stride-2 pooling and 5x5 convs (cifar10-cnn)', () => {
    const m = buildZooModel('cifar10-cnn');
    for (const [gh, gw] of [[2, 2], [3, 1], [1, 3]] as const) {
      const t = applyFfmt(m, { ops: [0, 1], gridH: gh, gridW: gw });
      expect(sameOutputs(m, t, [1])).toBe(true);
      expect(preparePlannedModel(t).plan.peakBytes).toBeLessThan(preparePlannedModel(m).plan.peakBytes);
    }
  });

  it('rejects invalid paths with E_PLAN_INFEASIBLE', () => {
    const m = buildZooModel('ds-cnn-kws');
    expect(codeOf(() => applyFdt(m, { fanOut: 1, part: [], fanIn: 2, partitions: 2 }))).toBe('E_PLAN_INFEASIBLE');
    expect(codeOf(() => applyFdt(m, { fanOut: 0, part: [1], fanIn: 2, partitions: 65 }))).toBe('E_PLAN_INFEASIBLE');
    expect(codeOf(() => applyFdt(m, { fanOut: 0, part: [2], fanIn: null, partitions: 2 }))).toBe('E_PLAN_INFEASIBLE');
    expect(codeOf(() => applyFdt(m, { fanOut: 0, part: [1], fanIn: null, partitions: 12 }))).toBe('E_PLAN_INFEASIBLE');
    expect(codeOf(() => applyFfmt(m, { ops: [9, 10], gridH: 2, gridW: 1 }))).toBe('E_PLAN_INFEASIBLE');
    expect(codeOf(() => applyFfmt(m, { ops: [1], gridH: 1, gridW: 1 }))).toBe('E_PLAN_INFEASIBLE');
  });
});
