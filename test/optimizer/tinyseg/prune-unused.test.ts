// pruneUnusedTensors against a plain reference on seeded random graphs: the same tensors kept in
// the same order, every index (op inputs and outputs, storage slots, graph inputs and outputs)
// renumbered the same way, and ops that name no moved tensor handed back as they were.
import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import type { Graph, Op, Tensor } from '../../../src/ir/index.ts';
import { remapOpTensors, storageSlotOf } from '../../../src/ir/index.ts';
import { pruneUnusedTensors } from '../../../src/optimizer/tinyseg/index.ts';

/** The reference: a set of used indices, a map, every op remapped. */
function reference(graph: Graph): Graph {
  const used = new Set<number>([...graph.inputs, ...graph.outputs]);
  for (const op of graph.ops) for (const t of [...op.inputs, ...op.outputs, storageSlotOf(op) ?? -1]) if (t >= 0) used.add(t);
  if (used.size === graph.tensors.length) return graph;
  const map = new Map<number, number>();
  const tensors = graph.tensors.filter((_, i) => used.has(i) && map.set(i, map.size));
  const m = (t: number): number => (t < 0 ? t : (map.get(t) ?? -1));
  return { ...graph, tensors, inputs: graph.inputs.map(m), outputs: graph.outputs.map(m), ops: graph.ops.map((op) => remapOpTensors(op, m)) };
}

function randomGraph(rng: () => number, n: number): Graph {
  const pick = (): number => Math.floor(rng() * n);
  const tensors: Tensor[] = Array.from({ length: n }, (_, i) => ({ name: `t${i}`, dtype: 'int8', shape: [1, 4], data: null, isVariable: false }) as unknown as Tensor);
  const ops: Op[] = Array.from({ length: 1 + Math.floor(rng() * 8) }, () => {
    const r = rng();
    if (r < 0.15) return { kind: 'spill', inputs: [pick()], outputs: [], options: { id: pick() } } as Op;
    if (r < 0.3) return { kind: 'fetching', inputs: [], outputs: [pick()], options: { victim: pick(), nth: 0, axis: 1 } } as Op;
    return { kind: 'add', inputs: [pick(), rng() < 0.2 ? -1 : pick()], outputs: [pick()], options: {} } as unknown as Op;
  });
  return { tensors, inputs: [pick()], outputs: [pick()], ops } as unknown as Graph;
}

describe('pruneUnusedTensors', () => {
  it('equals the reference on 500 random graphs and keeps ops that name no moved tensor', () => {
    const rng = seedrandom('prune-unused');
    let pruned = 0;
    let kept = 0;
    for (let k = 0; k < 500; k++) {
      const g = randomGraph(rng, 2 + Math.floor(rng() * 14));
      const got = pruneUnusedTensors(g);
      expect(got).toEqual(reference(g));
      if (got === g) continue;
      pruned++;
      got.ops.forEach((op, i) => {
        if (op === g.ops[i]) kept++;
      });
    }
    expect(pruned).toBeGreaterThan(200);
    expect(kept).toBeGreaterThan(100);
  });
});
