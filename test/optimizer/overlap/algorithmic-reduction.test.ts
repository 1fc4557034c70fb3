// The algorithmic O_s reduction (DMO paper §III-C) three ways that must agree: the paper's minR/maxW
// arrays with their reverse pass (written out here), the one-pass event sink (algorithmicReduction,
// on random event streams fed in random chunks), and the reduction folded into the kernels' address
// walk (overlapWalk, on random one-op graphs of every kind, against the sink over walkAddresses).
import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import type { BuiltinKind } from '../../../src/ir/index.ts';
import { KERNELS, instantiateOp, overlapWalk, prepareOp, traceHeader, walkAddresses } from '../../../src/kernels/index.ts';
import type { OverlapScale } from '../../../src/optimizer/index.ts';
import { algorithmicReduction, buildSingleOpGraph, diagonalPair, layoutOp, overlapScale } from '../../../src/optimizer/index.ts';
import { randomOverlapSpec } from '../../../src/api/index.ts';

type Event = readonly [header: number, address: number];

/** The paper's method as written: per output store k, maxW[k] and minR[k] (lowest input position
 * loaded after store k, before store k+1), then minD = min over i of suffix-min(minR)[i] - maxW[i]. */
function paperMinD(events: readonly Event[], s: OverlapScale, input: number, output: number): number {
  const maxW: number[] = [];
  const minR: number[] = [];
  let cur = -Infinity;
  for (const [h, addr] of events) {
    if (h & 8) {
      if (h >> 4 !== output) continue;
      cur = Math.max(cur, ((addr - s.outOff) / s.outW + 1) * s.outB);
      maxW.push(cur);
      minR.push(Infinity);
    } else if (h >> 4 === input && minR.length > 0) {
      minR[minR.length - 1] = Math.min(minR[minR.length - 1] as number, ((addr - s.inOff) / s.inW) * s.inB);
    }
  }
  let run = Infinity;
  let minD = 0;
  for (let i = maxW.length - 1; i >= 0; i--) {
    run = Math.min(run, minR[i] as number);
    minD = Math.min(minD, run - (maxW[i] as number));
  }
  return minD;
}

const WIDTHS = [1, 2, 4] as const;

describe('algorithmic O_s reduction', () => {
  it('the one-pass sink equals the paper\'s minR/maxW arrays on 400 random event streams', () => {
    const rng = seedrandom('reduction-streams');
    const int = (n: number): number => Math.floor(rng() * n);
    let nonZero = 0;
    for (let c = 0; c < 400; c++) {
      const inW = WIDTHS[int(3)] as number;
      const outW = WIDTHS[int(3)] as number;
      const scaled = rng() < 0.3 ? 1 + int(8) : undefined;
      const s: OverlapScale = { inOff: 16 * int(64), inW, inB: scaled ?? inW, outOff: 16 * int(64), outW, outB: scaled ?? outW };
      const input = 1 + int(3);
      const output = rng() < 0.1 ? input : 4;
      const ids = [input, output, 7, -1, -2];
      const events: Event[] = [];
      for (let i = int(300); i > 0; i--) {
        const store = rng() < 0.35;
        const id = ids[int(ids.length)] as number;
        const w = id === input ? inW : id === output ? outW : 1;
        const base = id === input ? s.inOff : id === output ? s.outOff : 0;
        events.push([traceHeader(store ? 'store' : 'load', w, id), base + w * int(200)]);
      }
      const r = algorithmicReduction(s, input, output);
      const log = new Int32Array(2 * events.length + 2);
      for (let at = 0; at < events.length;) {
        const n = Math.min(events.length - at, 1 + int(40));
        for (let k = 0; k < n; k++) log.set(events[at + k] as Event, 2 * k);
        r.sink(0, log, n);
        at += n;
      }
      const want = paperMinD(events, s, input, output);
      expect(r.minDiff(), `stream ${c}`).toBe(want);
      if (want !== 0) nonZero++;
    }
    // The streams exercise the reduction, not only its starting value.
    expect(nonZero).toBeGreaterThan(200);
  });

  it('folded into the address walk (overlapWalk) it equals the sink over walkAddresses: every kind, 8 random ops each', () => {
    const storage = new Set<string>(['spill', 'fetching', 'fetchingConv2d', 'merge']);
    const kinds = (Object.keys(KERNELS) as BuiltinKind[]).filter((k) => !storage.has(k));
    let nonZero = 0;
    for (const kind of kinds) {
      for (let i = 0; i < 8; i++) {
        const seed = `walk-${kind}-${i}`;
        const g = buildSingleOpGraph(randomOverlapSpec(kind, seedrandom(seed), seed));
        const elementBytes = i % 4 === 3 ? 4 : undefined;
        const l = layoutOp(g, null);
        const s = overlapScale(l, elementBytes);
        const inst = instantiateOp(l.graph, prepareOp(l.graph, 0), l.tensorOffsets, l.scratchOffsets[0] ?? []);
        const r = algorithmicReduction(s, l.input, l.output);
        walkAddresses(inst, r.sink);
        const folded = overlapWalk(inst, diagonalPair(l, s));
        expect(folded, seed).toBe(r.minDiff());
        if (folded !== 0) nonZero++;
      }
    }
    expect(nonZero).toBeGreaterThan(kinds.length);
  });

  it('the folded walk remembers results by its code and what it reads: gathers that differ only in their constant indices (an array the walk reads) differ', () => {
    const fold = (indices: number[]): { folded: number; sink: number } => {
      const g = buildSingleOpGraph({ kind: 'gather', input: [8, 4, 3], indices });
      const l = layoutOp(g, null);
      const inst = instantiateOp(l.graph, prepareOp(l.graph, 0), l.tensorOffsets, l.scratchOffsets[0] ?? []);
      const s = overlapScale(l);
      const r = algorithmicReduction(s, l.input, l.output);
      walkAddresses(inst, r.sink);
      return { folded: overlapWalk(inst, diagonalPair(l, s)), sink: r.minDiff() };
    };
    // Each asked twice: the second answer comes from the remembered result.
    const runs = [[0, 1, 2, 3, 4, 5, 6, 7], [7, 6, 5, 4, 3, 2, 1, 0], [0, 1, 2, 3, 4, 5, 6, 7], [7, 6, 5, 4, 3, 2, 1, 0]].map(fold);
    for (const r of runs) expect(r.folded).toBe(r.sink);
    expect(runs[0]?.folded).not.toBe(runs[1]?.folded);
  });
});

