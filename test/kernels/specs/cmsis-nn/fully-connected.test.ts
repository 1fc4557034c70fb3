// CMSIS-NN fully connected (arm_nn_vec_mat_mult_t_s8 groups: MVE 4, DSP 2, plain C 3 output
// channels per input pass): the same bytes as the reference kernel on seeded random cases, clean
// traces, walk = trace; the access order is CMSIS-NN's (each input element read once per group, the
// group's outputs stored after it); memory per path; the 1x1-conv path is refused, not guessed.
import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import { McusimError } from '../../../../src/ir/index.ts';
import type { Graph } from '../../../../src/ir/index.ts';
import { kernelRegistry, prepareGraph, scratchRequests } from '../../../../src/kernels/index.ts';
import type { KernelRegistry } from '../../../../src/kernels/index.ts';
import { buildSingleOpGraph, layoutOp, runLayout, safeOverlap, singleOpGraph } from '../../../../src/optimizer/index.ts';
import type { SingleOpSpec } from '../../../../src/optimizer/index.ts';
import { Tracer, getTflmArch, modelPersistent } from '../../../../src/sim/index.ts';

const SEED = 'cmsis-nn-fc';
const PATHS: readonly [string, KernelRegistry][] = [['plain C (m0+)', kernelRegistry('cmsis-nn', 'cortex-m0plus')], ['DSP (m33)', kernelRegistry('cmsis-nn', 'cortex-m33')], ['MVE (m85)', kernelRegistry('cmsis-nn', 'cortex-m85')]];
const REFERENCE = kernelRegistry('reference');

function traced(spec: SingleOpSpec, registry: KernelRegistry, seed: number): { outputs: Uint8Array[]; violations: number; loads: number } {
  const l = layoutOp(singleOpGraph(buildSingleOpGraph(spec), 0), null, { registry });
  const tracer = new Tracer({ graph: l.graph, tensorOffsets: l.tensorOffsets, scratchOffsets: l.scratchOffsets, arenaBytes: l.arenaBytes, registry });
  let loads = 0;
  const outputs = runLayout(l, seed, [tracer.sink, (_op, log, count) => {
    for (let i = 0; i < count; i++) if (((log[2 * i] as number) & 8) === 0 && (log[2 * i] as number) >> 4 === l.input) loads++;
  }]);
  tracer.finish();
  return { outputs, violations: tracer.violations().length, loads };
}

describe('CMSIS-NN fully connected spec', () => {
  it(`same bytes as the reference kernel on every path, clean trace, walk = trace (seed ${SEED})`, () => {
    const rng = seedrandom(SEED);
    const int = (lo: number, hi: number): number => lo + Math.floor(rng() * (hi - lo + 1));
    for (let n = 0; n < 30; n++) {
      const spec: SingleOpSpec = { kind: 'fullyConnected', input: [int(1, 3), int(1, 40)], outChannels: int(1, 13), seed: `${rng()}` };
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

  it('reads each input element once per group of output channels (reference: once per channel)', () => {
    // 2 batches x 10 inputs, 7 outputs: reference 2*7*10 loads; DSP groups 2+2+2+1 -> 4 passes; C 3+3+1 -> 3; MVE 4+1+1+1 -> 4.
    const spec: SingleOpSpec = { kind: 'fullyConnected', input: [2, 10], outChannels: 7 };
    expect(traced(spec, REFERENCE, 1).loads).toBe(140);
    expect(PATHS.map(([, r]) => traced(spec, r, 1).loads)).toEqual([60, 80, 80]);
  });

  it('memory: OpData 72 B on Cortex-M (reference 48), MVE kernel sums persistent for a constant filter, no scratch', () => {
    const g = buildSingleOpGraph({ kind: 'fullyConnected', input: [1, 16], outChannels: 10 });
    const opBlocks = (r: KernelRegistry) => modelPersistent(g, getTflmArch('cortex-m'), null, r).allocations.filter((a) => a.what.includes('op 0'));
    const sizes = (r: KernelRegistry) => opBlocks(r).map((a) => a.sizeBytes);
    // TfLiteFullyConnectedParams, OpData, per-channel multipliers and shifts (10 x int32 each), then MVE's kernel sums.
    expect(sizes(REFERENCE)).toEqual([5, 48, 40, 40]);
    expect(sizes(kernelRegistry('cmsis-nn', 'cortex-m7'))).toEqual([5, 72, 40, 40]);
    expect(sizes(kernelRegistry('cmsis-nn', 'cortex-m55'))).toEqual([5, 72, 40, 40, 40]);
    for (const [, r] of PATHS) expect(scratchRequests(g, 0, r)).toEqual([]);
  });

  it('refuses the arm_convolve_1x1_s8_fast path (output rank > 2, depth % 4 == 0) with a constraint', () => {
    const g = buildSingleOpGraph({ kind: 'fullyConnected', input: [1, 8], outChannels: 4 });
    const out = g.ops[0]?.outputs[0] as number;
    const rank3: Graph = { ...g, tensors: g.tensors.map((t, i) => (i === out ? { ...t, shape: [1, 1, 4] } : t)) };
    expect(() => prepareGraph(rank3)).not.toThrow();
    let code = '';
    try {
      prepareGraph(rank3, kernelRegistry('cmsis-nn'));
    } catch (e) {
      code = e instanceof McusimError ? e.code : 'other';
    }
    expect(code).toBe('E_KERNEL_CONSTRAINT');
  });
});
