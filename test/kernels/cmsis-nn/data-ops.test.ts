// The CMSIS-NN specs of transpose, pad and maximum / minimum (src/kernels/specs/cmsis-nn/{transpose,
// pad,maximum-minimum}.ts): on seeded random shapes their outputs equal the reference specs' (the
// arithmetic agrees; the exceptions are arm_transpose_s8's perm-blind nhcw paths, shown apart),
// fast == traced == address walk, DSP pad's order IS the reference order (trace equality), and the
// access order / O_s differs from the reference where the C walks differently.
import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import type { Graph } from '../../../src/ir/index.ts';
import type { KernelRegistry, KernelSpec } from '../../../src/kernels/index.ts';
import { KERNELS, checkConstraints, kernelRegistry, makeOpContext } from '../../../src/kernels/index.ts';
import { armPadNest } from '../../../src/kernels/specs/cmsis-nn/pad.ts';
import { TRANSPOSE_PATH } from '../../../src/kernels/specs/cmsis-nn/transpose.ts';
import { MAX_MIN_LEVEL } from '../../../src/kernels/specs/cmsis-nn/maximum-minimum.ts';
import { buildSingleOpGraph, layoutOp, runLayout, safeOverlap, singleOpGraph } from '../../../src/optimizer/index.ts';
import { Tracer } from '../../../src/sim/index.ts';
import type { SingleOpSpec } from '../../../src/optimizer/index.ts';
import type { OpCase } from './helpers.ts';
import { int, runSpec, runSpecsC } from './helpers.ts';
import { hasGcc } from '../replay-helpers.ts';
import { opCase, shuffled } from './data-op-cases.ts';

const SEED = 'cmsis-nn-data-ops';
const PATHS: readonly [string, KernelRegistry][] = [
  ['plain C (m3)', kernelRegistry('cmsis-nn', 'cortex-m3')],
  ['DSP (m7)', kernelRegistry('cmsis-nn', 'cortex-m7')],
  ['MVE (m55)', kernelRegistry('cmsis-nn', 'cortex-m55')],
];
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

const isIdentity = (p: readonly number[]): boolean => p.every((d, k) => d === k);
const flag = (spec: KernelSpec, c: OpCase, name: string): number => spec.prepare(makeOpContext(c.graph, 0)).flags?.[name] ?? -1;

/** Run `spec` and the reference spec of its kind on `c`: output, fast == traced, walk == trace. */
function check(spec: KernelSpec, c: OpCase, where: string, sameAsReference = true): void {
  const got = runSpec(spec, c);
  expect(hex(got.traced), where).toBe(hex(got.output));
  expect(got.walkMatchesTrace, where).toBe(true);
  if (sameAsReference) expect(hex(got.output), where).toBe(hex(runSpec(KERNELS[spec.kind] as KernelSpec, c).output));
}

describe.each(PATHS)('CMSIS-NN transpose (%s)', (name, reg) => {
  const spec = reg.specs.transpose as KernelSpec;
  it('random int8 cases equal the reference bytes on every path (non-identity perms)', () => {
    const r = seedrandom(`${SEED}-transpose-${name}`);
    const paths = new Set<number>();
    for (let i = 0; i < 120; i++) {
      const rank = int(r, 1, 4);
      const input = Array.from({ length: rank }, () => int(r, 1, rank === 1 ? 40 : 9));
      let perm = shuffled(r, rank);
      if (rank > 1 && isIdentity(perm)) perm = [...perm.slice(1), 0];
      // MVE's nhcw (perm 0, 1, ...) swaps the last two dims whatever perm says: ask for that swap.
      if (rank === 4 && perm[0] === 0 && perm[1] === 1) perm = [0, 1, 3, 2];
      const c = opCase(r, { kind: 'transpose', input, perm });
      paths.add(flag(spec, c, 'cmsis'));
      check(spec, c, `${SEED} ${name} case ${i} ${JSON.stringify({ input, perm })}`);
    }
    const want: number[] = [TRANSPOSE_PATH.memcpy, TRANSPOSE_PATH.nhcw, TRANSPOSE_PATH.generic];
    expect([...paths].sort()).toEqual(want.sort());
  });

  it('rank 2 ignores perm: an identity perm [0, 1] is transposed (arm_transpose_s8_nhcw)', () => {
    const c = opCase(seedrandom(`${SEED}-t2`), { kind: 'transpose', input: [3, 5], perm: [0, 1] });
    const ref = runSpec(KERNELS.transpose as KernelSpec, c).output;
    const got = runSpec(spec, c).output;
    const x = c.inputs.get(c.graph.inputs[0]!)!;
    expect(hex(ref)).toBe(hex(x));
    const transposed = Uint8Array.from({ length: 15 }, (_, k) => x[(k % 3) * 5 + Math.floor(k / 3)]!);
    expect(hex(got)).toBe(hex(transposed));
  });

  it('int16 runs the reference kernel; rank-5 int8 is refused', () => {
    const c = opCase(seedrandom(`${SEED}-t5`), { kind: 'transpose', input: [1, 2, 1, 2, 3] });
    expect(checkConstraints(spec, makeOpContext(c.graph, 0)).map((i) => i.message.slice(1, i.message.indexOf(']')))).toEqual(['transpose.cmsis-nn-rank']);
    const g16: Graph = { ...c.graph, tensors: c.graph.tensors.map((t) => (t.dtype === 'int8' ? { ...t, dtype: 'int16' } : t)) };
    expect(flag(spec, { ...c, graph: g16 }, 'cmsis')).toBe(-1);
  });
});

describe('CMSIS-NN transpose access order', () => {
  // One load and one store per element through a bijection f (output index of input index i):
  // walking the output (reference) needs d >= max(f(i) - i) for the input d bytes above the
  // output, walking the input (CMSIS-NN) needs the same bound, so O_s is the same while the
  // traces differ; MVE's 8-lane gathers only move loads earlier.
  it('walks the input in order (the reference walks the output): traces differ, O_s is the same', () => {
    const r = seedrandom(`${SEED}-transpose-os`);
    let differing = 0;
    for (let i = 0; i < 30; i++) {
      const rank = int(r, 2, 4);
      const input = Array.from({ length: rank }, () => int(r, 2, 7));
      let perm = shuffled(r, rank);
      if (isIdentity(perm)) perm = [...perm.slice(1), 0];
      const g = buildSingleOpGraph({ kind: 'transpose', input, perm });
      const ref = safeOverlap(g, 0, { method: 'algorithmic' });
      const c = opCase(r, { kind: 'transpose', input, perm });
      const refEvents = JSON.stringify(runSpec(KERNELS.transpose as KernelSpec, c).events);
      for (const [name, reg] of PATHS) {
        const where = `case ${i} ${name} ${JSON.stringify({ input, perm })}`;
        const os = safeOverlap(g, 0, { method: 'algorithmic', registry: reg });
        expect(os, where).toBe(safeOverlap(g, 0, { method: 'trace', registry: reg }));
        expect(os, where).toBe(ref);
        if (JSON.stringify(runSpec(reg.specs.transpose as KernelSpec, c).events) !== refEvents) differing++;
      }
    }
    expect(differing).toBeGreaterThan(60);
  });
});

describe.each(PATHS)('CMSIS-NN pad (%s)', (name, reg) => {
  const spec = reg.specs.pad as KernelSpec;
  it('random int8 cases equal the reference bytes', () => {
    const r = seedrandom(`${SEED}-pad-${name}`);
    for (let i = 0; i < 80; i++) {
      const rank = int(r, 1, 4);
      const input = Array.from({ length: rank }, () => int(r, 1, 7));
      const pads = input.flatMap(() => [int(r, 0, 2), int(r, 0, 2)]);
      if (i % 3 === 0) pads[2 * rank - 2] = pads[2 * rank - 1] = 0;
      check(spec, opCase(r, { kind: 'pad', input, pads }), `${SEED} ${name} case ${i} ${JSON.stringify({ input, pads })}`);
    }
  });
});

describe('CMSIS-NN pad access order', () => {
  it("DSP / plain C: arm_pad_s8's memset / memcpy order is the reference order, event for event", () => {
    const r = seedrandom(`${SEED}-pad-order`);
    const dsp = kernelRegistry('cmsis-nn', 'cortex-m7');
    expect(dsp.specs.pad?.body).toBe(KERNELS.pad?.body);
    const mve = kernelRegistry('cmsis-nn', 'cortex-m55').specs.pad as KernelSpec<'pad'>;
    for (let i = 0; i < 40; i++) {
      const rank = int(r, 1, 4);
      const input = Array.from({ length: rank }, () => int(r, 1, 6));
      const pads = input.flatMap(() => [int(r, 0, 2), int(r, 0, 2)]);
      const c = opCase(r, { kind: 'pad', input, pads });
      // The MVE spec's prepare with the byte-order copies of DSP / plain C.
      const byteOrder: KernelSpec = { ...mve, body: () => armPadNest({ dsp: true, mve: false }) } as KernelSpec;
      const got = runSpec(byteOrder, c);
      const want = runSpec(KERNELS.pad as KernelSpec, c);
      expect(JSON.stringify(got.events), `case ${i} ${JSON.stringify({ input, pads })}`).toBe(JSON.stringify(want.events));
    }
  });

  it('MVE copies in 16-byte vectors (16 loads, then 16 stores); O_s stays the reference one', () => {
    const mve = kernelRegistry('cmsis-nn', 'cortex-m55');
    const c = opCase(seedrandom(`${SEED}-pad-mve`), { kind: 'pad', input: [1, 1, 1, 20], pads: [0, 0, 0, 0, 0, 0, 1, 0] });
    const kinds = runSpec(mve.specs.pad as KernelSpec, c).events.map((e) => (e.kind === 'load' ? 'l' : 's')).join('');
    expect(kinds).toBe(`s${'l'.repeat(16)}${'s'.repeat(16)}${'l'.repeat(4)}${'s'.repeat(4)}`);
    const r = seedrandom(`${SEED}-pad-mve-os`);
    for (let i = 0; i < 20; i++) {
      const input = [1, int(r, 1, 4), int(r, 1, 4), int(r, 1, 40)];
      const pads = input.flatMap(() => [int(r, 0, 1), int(r, 0, 1)]);
      const g = buildSingleOpGraph({ kind: 'pad', input, pads });
      const os = safeOverlap(g, 0, { method: 'algorithmic', registry: mve });
      expect(os).toBe(safeOverlap(g, 0, { method: 'trace', registry: mve }));
      expect(os, JSON.stringify({ input, pads })).toBe(safeOverlap(g, 0, { method: 'algorithmic' }));
    }
  });
});

describe.each(PATHS)('CMSIS-NN maximum / minimum (%s)', (name, reg) => {
  it.each(['maximum', 'minimum'] as const)('%s: random int8 cases (broadcast at every level) equal the reference bytes', (kind) => {
    const spec = reg.specs[kind] as KernelSpec;
    const r = seedrandom(`${SEED}-${kind}-${name}`);
    const levels = new Set<number>();
    let ran = 0;
    for (let i = 0; i < 120; i++) {
      const input = [int(r, 1, 2), int(r, 1, 4), int(r, 1, 5), int(r, 1, 20)];
      const second = i % 4 === 0 ? input : input.map((d) => (r() < 0.4 ? 1 : d)).slice(int(r, 0, 3));
      const c = opCase(r, { kind, input, second });
      if (checkConstraints(spec, makeOpContext(c.graph, 0)).length > 0) continue;
      levels.add(flag(spec, c, 'cmsis'));
      check(spec, c, `${SEED} ${name} ${kind} case ${i} ${JSON.stringify({ input, second })}`);
      ran++;
    }
    expect(ran).toBeGreaterThan(90);
    expect([...levels].sort()).toEqual([MAX_MIN_LEVEL.flat, MAX_MIN_LEVEL.batch, MAX_MIN_LEVEL.row, MAX_MIN_LEVEL.pixel].sort());
  });
});

describe('CMSIS-NN maximum / minimum access order', () => {
  it('a one-element input is read once, before the run (the reference reads it per element)', () => {
    const c = opCase(seedrandom(`${SEED}-scalar`), { kind: 'maximum', input: [1, 1, 2, 3], second: [1] });
    const count = (spec: KernelSpec): number => runSpec(spec, c).events.filter((e) => e.kind === 'load' && e.bufferId === c.graph.inputs[1]).length;
    expect(count(KERNELS.maximum as KernelSpec)).toBe(6);
    expect(count(kernelRegistry('cmsis-nn', 'cortex-m7').specs.maximum as KernelSpec)).toBe(1);
  });

  it('a broadcast that makes arm_maximum_s8 read past its input is refused', () => {
    const c = opCase(seedrandom(`${SEED}-overread`), { kind: 'maximum', input: [1, 3, 4, 2], second: [3, 1, 1] });
    const ids = checkConstraints(kernelRegistry('cmsis-nn', 'cortex-m7').specs.maximum as KernelSpec, makeOpContext(c.graph, 0)).map((i) => i.message.slice(1, i.message.indexOf(']')));
    expect(ids).toEqual(['maximum.cmsis-nn-broadcast']);
    expect(checkConstraints(KERNELS.maximum as KernelSpec, makeOpContext(c.graph, 0))).toEqual([]);
  });

  it('MVE: 16 + 16 loads then 16 stores per vector; O_s by walk = by trace = the reference (full)', () => {
    const c = opCase(seedrandom(`${SEED}-mve-order`), { kind: 'minimum', input: [1, 1, 1, 20] });
    const [a, b] = c.graph.inputs;
    const letters = (spec: KernelSpec): string => runSpec(spec, c).events.map((e) => (e.kind === 'store' ? 'o' : e.bufferId === a ? 'a' : e.bufferId === b ? 'b' : '?')).join('');
    expect(letters(KERNELS.minimum as KernelSpec)).toBe('abo'.repeat(20));
    expect(letters(kernelRegistry('cmsis-nn', 'cortex-m55').specs.minimum as KernelSpec)).toBe(`${'a'.repeat(16)}${'b'.repeat(16)}${'o'.repeat(16)}aaaabbbboooo`);
    const g = buildSingleOpGraph({ kind: 'minimum', input: [1, 5, 5, 7] });
    const mve = kernelRegistry('cmsis-nn', 'cortex-m55');
    const os = safeOverlap(g, 0, { method: 'algorithmic', registry: mve });
    expect(os).toBe(safeOverlap(g, 0, { method: 'trace', registry: mve }));
    expect(os).toBe(safeOverlap(g, 0, { method: 'algorithmic' }));
  });
});

describe.skipIf(!hasGcc)('C port of the CMSIS-NN data-op specs (codegen --kernels cmsis-nn)', () => {
  it('the emitted C gives the simulator bytes on every path and every nest shape', () => {
    const r = seedrandom(`${SEED}-c`);
    const ops = [
      { kind: 'transpose', input: [23], perm: [0] }, { kind: 'transpose', input: [5, 7], perm: [1, 0] },
      { kind: 'transpose', input: [3, 4, 5], perm: [2, 0, 1] }, { kind: 'transpose', input: [2, 3, 9, 4], perm: [0, 1, 3, 2] },
      { kind: 'transpose', input: [2, 3, 4, 5], perm: [3, 1, 0, 2] },
      { kind: 'pad', input: [1, 3, 4, 19], pads: [0, 0, 1, 2, 2, 1, 0, 0] }, { kind: 'pad', input: [2, 3, 4, 5], pads: [1, 0, 0, 1, 1, 0, 2, 1] },
      { kind: 'maximum', input: [1, 3, 4, 21] }, { kind: 'minimum', input: [2, 3, 4, 5], second: [1] },
      { kind: 'maximum', input: [2, 3, 4, 5], second: [3, 1, 5] }, { kind: 'minimum', input: [2, 3, 4, 5], second: [4, 1] },
      { kind: 'maximum', input: [2, 3, 4, 5], second: [1, 4, 5] },
    ] as const;
    const runs = PATHS.flatMap(([, reg]) => ops.map((s) => {
      const c = opCase(r, s);
      return [reg.specs[s.kind] as KernelSpec, c] as const;
    }));
    expect(runSpecsC(runs)).toEqual(runs.map(([spec, c]) => hex(runSpec(spec, c).output)));
  });
});

describe('CMSIS-NN data-op and svdf specs under the tracer', () => {
  it.each(PATHS)('%s: clean traces (no read of unwritten bytes, variable state checked)', (_name, registry) => {
    const ops = [
      { kind: 'transpose', input: [2, 3, 5, 4], perm: [0, 1, 3, 2] }, { kind: 'transpose', input: [3, 4, 5], perm: [1, 2, 0] },
      { kind: 'pad', input: [1, 3, 4, 19], pads: [0, 0, 1, 0, 2, 1, 1, 2] }, { kind: 'maximum', input: [2, 3, 4, 5], second: [3, 1, 5] },
      { kind: 'minimum', input: [1, 3, 4, 21], second: [1] }, { kind: 'svdf', input: [2, 9], outChannels: 5, filter: [2, 4] },
    ] as const;
    for (const s of ops) {
      const l = layoutOp(singleOpGraph(buildSingleOpGraph(s), 0), null, { registry });
      const tracer = new Tracer({ graph: l.graph, tensorOffsets: l.tensorOffsets, scratchOffsets: l.scratchOffsets, arenaBytes: l.arenaBytes, registry });
      runLayout(l, 1, [tracer.sink]);
      tracer.finish();
      expect(tracer.violations(), JSON.stringify(s)).toEqual([]);
    }
  });
});
