// FDT and FFMT tile through the elementwise math ops (hardSwish, tanh, elu: partition-local and
// spatially local like relu / logistic): an op inserted after cifar10-cnn's first conv is split
// into several copies and the tiled model stays bit-exact with the original.
import { describe, expect, it } from 'vitest';
import { buildZooModel } from '../../../src/ir/index.ts';
import type { Model, Op } from '../../../src/ir/index.ts';
import { preparePlannedModel, runPipeline, runPlanned } from '../../../src/optimizer/index.ts';

/** cifar10-cnn with a `kind` op between op 0 and op 1 (same shape and quantization). */
function withOpAfterFirstConv(kind: 'hardSwish' | 'tanh' | 'elu'): Model {
  const m = buildZooModel('cifar10-cnn');
  const g = m.graph;
  const t = g.ops[0]!.outputs[0]!;
  const tensors = [...g.tensors, { ...g.tensors[t]!, name: `${kind}_out` }];
  const nt = tensors.length - 1;
  const ops = g.ops.flatMap((o, i): Op[] => {
    if (i === 0) return [o, { kind, inputs: [t], outputs: [nt], options: {} } as Op];
    return [{ ...o, inputs: o.inputs.map((x) => (x === t ? nt : x)) } as Op];
  });
  return { ...m, graph: { ...g, tensors, ops } };
}

describe('tiling through the elementwise math ops', () => {
  for (const kind of ['hardSwish', 'tanh', 'elu'] as const) {
    for (const pass of ['fdt', 'ffmt']) {
      it(`${pass} splits ${kind} and stays bit-exact`, () => {
        const m = withOpAfterFirstConv(kind);
        const { model, reports } = runPipeline(m, [pass], { flags: { 'time-budget-ms': 1500 } });
        expect(reports[0]!.applied).toBe(true);
        expect(reports[0]!.peakBytesAfter).toBeLessThan(reports[0]!.peakBytesBefore);
        expect(model.graph.ops.filter((o) => o.kind === kind).length).toBeGreaterThan(1);
        const pa = preparePlannedModel(m);
        const pb = preparePlannedModel(model);
        for (const seed of [1, 2]) {
          const want = runPlanned(pa, { seed }).outputs;
          runPlanned(pb, { seed }).outputs.forEach((o, i) => expect(Buffer.from(o).equals(Buffer.from(want[i]!)), `seed ${seed} output ${i}`).toBe(true));
        }
      });
    }
  }
});
