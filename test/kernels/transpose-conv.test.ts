// TransposeConv int8: TFLM oracle vectors through every reading of the spec, the scratch buffer
// declared exactly as micro transpose_conv.cc requests it, the scatter loop order in the trace,
// and seeded random cases beyond the vectors (fast == traced == C, walk == trace); the
// scratch-free gather form against the same vectors and the scatter form.
import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import { decodeTraceEvent, prepareOp, scratchRequests } from '../../src/kernels/index.ts';
import type { ConformanceSetup, VectorCase } from '../../src/sim/index.ts';
import { setupVectorCase } from '../../src/sim/index.ts';
import { collectTrace, hasGcc, hex, loadCases, oracleReplaySuite, replayAgrees, runC, runSetup, vt } from './replay-helpers.ts';

oracleReplaySuite('TRANSPOSE_CONV');

const ACTS = ['NONE', 'RELU', 'RELU6', 'RELU_N1_TO_1'] as const;
const int = (rng: () => number, lo: number, hi: number): number => lo + Math.floor(rng() * (hi - lo + 1));

function transposeConvCase(rng: () => number, id: number): VectorCase {
  const [n, inH, inW, inD, outD] = [int(rng, 1, 2), int(rng, 1, 6), int(rng, 1, 6), int(rng, 1, 6), int(rng, 1, 6)];
  const [kh, kw, sh, sw] = [int(rng, 1, 4), int(rng, 1, 4), int(rng, 1, 3), int(rng, 1, 3)];
  const padding = rng() < 0.5 ? 'SAME' : 'VALID';
  // TFLM takes the output size from the output tensor: usually the natural one, sometimes off by one.
  const natural = (i: number, k: number, s: number): number => (padding === 'SAME' ? i * s : (i - 1) * s + k);
  const jitter = (): number => (rng() < 0.2 ? int(rng, -1, 1) : 0);
  const outH = Math.max(1, natural(inH, kh, sh) + jitter());
  const outW = Math.max(1, natural(inW, kw, sw) + jitter());
  const perChannel = rng() < 0.7;
  const inS = Math.fround(0.005 + rng() * 0.1);
  const wS = Array.from({ length: perChannel ? outD : 1 }, () => Math.fround(0.002 + rng() * 0.03));
  const outS = Math.fround(inS * (wS[0] ?? 0.01) * (20 + rng() * 200));
  const inZp = int(rng, -128, 127);
  const hasBias = rng() < 0.7;
  const fCount = outD * kh * kw * inD;
  const inputs = [
    vt('output_shape', 'int32', [4], [n, outH, outW, outD], null, true),
    vt('filter', 'int8', [outD, kh, kw, inD], Array.from({ length: fCount }, () => int(rng, -127, 127)), { scale: wS, zp: wS.map(() => 0) }, true),
    vt('input', 'int8', [n, inH, inW, inD], Array.from({ length: n * inH * inW * inD }, () => int(rng, -128, 127)), { scale: [inS], zp: [inZp] }),
    ...(hasBias ? [vt('bias', 'int32', [outD], Array.from({ length: outD }, () => int(rng, -5000, 5000)), { scale: wS.map((w) => inS * w), zp: wS.map(() => 0) }, true)] : []),
  ];
  const outCount = n * outH * outW * outD;
  return {
    op: 'TRANSPOSE_CONV', id,
    options: { padding, stride_h: sh, stride_w: sw, fused_activation: ACTS[int(rng, 0, 3)], has_bias: hasBias, per_channel: perChannel },
    inputs,
    outputs: [vt('output', 'int8', [n, outH, outW, outD], new Array(outCount).fill(0), { scale: [outS], zp: [int(rng, -128, 127)] })],
  };
}

describe('transposeConv scratch and loop order', () => {
  const c = transposeConvCase(seedrandom('tconv-scratch'), 0);
  const s = setupVectorCase(c);

  it('declares one int32 scratch of output elements x 4 bytes, as TFLM requests', () => {
    const p = prepareOp(s.graph, 0).prepared;
    const outElems = s.graph.tensors[s.graph.ops[0]!.outputs[0]!]!.shape.reduce((a, b) => a * b, 1);
    expect(p.scratch.map((d) => d.sizeBytes)).toEqual([outElems * 4]);
    expect(scratchRequests(s.graph, 0)).toEqual([outElems * 4]);
    expect(p.scratch[0]?.dtype).toBe('int32');
  });

  it('zeroes the scratch first, scatters into it, and stores the output last', () => {
    const t = collectTrace();
    runSetup(s, t.sink);
    const bytes = t.bytes();
    const log = new Int32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4);
    const events = Array.from({ length: log.length / 2 }, (_, i) => decodeTraceEvent(log, i));
    const outCount = c.outputs[0]!.data.length;
    const zeroing = events.slice(0, outCount);
    expect(zeroing.every((e) => e.kind === 'store' && e.bufferId === -1 && e.widthBytes === 4)).toBe(true);
    const outputTensor = s.graph.ops[0]!.outputs[0];
    const outStores = events.filter((e) => e.bufferId === outputTensor);
    expect(outStores.length).toBe(outCount);
    // The requantize pass reads the scratch once per output element, then the output stores end.
    expect(events[events.length - 1]?.bufferId).toBe(outputTensor);
    const firstOut = events.findIndex((e) => e.bufferId === outputTensor);
    expect(events.slice(outCount, firstOut - 1).every((e) => e.bufferId !== outputTensor)).toBe(true);
  });
});

describe('transposeConv seeded property cases', () => {
  const seed = 'tconv-prop-1';
  it(`fast == traced, walk == trace, C == fast (seed ${seed})`, () => {
    const rng = seedrandom(seed);
    const setups: ConformanceSetup[] = [];
    const fast: string[] = [];
    for (let i = 0; i < 40; i++) {
      const s = setupVectorCase(transposeConvCase(rng, i));
      const r = replayAgrees(s);
      expect(r.same, `seed ${seed} case ${i}`).toBe(true);
      setups.push(s);
      fast.push(...r.fast.map(hex));
    }
    if (hasGcc) expect(runC(setups), `seed ${seed}`).toEqual(fast);
  });
});

/** The same case with the scratch-free gather form (mcusim extension): no scratch buffer. */
function gatherForm(s: ConformanceSetup): ConformanceSetup {
  const ops = s.graph.ops.map((o) => (o.kind === 'transposeConv' ? { ...o, options: { ...o.options, scratchFree: true } } : o));
  return { ...s, graph: { ...s.graph, ops }, scratchOffsets: [] };
}

describe('transposeConv scratch-free gather form', () => {
  it('declares no scratch', () => {
    const s = gatherForm(setupVectorCase(transposeConvCase(seedrandom('tconv-gather-decl'), 0)));
    expect(prepareOp(s.graph, 0).prepared.scratch).toEqual([]);
    expect(scratchRequests(s.graph, 0)).toEqual([]);
  });

  it('gives the TFLM bytes on every oracle vector', () => {
    const cases = loadCases('TRANSPOSE_CONV');
    expect(cases.length).toBeGreaterThan(0);
    for (const c of cases) {
      const s = gatherForm(setupVectorCase(c));
      expect(runSetup(s).map(hex), `vector ${c.id}`).toEqual(s.expected.map(hex));
    }
  });

  const seed = 'tconv-gather-1';
  it(`equals the scatter form on seeded cases: fast == traced, walk == trace, C == fast (seed ${seed})`, () => {
    const rng = seedrandom(seed);
    const setups: ConformanceSetup[] = [];
    const fast: string[] = [];
    for (let i = 0; i < 60; i++) {
      const scatter = setupVectorCase(transposeConvCase(rng, i));
      const s = gatherForm(scatter);
      const r = replayAgrees(s);
      expect(r.same, `seed ${seed} case ${i}`).toBe(true);
      expect(r.fast.map(hex), `seed ${seed} case ${i}`).toEqual(runSetup(scatter).map(hex));
      setups.push(s);
      fast.push(...r.fast.map(hex));
    }
    if (hasGcc) expect(runC(setups), `seed ${seed}`).toEqual(fast);
  });
});
