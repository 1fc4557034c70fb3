// The latency model's cost-count cache (src/sim/latency/compute-cost.ts): countCostCached returns,
// for every op of the oracle's models and op models and the small zoo models, exactly what a fresh
// countCost walk gives, with all of them in one cache (so no two different ops share a key); the
// key ignores what the walk ignores (offsets, tensor ids: a planned instance has the key of the
// offset-0 one) and follows what it reads (a changed scalar or array is another key).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Graph, Model } from '../../src/ir/index.ts';
import { buildZooModel, importTflite } from '../../src/ir/index.ts';
import { countCost } from '../../src/kernels/index.ts';
import { preparePlannedModel } from '../../src/optimizer/index.ts';
import { costInstance, costKey, countCostCached } from '../../src/sim/index.ts';
import { OP_MODELS, ORACLE_MODELS, itWithData } from '../oracle-paths.ts';

const tflites = (dir: string): Model[] => readdirSync(dir).filter((f) => f.endsWith('.tflite')).sort()
  .map((f) => importTflite(new Uint8Array(readFileSync(join(dir, f)))));
// The big zoo models are left out: walking their nests takes seconds and adds no op kind.
const models = (): Model[] => [
  ...tflites(ORACLE_MODELS).filter((m) => m.graph.ops.length < 40),
  ...tflites(OP_MODELS),
  ...['tiny-unet', 'cifar10-cnn', 'ds-cnn-kws', 'mobilenet-v1-0.25-128'].map(buildZooModel),
];

/** Ops the latency model counts with countCost (custom and storage ops are costed otherwise). */
const counted = (g: Graph): number[] => g.ops.flatMap((op, i) => (op.kind === 'custom' || op.kind === 'spill' || op.kind === 'fetching' || op.kind === 'fetchingConv2d' ? [] : [i]));

describe('countCostCached', () => {
  itWithData('models', 'equals a fresh countCost on every op of ~90 models sharing one cache', () => {
    const all = models();
    expect(all.length).toBeGreaterThan(80);
    // Fill the cache with every op first, then check each against a fresh walk.
    for (const m of all) for (const i of counted(m.graph)) countCostCached(costInstance(m.graph, i));
    let ops = 0;
    for (const m of all) {
      for (const i of counted(m.graph)) {
        const inst = costInstance(m.graph, i);
        expect(countCostCached(inst), `${m.graph.ops[i]?.kind} op ${i}`).toEqual(countCost(inst));
        ops++;
      }
    }
    expect(ops).toBeGreaterThan(200);
  }, 300_000);

  it('keys a planned instance (real offsets) like the offset-0 one, and a changed scalar or array apart', () => {
    const model = buildZooModel('cifar10-cnn');
    const { graph, runtime } = preparePlannedModel(model);
    const conv = graph.ops.findIndex((op) => op.kind === 'conv2d');
    const planned = runtime.instances[conv];
    if (planned === undefined) throw new Error('no conv instance');
    const zero = costInstance(graph, conv);
    expect(Object.values(planned.buffers).some((b) => (b.offsetBytes ?? 0) > 0)).toBe(true);
    expect(costKey(planned)).toBe(costKey(zero));
    const scalar = Object.keys(zero.scalars)[0] as string;
    expect(costKey({ ...zero, scalars: { ...zero.scalars, [scalar]: (zero.scalars[scalar] ?? 0) + 1 } })).not.toBe(costKey(zero));
    const array = Object.keys(zero.arrays)[0] as string;
    const changed = Int32Array.from(zero.arrays[array] ?? [], (v, k) => (k === 0 ? v + 1 : v));
    expect(costKey({ ...zero, arrays: { ...zero.arrays, [array]: changed } })).not.toBe(costKey(zero));
  });
});
