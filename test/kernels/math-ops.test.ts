// The math kernels' constraints refuse what TFLM refuses (or cannot run) with coded issues naming
// the rule, and their op options survive import -> export -> import of the TFLM op-models.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Graph, Op, Tensor } from '../../src/ir/index.ts';
import { exportTflite, importTflite } from '../../src/ir/index.ts';
import { validateOp } from '../../src/kernels/index.ts';
import type { SingleOpSpec } from '../../src/optimizer/index.ts';
import { buildSingleOpGraph } from '../../src/optimizer/index.ts';
import { OP_MODELS } from '../oracle-paths.ts';

/** Rule ids and codes of the failed constraints of op 0. */
function failures(g: Graph): { code: string; id: string }[] {
  return validateOp(g, 0).map((i) => ({ code: i.code, id: /\[([^\]]+)\]/.exec(i.message)?.[1] ?? '' }));
}
const refused = (...ids: string[]): { code: string; id: string }[] => ids.map((id) => ({ code: 'E_KERNEL_CONSTRAINT', id }));

function edit(spec: SingleOpSpec, f: (op: Op, tensors: Tensor[]) => Op): Graph {
  const g = buildSingleOpGraph(spec);
  const tensors = [...g.tensors];
  return { ...g, tensors, ops: [f(g.ops[0] as Op, tensors)] };
}
/** Tensor `i` of the op replaced by `patch` of itself. */
function patchTensor(tensors: Tensor[], i: number | undefined, patch: Partial<Tensor>): void {
  const t = tensors[i ?? -1];
  if (t === undefined) throw new Error(`no tensor ${i}`);
  tensors[i ?? -1] = { ...t, ...patch };
}

describe('math kernels: constraints', () => {
  it('accept the default single-op graphs', () => {
    for (const kind of ['hardSwish', 'tanh', 'elu', 'logSoftmax', 'l2Normalization', 'prelu', 'resizeNearestNeighbor', 'resizeBilinear'] as const) {
      expect(failures(buildSingleOpGraph({ kind, input: [1, 4, 4, 3] })), kind).toEqual([]);
    }
  });

  it('refuse int16 activations (only the int8 paths are modelled)', () => {
    for (const kind of ['hardSwish', 'tanh', 'elu', 'l2Normalization'] as const) {
      const g = edit({ kind, input: [1, 8] }, (op, t) => (patchTensor(t, op.inputs[0], { dtype: 'int16' }), patchTensor(t, op.outputs[0], { dtype: 'int16' }), op));
      expect(failures(g), kind).toEqual(refused(`${kind}.types`));
    }
  });

  it('refuse the quantization TFLM rejects in Prepare', () => {
    const logSm = edit({ kind: 'logSoftmax', input: [2, 5] }, (op, t) => (patchTensor(t, op.outputs[0], { quant: { scale: [16 / 256], zeroPoint: [0], quantizedDimension: 0 } }), op));
    expect(failures(logSm)).toEqual(refused('logSoftmax.output-quant'));
    // in_s / 128 / out_s > 1: output_multiplier_exponent > 0.
    const hs = edit({ kind: 'hardSwish', input: [2, 5] }, (op, t) => (patchTensor(t, op.outputs[0], { quant: { scale: [Math.fround(0.0001)], zeroPoint: [0], quantizedDimension: 0 } }), op));
    expect(failures(hs)).toEqual(refused('hardSwish.scales'));
    const l2 = edit({ kind: 'l2Normalization', input: [2, 5] }, (op) => ({ ...op, options: { activation: 'relu' } }) as Op);
    expect(failures(l2)).toEqual(refused('l2Normalization.activation'));
  });

  it('refuse a 5-D prelu and non-broadcasting alpha', () => {
    expect(failures(buildSingleOpGraph({ kind: 'prelu', input: [1, 2, 2, 2, 3] }))).toEqual(refused('prelu.broadcast'));
    expect(failures(buildSingleOpGraph({ kind: 'prelu', input: [1, 4, 4, 3], second: [2] }))).toEqual(refused('prelu.broadcast'));
  });

  it('refuse resize with a non-constant size, both flags (bilinear) or taps outside the input', () => {
    const dyn = edit({ kind: 'resizeNearestNeighbor', input: [1, 4, 4, 3] }, (op, t) => (patchTensor(t, op.inputs[1], { data: null }), op));
    expect(failures(dyn)).toEqual(refused('resizeNearestNeighbor.size'));
    const both = { alignCorners: true, halfPixelCenters: true };
    expect(failures(buildSingleOpGraph({ kind: 'resizeBilinear', input: [1, 4, 4, 3], resize: { size: [8, 8], ...both } }))).toEqual(refused('resizeBilinear.flags'));
    // TFLM's nearest neighbour accepts both flags.
    expect(failures(buildSingleOpGraph({ kind: 'resizeNearestNeighbor', input: [1, 4, 4, 3], resize: { size: [8, 8], ...both } }))).toEqual([]);
    // 1 -> 80 rows: the 10-bit scale rounds up to 13/1024, row 79 lands at 1027/1024, past the input.
    expect(failures(buildSingleOpGraph({ kind: 'resizeBilinear', input: [1, 1, 4, 3], resize: { size: [80, 4] } }))).toEqual(refused('resizeBilinear.in-bounds'));
    expect(failures(buildSingleOpGraph({ kind: 'resizeBilinear', input: [1, 1, 4, 3], resize: { size: [79, 4] } }))).toEqual([]);
  });
});

describe('math kernels: options round-trip through the TFLite exporter', () => {
  const dir = OP_MODELS;
  const names = readdirSync(dir).filter((f) => /^(HARD_SWISH|LOG_SOFTMAX|TANH|ELU|PRELU|L2_NORMALIZATION|RESIZE_NEAREST_NEIGHBOR|RESIZE_BILINEAR)_\d+\.tflite$/.test(f));
  it('import -> export -> import keeps every op and its options', () => {
    expect(names.length).toBeGreaterThanOrEqual(24);
    for (const f of names) {
      const a = importTflite(new Uint8Array(readFileSync(join(dir, f))));
      const b = importTflite(exportTflite(a));
      expect(b.graph.ops, f).toEqual(a.graph.ops);
    }
  });
});
