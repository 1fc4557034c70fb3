// sliceTensor: per-channel quantization is sliced with the data along the channel axis (a 1-D
// tensor's only axis, whatever its quantized_dimension says), and the FDT output of a model whose
// depthwise biases carry TOCO's quantized_dimension 3 (person_detect) validates and runs identically.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { findModelIssues, importTflite, tensorIssues } from '../../../src/ir/index.ts';
import type { Tensor } from '../../../src/ir/index.ts';
import { checkPassOutput, preparePlannedModel, runPipeline, runPlanned, sliceTensor } from '../../../src/optimizer/index.ts';
import { ORACLE_MODELS, describeWithData } from '../../oracle-paths.ts';

const perChannel = (name: string, shape: number[], quantizedDimension: number, channels: number): Tensor => ({
  name,
  dtype: 'int32',
  shape,
  quant: { scale: Array.from({ length: channels }, (_, c) => Math.fround(0.01 * (c + 1))), zeroPoint: new Array<number>(channels).fill(0), quantizedDimension },
  data: new Uint8Array(shape.reduce((a, d) => a * d, 1) * 4).map((_, i) => i & 0xff),
  isVariable: false,
});

describe('sliceTensor', () => {
  it('slices a 1-D bias\'s per-channel scales even when quantized_dimension says 3, and writes 0', () => {
    const bias = perChannel('b', [16], 3, 16);
    expect(tensorIssues(bias, 0)).toEqual([]);
    const s = sliceTensor(bias, 0, 4, 4, 'b/part');
    expect(s.shape).toEqual([4]);
    expect(s.quant?.scale).toEqual(bias.quant!.scale.slice(4, 8));
    expect(s.quant?.zeroPoint).toHaveLength(4);
    expect(s.quant?.quantizedDimension).toBe(0);
    expect([...s.data!]).toEqual([...bias.data!.subarray(16, 32)]);
    expect(tensorIssues(s, 0)).toEqual([]);
  });

  it('slices a depthwise filter\'s scales along its channel axis, and keeps them along another axis', () => {
    const filter = { ...perChannel('f', [1, 3, 3, 8], 3, 8), dtype: 'int8' as const, data: new Uint8Array(72) };
    const byChannel = sliceTensor(filter, 3, 2, 3, 'f/c');
    expect(byChannel.quant?.scale).toEqual(filter.quant!.scale.slice(2, 5));
    expect(tensorIssues(byChannel, 0)).toEqual([]);
    const byRow = sliceTensor(filter, 1, 0, 2, 'f/r');
    expect(byRow.quant).toEqual(filter.quant);
    expect(tensorIssues(byRow, 0)).toEqual([]);
  });
});

describeWithData('models', 'FDT on person_detect (depthwise biases with quantized_dimension 3)', () => {
  it('builds a model that validates, passes checkPassOutput and gives the same outputs', () => {
    const model = importTflite(readFileSync(`${ORACLE_MODELS}/person_detect.tflite`));
    const r = runPipeline(model, ['fdt'], { flags: {} });
    expect(r.reports[0]?.applied).toBe(true);
    expect(r.reports[0]!.peakBytesAfter).toBeLessThan(r.reports[0]!.peakBytesBefore);
    expect(findModelIssues(r.model)).toEqual([]);
    expect(() => checkPassOutput('fdt', r.model)).not.toThrow();
    const a = runPlanned(preparePlannedModel(model), { seed: 1 }).outputs;
    const b = runPlanned(preparePlannedModel(r.model), { seed: 1 }).outputs;
    expect(b.map((o) => Buffer.from(o).toString('hex'))).toEqual(a.map((o) => Buffer.from(o).toString('hex')));
  });
});
