// Cross-check of the two MAC counts on every op of every oracle and zoo model: countCost (the
// spec nests' executed 'mac' statements) vs countMacs (the closed-form rule in macs.ts). Equal
// wherever both count the same thing; two known definition gaps are pinned, not hidden: the rule
// counts padded conv taps TFLM skips (SAME padding), and add/mul/mean/averagePool2d nests carry
// no 'mac' tags yet (countCost 0). Either gap closing fails this test on purpose.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Model, Op } from '../../src/ir/index.ts';
import { buildZooModel, importTflite, listZooModels } from '../../src/ir/index.ts';
import { countCost, countMacs } from '../../src/kernels/index.ts';
import { preparePlannedModel } from '../../src/optimizer/index.ts';
import { ORACLE_MODELS, describeWithData, tfliteNames } from '../oracle-paths.ts';

const oracleModels = tfliteNames(ORACLE_MODELS).map((n) => `${n}.tflite`);
const zooModels = listZooModels().map((m) => m.name);

/** Nests without 'mac' tags: countCost reports 0 where the rule counts one per tap/element. */
const UNTAGGED = new Set(['add', 'mul', 'mean', 'averagePool2d']);
/** SAME-padded convolutions: the nest skips out-of-bounds taps, the rule counts full windows. */
const paddedConv = (op: Op): boolean => (op.kind === 'conv2d' || op.kind === 'depthwiseConv2d') && op.options.padding === 'same';

function mismatches(model: Model): string[] {
  const { graph, runtime } = preparePlannedModel(model);
  return graph.ops.flatMap((op, i) => {
    const inst = runtime.instances[i];
    if (inst === undefined) return [`op ${i} ${op.kind}: no instance`];
    const cost = countCost(inst).macs;
    const rule = countMacs(op, graph);
    const ok = UNTAGGED.has(op.kind) ? cost === 0 : paddedConv(op) ? cost <= rule && cost > 0 : cost === rule;
    return ok ? [] : [`op ${i} ${op.kind}: countCost ${cost} vs countMacs ${rule}`];
  });
}

describe('countCost(instance).macs == countMacs(op, graph)', () => {
  it('has zoo models to check', () => {
    expect(zooModels.length).toBeGreaterThan(0);
  });
  it.each(zooModels)('zoo model %s', (name) => {
    expect(mismatches(buildZooModel(name))).toEqual([]);
  });
  describeWithData('models', 'oracle models', () => {
    it('has oracle models to check', () => {
      expect(oracleModels.length).toBeGreaterThan(0);
    });
    it.each(oracleModels)('oracle model %s', (file) => {
      expect(mismatches(importTflite(new Uint8Array(readFileSync(join(ORACLE_MODELS, file)))))).toEqual([]);
    });
  });
});
