// The MLPerf Tiny reference models of the zoo (mlcommons/tiny's training scripts): each held op for
// op against the public int8 file in the oracle folder (op kinds, options, every input's and
// output's shape, dtype, producer and per-channel-ness, reshape shapes), the same kernel path for
// every op (reference and CMSIS-NN on plain-C, DSP and MVE cores) and equal latency estimates on
// every board for both kernel libraries; and, with no data, runs that trace clean, agree between
// the kernel libraries and use their quantized ranges like a calibrated model.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { estimateLatency, runModel } from '../../../src/api/index.ts';
import type { Model } from '../../../src/ir/index.ts';
import { buildZooModel, importTflite, listZooModels } from '../../../src/ir/index.ts';
import { kernelRegistry, prepareOp } from '../../../src/kernels/index.ts';
import { preparePlannedModel, runPlanned } from '../../../src/optimizer/index.ts';
import { KERNEL_LIBRARIES, listTargets } from '../../../src/sim/index.ts';
import { ORACLE, describeWithData } from '../../oracle-paths.ts';

/** Zoo name -> the public file (relative to the oracle folder) it is written after. */
const MLPERF = {
  'mlperf-kws': 'models-real/mlperf_kws_dscnn.tflite',
  'mlperf-vww': 'models-real/mlperf_vww_96.tflite',
  'mlperf-ic': 'models-real/mlperf_ic_resnet8.tflite',
  'mlperf-ad': 'latency/mlperf_ad_fc_autoencoder.tflite',
} as const;
const NAMES = Object.keys(MLPERF) as (keyof typeof MLPERF)[];

/** One registry per CMSIS-NN code family (plain C, DSP, MVE) besides the reference kernels. */
const REGISTRIES = [kernelRegistry('reference'), ...['cortex-m0plus', 'cortex-m7', 'cortex-m55'].map((cpu) => kernelRegistry('cmsis-nn', cpu))];

const built = new Map<string, Model>();
function zoo(name: string): Model {
  let m = built.get(name);
  if (m === undefined) built.set(name, (m = buildZooModel(name)));
  return m;
}

function int32Values(data: Uint8Array): number[] {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  return Array.from({ length: data.byteLength / 4 }, (_, i) => view.getInt32(i * 4, true));
}

/** Everything the kernels and the latency model read of a graph, without names, values or scales. */
function structure(m: Model): unknown {
  const g = m.graph;
  const producer = new Map<number, string>();
  g.inputs.forEach((t, k) => producer.set(t, `graph input ${k}`));
  g.ops.forEach((op, i) => op.outputs.forEach((t, k) => producer.set(t, `op ${i} output ${k}`)));
  const tensor = (t: number): unknown => {
    const x = g.tensors[t];
    if (x === undefined) return t < 0 ? 'absent' : `bad index ${t}`;
    const q = x.quant;
    return {
      from: x.data === null ? producer.get(t) ?? 'nothing' : 'constant',
      dtype: x.dtype,
      shape: x.shape,
      quant: q === null ? null : q.scale.length > 1 ? `per-channel along ${q.quantizedDimension}` : 'per-tensor',
      // Unquantized int32 constants are shapes (RESHAPE's new shape): their values are structure.
      ...(x.data !== null && q === null ? { values: int32Values(x.data) } : {}),
    };
  };
  return {
    inputs: g.inputs.map(tensor),
    outputs: g.outputs.map(tensor),
    ops: g.ops.map((op) => ({ kind: op.kind, options: (op as { options?: unknown }).options ?? null, inputs: op.inputs.map(tensor), outputs: op.outputs.map(tensor) })),
  };
}

describe('MLPerf Tiny zoo models', () => {
  it('are listed with a description each', () => {
    const listed = new Map(listZooModels().map((m) => [m.name, m.description]));
    for (const name of NAMES) expect(listed.get(name), name).toMatch(/^MLPerf Tiny .{20,}/);
  });

  it('have the published architectures (mlcommons/tiny training scripts)', () => {
    const kinds = (name: string): string[] => zoo(name).graph.ops.map((o) => o.kind);
    const pair = ['depthwiseConv2d', 'conv2d'];
    const head = ['averagePool2d', 'reshape', 'fullyConnected', 'softmax'];
    expect(kinds('mlperf-kws')).toEqual(['conv2d', ...Array.from({ length: 4 }, () => pair).flat(), ...head]);
    expect(kinds('mlperf-vww')).toEqual(['conv2d', ...Array.from({ length: 13 }, () => pair).flat(), ...head]);
    const stack = ['conv2d', 'conv2d', 'conv2d', 'add'];
    expect(kinds('mlperf-ic')).toEqual(['conv2d', 'conv2d', 'conv2d', 'add', ...stack, ...stack, ...head]);
    expect(kinds('mlperf-ad')).toEqual(Array.from({ length: 10 }, () => 'fullyConnected'));
    const widths = (name: string, kind: string): number[] =>
      zoo(name).graph.ops.filter((o) => o.kind === kind).map((o) => zoo(name).graph.tensors[o.outputs[0] ?? -1]?.shape.at(-1) ?? 0);
    expect(widths('mlperf-vww', 'conv2d')).toEqual([8, 16, 32, 32, 64, 64, 128, 128, 128, 128, 128, 128, 256, 256]);
    expect(widths('mlperf-ic', 'conv2d')).toEqual([16, 16, 16, 32, 32, 32, 64, 64, 64]);
    expect(widths('mlperf-ad', 'fullyConnected')).toEqual([128, 128, 128, 128, 8, 128, 128, 128, 128, 640]);
    const io = (name: string): unknown => [zoo(name).graph.inputs, zoo(name).graph.outputs].map((ts) => ts.map((t) => zoo(name).graph.tensors[t]?.shape));
    expect(NAMES.map(io)).toEqual([
      [[[1, 49, 10, 1]], [[1, 12]]], [[[1, 96, 96, 3]], [[1, 2]]], [[[1, 32, 32, 3]], [[1, 10]]], [[[1, 640]], [[1, 640]]],
    ]);
  });

  describe.each(NAMES)('%s runs', (name) => {
    it('with a clean trace, the same outputs under both kernel libraries, different ones per input', () => {
      const m = zoo(name);
      const outs = (['reference', 'cmsis-nn'] as const).map((kernels) => {
        const r = runModel(m, { kernels, seed: 1, trace: true });
        expect(r.trace?.violations, kernels).toEqual([]);
        return Buffer.from(r.outputs[0] ?? []);
      });
      expect(outs[1]?.equals(outs[0] ?? Buffer.alloc(0)), 'cmsis-nn = reference').toBe(true);
      const other = Buffer.from(runModel(m, { seed: 2 }).outputs[0] ?? []);
      expect(other.equals(outs[0] ?? Buffer.alloc(0)), 'seed 2 output differs from seed 1').toBe(false);
    });

    it('uses each layer output range as a calibrated model does (seed 1)', () => {
      const m = zoo(name);
      const run = runPlanned(preparePlannedModel(m), { seed: 1, captureTensors: true });
      for (const [i, op] of m.graph.ops.entries()) {
        if (op.kind !== 'conv2d' && op.kind !== 'depthwiseConv2d' && op.kind !== 'fullyConnected' && op.kind !== 'add') continue;
        const bytes = run.tensors?.[op.outputs[0] ?? -1];
        if (bytes === null || bytes === undefined) throw new Error(`op ${i}: output not captured`);
        const codes = new Int8Array(bytes.buffer, bytes.byteOffset, bytes.length);
        if (codes.length < 100) continue;
        const share = (c: number): number => codes.filter((x) => x === c).length / codes.length;
        const where = `${name} op ${i} ${op.kind}`;
        expect(new Set(codes).size, `${where}: distinct codes`).toBeGreaterThanOrEqual(codes.length >= 1000 ? 100 : 32);
        expect(share(127), `${where}: clipped at the top`).toBeLessThan(0.01);
        // ReLU outputs sit at zero point -128 about half the time; linear ones are not clipped below.
        if (op.options.activation === 'relu') expect(Math.abs(share(-128) - 0.5), `${where}: share of zeros`).toBeLessThan(0.2);
        else expect(share(-128), `${where}: clipped at the bottom`).toBeLessThan(0.01);
      }
    });
  });
});

describe.each(NAMES)('%s against the public file', (name) => {
  describeWithData(MLPERF[name], `${name} = ${MLPERF[name]}`, () => {
    const real = (): Model => importTflite(new Uint8Array(readFileSync(join(ORACLE, MLPERF[name]))));

    it('op for op and shape for shape', () => {
      const r = real();
      const z = zoo(name);
      expect(z.graph.ops.length).toBe(r.graph.ops.length);
      expect(structure(z)).toEqual(structure(r));
    });

    it('takes the same kernel path for every op (reference; CMSIS-NN plain C, DSP, MVE)', () => {
      const r = real();
      const z = zoo(name);
      for (const registry of REGISTRIES) {
        const path = (m: Model, i: number): unknown => {
          const p = prepareOp(m.graph, i, registry).prepared;
          return { flags: p.flags ?? null, scratch: p.scratch, params: Object.keys(p.scalars).sort(), arrays: Object.keys(p.arrays).sort() };
        };
        r.graph.ops.forEach((_, i) => expect(path(z, i), `${registry.library} ${registry.cpu ?? ''} op ${i}`).toEqual(path(r, i)));
      }
    });

    it('has the latency estimate of the public file on every board, both kernel libraries', () => {
      const r = real();
      const z = zoo(name);
      const boards = listTargets();
      expect(boards.length).toBeGreaterThan(1);
      for (const board of boards) {
        for (const library of KERNEL_LIBRARIES) {
          const a = estimateLatency(r, board, { library });
          const b = estimateLatency(z, board, { library });
          const where = `${board} ${library}`;
          expect(b.ops.map((o) => [o.kind, o.path, o.cycles]), where).toEqual(a.ops.map((o) => [o.kind, o.path, o.cycles]));
          expect(b.totalMs, where).toBe(a.totalMs);
          expect(a.totalMs, where).toBeGreaterThan(0);
        }
      }
    });
  });
});
