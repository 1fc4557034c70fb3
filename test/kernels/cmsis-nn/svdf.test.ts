// The CMSIS-NN SVDF spec (src/kernels/specs/cmsis-nn/svdf.ts, arm_svdf_state_s16_s8 / arm_svdf_s8 on
// each path): int16 state with zero point 0 (what converters write) gives the reference bytes,
// fast == traced == address walk on int16 and int8 states, the trace follows the C (row groups,
// zero store before each time sum, no bias pre-store), and O_s of input -> output stays the full
// overlap (the input is read before any output store in both orders). The int8-state arithmetic
// (no state zero point, int16 clamp then wrap) is checked against the recorded C in host-c-replay.test.ts.
import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import type { KernelSpec } from '../../../src/kernels/index.ts';
import { KERNELS, kernelRegistry } from '../../../src/kernels/index.ts';
import { buildSingleOpGraph, safeOverlap } from '../../../src/optimizer/index.ts';
import { svdfCase } from '../stateful-generators.ts';
import type { OpCase } from './helpers.ts';
import { runSpec, runSpecsC } from './helpers.ts';
import { hasGcc } from '../replay-helpers.ts';

const SEED = 'cmsis-nn-svdf';
const CPUS = ['cortex-m3', 'cortex-m7', 'cortex-m55'] as const;
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

function caseOf(r: () => number): { c: OpCase; stateType: string } {
  const s = svdfCase(r);
  const c = { graph: s.graph, inputs: new Map(s.graph.inputs.map((t, k) => [t, s.inputs[k]!] as const)), output: s.graph.outputs[0]! };
  return { c, stateType: s.graph.tensors[s.graph.ops[0]!.inputs[4]!]!.dtype };
}

describe.each(CPUS)('CMSIS-NN svdf (%s)', (cpu) => {
  const spec = kernelRegistry('cmsis-nn', cpu).specs.svdf as KernelSpec;
  it('random cases: int16 state equals the reference bytes; fast == traced == walk on both state types', () => {
    const r = seedrandom(`${SEED}-${cpu}`);
    const seen = new Set<string>();
    for (let i = 0; i < 60; i++) {
      const { c, stateType } = caseOf(r);
      const where = `${SEED} ${cpu} case ${i} (${stateType} state)`;
      const got = runSpec(spec, c);
      expect(hex(got.traced), where).toBe(hex(got.output));
      expect(got.walkMatchesTrace, where).toBe(true);
      expect(got.scratchBytes, where).toEqual(runSpec(KERNELS.svdf as KernelSpec, c).scratchBytes);
      if (stateType === 'int16') expect(hex(got.output), where).toBe(hex(runSpec(KERNELS.svdf as KernelSpec, c).output));
      seen.add(stateType);
    }
    expect([...seen].sort()).toEqual(['int16', 'int8']);
  });
});

describe('CMSIS-NN svdf access order', () => {
  it('traces differ from the reference (row groups, zero store, no bias pre-store); O_s stays the full overlap', () => {
    const spec = { kind: 'svdf', input: [2, 9], outChannels: 5, filter: [1, 4] } as const;
    const g = buildSingleOpGraph(spec);
    const ref = safeOverlap(g, 0, { method: 'algorithmic' });
    for (const cpu of CPUS) {
      const reg = kernelRegistry('cmsis-nn', cpu);
      const os = safeOverlap(g, 0, { method: 'algorithmic', registry: reg });
      expect(os, cpu).toBe(safeOverlap(g, 0, { method: 'trace', registry: reg }));
      expect(os, cpu).toBe(ref);
    }
    const c = caseOf(seedrandom(`${SEED}-order`)).c;
    const scratchStores = (s: KernelSpec): number => runSpec(s, c).events.filter((e) => e.kind === 'store' && e.bufferId === -1).length;
    const filtersTimesBatches = (c.graph.tensors[c.graph.ops[0]!.inputs[1]!]!.shape[0] ?? 0) * (c.graph.tensors[c.graph.ops[0]!.inputs[0]!]!.shape[0] ?? 0);
    expect(scratchStores(KERNELS.svdf as KernelSpec)).toBe(filtersTimesBatches);
    expect(scratchStores(kernelRegistry('cmsis-nn', 'cortex-m7').specs.svdf as KernelSpec)).toBe(2 * filtersTimesBatches);
  });
});

describe.skipIf(!hasGcc)('C port of the CMSIS-NN svdf spec', () => {
  it('the emitted C gives the simulator bytes on every path (int16 and int8 states)', () => {
    const r = seedrandom(`${SEED}-c`);
    const runs = CPUS.flatMap((cpu) => Array.from({ length: 6 }, () => [kernelRegistry('cmsis-nn', cpu).specs.svdf as KernelSpec, caseOf(r).c] as const));
    expect(runSpecsC(runs)).toEqual(runs.map(([spec, c]) => hex(runSpec(spec, c).output)));
  });
});
