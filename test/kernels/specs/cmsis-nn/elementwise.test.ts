// CMSIS-NN add and mul (arm_elementwise_add_s8 / _mul_s8 in 4-element blocks on DSP and MVE, the
// reference loop on plain C and for broadcasting inputs): the same bytes as the reference kernel on
// seeded random cases, clean traces, walk = trace, and the block order in the trace.
import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import { kernelRegistry, KERNELS } from '../../../../src/kernels/index.ts';
import type { KernelRegistry } from '../../../../src/kernels/index.ts';
import { buildSingleOpGraph, layoutOp, runLayout, safeOverlap, singleOpGraph } from '../../../../src/optimizer/index.ts';
import type { SingleOpSpec } from '../../../../src/optimizer/index.ts';
import { Tracer } from '../../../../src/sim/index.ts';

const SEED = 'cmsis-nn-elementwise';
const PATHS: readonly [string, KernelRegistry][] = [['DSP (m7)', kernelRegistry('cmsis-nn', 'cortex-m7')], ['MVE (m55)', kernelRegistry('cmsis-nn', 'cortex-m55')]];
const REFERENCE = kernelRegistry('reference');

function traced(spec: SingleOpSpec, registry: KernelRegistry, seed: number): { outputs: Uint8Array[]; violations: number; headers: number[] } {
  const l = layoutOp(singleOpGraph(buildSingleOpGraph(spec), 0), null, { registry });
  const tracer = new Tracer({ graph: l.graph, tensorOffsets: l.tensorOffsets, scratchOffsets: l.scratchOffsets, arenaBytes: l.arenaBytes, registry });
  const headers: number[] = [];
  const outputs = runLayout(l, seed, [tracer.sink, (_op, log, count) => {
    for (let i = 0; i < count; i++) headers.push(log[2 * i] as number);
  }]);
  tracer.finish();
  return { outputs, violations: tracer.violations().length, headers };
}

describe('CMSIS-NN add and mul specs', () => {
  it('plain C keeps the reference spec', () => {
    const c = kernelRegistry('cmsis-nn', 'cortex-m3').specs;
    expect([c.add, c.mul]).toEqual([KERNELS.add, KERNELS.mul]);
  });

  for (const kind of ['add', 'mul'] as const) {
    it(`${kind}: same bytes as the reference kernel, clean trace, walk = trace (seed ${SEED})`, () => {
      const rng = seedrandom(`${SEED}-${kind}`);
      const int = (lo: number, hi: number): number => lo + Math.floor(rng() * (hi - lo + 1));
      for (let n = 0; n < 20; n++) {
        const input = [1, int(1, 5), int(1, 5), int(1, 7)];
        // Every third case broadcasts the second input along the channels.
        const spec: SingleOpSpec = { kind, input, ...(n % 3 === 2 ? { second: [1, 1, 1, input[3] as number] } : {}), seed: `${rng()}` };
        const label = `case ${n}: ${JSON.stringify(spec)}`;
        const expected = traced(spec, REFERENCE, n + 1).outputs;
        for (const [path, registry] of PATHS) {
          const got = traced(spec, registry, n + 1);
          expect(got.outputs, `${label} ${path}`).toEqual(expected);
          expect(got.violations, `${label} ${path}`).toBe(0);
          const g = buildSingleOpGraph(spec);
          expect(safeOverlap(g, 0, { method: 'algorithmic', registry }), `${label} ${path}`).toBe(safeOverlap(g, 0, { method: 'trace', registry }));
        }
      }
    });
  }

  it('DSP trace: 4 loads of input 1, 4 of input 2, 4 stores, then the tail element by element', () => {
    const spec: SingleOpSpec = { kind: 'add', input: [1, 1, 1, 6] };
    const kinds = (r: KernelRegistry): string => {
      const l = layoutOp(singleOpGraph(buildSingleOpGraph(spec), 0), null, { registry: r });
      const names = new Map([[l.graph.inputs[0], 'a'], [l.graph.inputs[1], 'b'], [l.output, 'o']]);
      return traced(spec, r, 1).headers.map((h) => names.get(h >> 4) ?? '?').join('');
    };
    expect(kinds(REFERENCE)).toBe('abo'.repeat(6));
    expect(kinds(kernelRegistry('cmsis-nn', 'cortex-m7'))).toBe('aaaabbbboooo' + 'abo'.repeat(2));
    expect(kinds(kernelRegistry('cmsis-nn', 'cortex-m55'))).toBe('aaaabbbboooo' + 'aabboo');
  });
});
