// CMSIS-NN LSTM (arm_lstm_unidirectional_s8 as TFLM's cmsis_nn kernel calls it): on one Invoke
// from reset state with symmetric weights it gives the reference kernel's bytes (seeded random
// cases), its trace is clean and the walk agrees; it plans three scratch buffers (temp1, temp2, cell
// state) and keeps no state between Invokes, where the reference kernel carries it over.
import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import { kernelRegistry, scratchRequests } from '../../../../src/kernels/index.ts';
import type { KernelRegistry } from '../../../../src/kernels/index.ts';
import { buildSingleOpGraph, layoutOp, runLayout, safeOverlap } from '../../../../src/optimizer/index.ts';
import type { SingleOpSpec } from '../../../../src/optimizer/index.ts';
import { Runtime, Tracer, randomInputs } from '../../../../src/sim/index.ts';

const SEED = 'cmsis-nn-lstm';
const REFERENCE = kernelRegistry('reference');
const M7 = kernelRegistry('cmsis-nn', 'cortex-m7');

// buildSingleOpGraph's own graph: the input is the only graph input, so the hidden and cell state
// start from their reset values (singleOpGraph would make them graph inputs with random bytes).
function traced(spec: SingleOpSpec, registry: KernelRegistry, seed: number): { outputs: Uint8Array[]; violations: number } {
  const l = layoutOp(buildSingleOpGraph(spec), null, { registry });
  const tracer = new Tracer({ graph: l.graph, tensorOffsets: l.tensorOffsets, scratchOffsets: l.scratchOffsets, arenaBytes: l.arenaBytes, registry });
  const outputs = runLayout(l, seed, [tracer.sink]);
  tracer.finish();
  return { outputs, violations: tracer.violations().length };
}

describe('CMSIS-NN LSTM spec', () => {
  it(`one Invoke: the reference kernel's bytes, clean trace, walk = trace (seed ${SEED})`, () => {
    const rng = seedrandom(SEED);
    const int = (lo: number, hi: number): number => lo + Math.floor(rng() * (hi - lo + 1));
    for (let n = 0; n < 12; n++) {
      const spec: SingleOpSpec = { kind: 'unidirectionalSequenceLstm', input: [int(1, 2), int(1, 4), int(1, 6)], outChannels: int(1, 5), seed: `${rng()}` };
      const label = `case ${n}: ${JSON.stringify(spec)}`;
      const got = traced(spec, M7, n + 1);
      expect(got.outputs, label).toEqual(traced(spec, REFERENCE, n + 1).outputs);
      expect(got.violations, label).toBe(0);
      const g = buildSingleOpGraph(spec);
      expect(safeOverlap(g, 0, { method: 'algorithmic', registry: M7 }), label).toBe(safeOverlap(g, 0, { method: 'trace', registry: M7 }));
    }
  });

  it('three scratch buffers of batch x units x int16 (the reference kernel: four)', () => {
    const g = buildSingleOpGraph({ kind: 'unidirectionalSequenceLstm', input: [2, 3, 5], outChannels: 4 });
    expect(scratchRequests(g, 0)).toEqual([16, 16, 16, 16]);
    expect(scratchRequests(g, 0, M7)).toEqual([16, 16, 16]);
  });

  it('keeps no state between Invokes: a second run repeats the first (the reference kernel carries its state on)', () => {
    const spec: SingleOpSpec = { kind: 'unidirectionalSequenceLstm', input: [1, 3, 4], outChannels: 4, seed: 'state' };
    const twice = (registry: KernelRegistry): Uint8Array[][] => {
      const l = layoutOp(buildSingleOpGraph(spec), null, { registry });
      const rt = new Runtime({ graph: l.graph, tensorOffsets: l.tensorOffsets, scratchOffsets: l.scratchOffsets, arenaBytes: l.arenaBytes, registry });
      const inputs = randomInputs(l.graph, 7);
      return [rt.run(inputs), rt.run(inputs)];
    };
    const [c1, c2] = twice(M7);
    const [r1, r2] = twice(REFERENCE);
    expect(c1).toEqual(r1);
    expect(c2).toEqual(c1);
    expect(r2).not.toEqual(r1);
  });
});
