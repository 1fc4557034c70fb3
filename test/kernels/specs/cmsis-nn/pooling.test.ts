// CMSIS-NN pooling specs (arm_avgpool_s8 / arm_max_pool_s8 per code path): the values equal the
// reference kernel's on seeded random cases, their traces are clean and the address walk agrees
// with the trace; the access order is CMSIS-NN's (max pool accumulates in its output: more stores,
// the same safe overlap), and the DSP average pool plans a channels x int32
// sums buffer while MVE and plain C plan none.
import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import type { Padding } from '../../../../src/ir/index.ts';
import { kernelRegistry, prepareOp, scratchRequests } from '../../../../src/kernels/index.ts';
import type { KernelRegistry } from '../../../../src/kernels/index.ts';
import { buildSingleOpGraph, layoutOp, runLayout, safeOverlap, singleOpGraph } from '../../../../src/optimizer/index.ts';
import type { SingleOpSpec } from '../../../../src/optimizer/index.ts';
import { Tracer } from '../../../../src/sim/index.ts';

const SEED = 'cmsis-nn-pooling';
const PATHS: readonly [string, KernelRegistry][] = [['plain C (m3)', kernelRegistry('cmsis-nn', 'cortex-m3')], ['DSP (m7)', kernelRegistry('cmsis-nn', 'cortex-m7')], ['MVE (m55)', kernelRegistry('cmsis-nn', 'cortex-m55')]];
const REFERENCE = kernelRegistry('reference');

function randomPool(rng: seedrandom.PRNG, kind: 'maxPool2d' | 'averagePool2d'): SingleOpSpec {
  const int = (lo: number, hi: number): number => lo + Math.floor(rng() * (hi - lo + 1));
  const filter: [number, number] = [int(1, 4), int(1, 4)];
  const padding: Padding = rng() < 0.5 ? 'same' : 'valid';
  // Channel counts across the 4-byte words and 16-byte vectors of the DSP and MVE paths.
  const channels = [1, 3, 4, 5, 8, 15, 16, 17, 33][int(0, 8)] as number;
  return { kind, input: [int(1, 2), int(filter[0], 8), int(filter[1], 8), channels], filter, stride: [int(1, 3), int(1, 3)], padding, seed: `${rng()}` };
}

function tracedRun(spec: SingleOpSpec, registry: KernelRegistry, seed: number): { outputs: Uint8Array[]; violations: number } {
  const l = layoutOp(singleOpGraph(buildSingleOpGraph(spec), 0), null, { registry });
  const tracer = new Tracer({ graph: l.graph, tensorOffsets: l.tensorOffsets, scratchOffsets: l.scratchOffsets, arenaBytes: l.arenaBytes, registry });
  const outputs = runLayout(l, seed, [tracer.sink]);
  tracer.finish();
  return { outputs, violations: tracer.violations().length };
}

describe('CMSIS-NN pooling specs', () => {
  for (const kind of ['maxPool2d', 'averagePool2d'] as const) {
    it(`${kind}: same bytes as the reference kernel on every path, clean trace, walk = trace (seed ${SEED})`, () => {
      const rng = seedrandom(`${SEED}-${kind}`);
      for (let n = 0; n < 24; n++) {
        const spec = randomPool(rng, kind);
        const label = `case ${n}: ${JSON.stringify(spec)}`;
        const expected = tracedRun(spec, REFERENCE, n + 1).outputs;
        for (const [path, registry] of PATHS) {
          const got = tracedRun(spec, registry, n + 1);
          expect(got.outputs, `${label} ${path}`).toEqual(expected);
          expect(got.violations, `${label} ${path}`).toBe(0);
          const g = buildSingleOpGraph(spec);
          expect(safeOverlap(g, 0, { method: 'algorithmic', registry }), `${label} ${path}`).toBe(safeOverlap(g, 0, { method: 'trace', registry }));
        }
      }
    });
  }

  it('maxPool2d accumulates in its output (each byte stored once per tap, then clamped): another trace, the same O_s', () => {
    const spec: SingleOpSpec = { kind: 'maxPool2d', input: [1, 6, 6, 8], filter: [2, 2], stride: [1, 1], padding: 'valid' };
    const stores = (registry: KernelRegistry): number => {
      const l = layoutOp(singleOpGraph(buildSingleOpGraph(spec), 0), null, { registry });
      let n = 0;
      runLayout(l, 1, [(_op, log, count) => {
        for (let i = 0; i < count; i++) if (((log[2 * i] as number) & 8) !== 0) n++;
      }]);
      return n;
    };
    // Output 5x5x8 = 200 bytes: the reference stores each once; CMSIS-NN 4 taps + the clamp pass.
    expect(stores(REFERENCE)).toBe(200);
    expect(stores(kernelRegistry('cmsis-nn', 'cortex-m7'))).toBe(200 * 5);
    const g = buildSingleOpGraph(spec);
    expect(safeOverlap(g, 0, { method: 'trace', registry: kernelRegistry('cmsis-nn', 'cortex-m7') })).toBe(safeOverlap(g, 0, { method: 'trace' }));
    // The analytic closed forms are the reference order's: refused for CMSIS-NN's own spec.
    expect(() => safeOverlap(g, 0, { method: 'analytic', registry: kernelRegistry('cmsis-nn', 'cortex-m7') })).toThrow(/analytic/);
  });

  it('averagePool2d scratch: channels x int32 on DSP (arm_avgpool_s8_get_buffer_size), none on MVE and plain C', () => {
    const g = buildSingleOpGraph({ kind: 'averagePool2d', input: [1, 8, 8, 24], filter: [3, 3], stride: [2, 2], padding: 'same' });
    expect(scratchRequests(g, 0)).toEqual([]);
    expect(scratchRequests(g, 0, kernelRegistry('cmsis-nn', 'cortex-m7'))).toEqual([96]);
    expect(scratchRequests(g, 0, kernelRegistry('cmsis-nn', 'cortex-m55'))).toEqual([]);
    expect(scratchRequests(g, 0, kernelRegistry('cmsis-nn', 'cortex-m0plus'))).toEqual([]);
    expect(prepareOp(g, 0, kernelRegistry('cmsis-nn', 'cortex-m4')).prepared.scratch).toEqual([{ name: 'sums', dtype: 'int32', sizeBytes: 96 }]);
  });
});
