// Seeded one-op cases for the CMSIS-NN data-op tests (transpose, pad, maximum / minimum): a graph
// from buildSingleOpGraph with random bytes for every non-constant input, and random permutations.
import type { Graph } from '../../../src/ir/index.ts';
import { byteSize } from '../../../src/ir/index.ts';
import { buildSingleOpGraph } from '../../../src/optimizer/index.ts';
import type { SingleOpSpec } from '../../../src/optimizer/index.ts';
import type { OpCase, Rng } from './helpers.ts';
import { int } from './helpers.ts';

/** One-op case of `s` with seeded random bytes for every non-constant input. */
export function opCase(r: Rng, s: SingleOpSpec): OpCase {
  const graph: Graph = buildSingleOpGraph(s);
  const inputs = new Map(graph.inputs.map((t) => {
    const x = graph.tensors[t]!;
    return [t, Uint8Array.from({ length: byteSize(x.dtype, x.shape) }, () => int(r, 0, 255))] as const;
  }));
  return { graph, inputs, output: graph.outputs[0]! };
}

/** A seeded random permutation of 0..n-1. */
export function shuffled(r: Rng, n: number): number[] {
  const p = Array.from({ length: n }, (_, k) => k);
  for (let i = n - 1; i > 0; i--) {
    const j = int(r, 0, i);
    [p[i], p[j]] = [p[j]!, p[i]!];
  }
  return p;
}
