// Model zoo: determinism, TFLite/TFLM int8 conventions on every model, and each architecture
// against its source (CMSIS-NN replacement paper Table II, TinySeg Table 2, MobileNet parameter
// totals, DMO's 96 KB step, FDT's 2.66 M MACs for KWS).
import { describe, expect, it } from 'vitest';
import type { Model, Op, Tensor } from '../../../src/ir/index.ts';
import {
  TINY_UNET_PARAMETERS,
  UsageError,
  buildZooModel,
  byteSize,
  elementCount,
  listZooModels,
  makeDivisible,
  validateModel,
} from '../../../src/ir/index.ts';

const NAMES = [
  'tiny-unet',
  'mobilenet-v1-0.25-128',
  'mobilenet-v1-1.0-224',
  'mobilenet-v2-0.35-224',
  'mobilenet-v2-1.0-224',
  'cifar10-cnn',
  'ds-cnn-kws',
  'mlperf-kws',
  'mlperf-vww',
  'mlperf-ic',
  'mlperf-ad',
];

/** One build per model for the read-only checks below. */
const MODELS = new Map(NAMES.map((n) => [n, buildZooModel(n)]));
function model(name: string): Model {
  const m = MODELS.get(name);
  if (m === undefined) throw new Error(`no model ${name}`);
  return m;
}

function tensor(m: Model, i: number | undefined): Tensor {
  const t = i === undefined ? undefined : m.graph.tensors[i];
  if (t === undefined) throw new Error(`no tensor ${i}`);
  return t;
}

function withoutData(m: Model): unknown {
  return { ...m, graph: { ...m.graph, tensors: m.graph.tensors.map((t) => ({ ...t, data: t.data === null ? null : t.data.length })) } };
}

function opsOf<K extends Op['kind']>(m: Model, kind: K): Extract<Op, { kind: K }>[] {
  return m.graph.ops.filter((o): o is Extract<Op, { kind: K }> => o.kind === kind);
}

/** Weights + biases: elements of every quantized constant (shape tensors are not parameters). */
function parameterCount(m: Model): number {
  return m.graph.tensors.filter((t) => t.data !== null && t.quant !== null).reduce((a, t) => a + elementCount(t.shape), 0);
}

function sameQuant(a: Tensor, b: Tensor): boolean {
  return JSON.stringify(a.quant) === JSON.stringify(b.quant);
}

describe('zoo registry', () => {
  it('lists exactly the zoo models, each with a description', () => {
    const list = listZooModels();
    expect(list.map((m) => m.name)).toEqual(NAMES);
    for (const m of list) expect(m.description.length).toBeGreaterThan(10);
  });

  it('rejects an unknown name with a usage error', () => {
    expect(() => buildZooModel('resnet-50')).toThrow(UsageError);
    try {
      buildZooModel('resnet-50');
    } catch (e) {
      expect((e as UsageError).code).toBe('E_USAGE');
    }
  });
});

describe.each(NAMES)('%s', (name) => {
  it('builds deterministically (same structure, same constant bytes)', () => {
    const a = model(name);
    const b = buildZooModel(name);
    expect(withoutData(b)).toEqual(withoutData(a));
    a.graph.tensors.forEach((t, i) => {
      const u = b.graph.tensors[i]?.data ?? null;
      if (t.data === null || u === null) expect(u).toBe(t.data);
      else expect(Buffer.from(u).equals(Buffer.from(t.data)), `tensor ${i} '${t.name}'`).toBe(true);
    });
  });

  it('passes validateModel', () => {
    expect(() => validateModel(model(name))).not.toThrow();
  });

  it('follows the TFLite int8 conventions', () => {
    const m = model(name);
    const g = m.graph;
    for (const t of g.tensors) {
      if (t.data !== null) expect(t.data.length, t.name).toBe(byteSize(t.dtype, t.shape));
      if (t.quant === null) {
        expect(t.dtype, t.name).toBe('int32');
        expect(t.data, t.name).not.toBeNull();
        continue;
      }
      for (const s of t.quant.scale) expect(s > 0 && Math.fround(s) === s, `${t.name} scale ${s}`).toBe(true);
      expect(t.quant.zeroPoint.length).toBe(t.quant.scale.length);
      if (t.data === null) {
        expect(t.dtype, t.name).toBe('int8');
        expect(t.quant.scale.length, t.name).toBe(1);
        const zp = t.quant.zeroPoint[0] ?? NaN;
        expect(zp >= -128 && zp <= 127, `${t.name} zero point ${zp}`).toBe(true);
      }
    }
    for (const op of g.ops) {
      if (op.kind === 'conv2d' || op.kind === 'depthwiseConv2d' || op.kind === 'fullyConnected' || op.kind === 'transposeConv') {
        const [xi, wi, bi] = op.kind === 'transposeConv' ? [op.inputs[2], op.inputs[1], op.inputs[3]] : op.inputs;
        const x = tensor(m, xi);
        const w = tensor(m, wi);
        const b = tensor(m, bi);
        const wq = w.quant;
        const bq = b.quant;
        if (wq === null || bq === null || w.data === null || x.quant === null) throw new Error(`${w.name}: not quantized`);
        expect(w.dtype).toBe('int8');
        expect(wq.zeroPoint.every((z) => z === 0), w.name).toBe(true);
        const qdim = op.kind === 'depthwiseConv2d' ? 3 : 0;
        if (wq.scale.length > 1) {
          expect(wq.quantizedDimension, w.name).toBe(qdim);
          expect(wq.scale.length, w.name).toBe(w.shape[qdim]);
        }
        expect(new Int8Array(w.data.buffer, w.data.byteOffset, w.data.length).includes(-128), `${w.name} holds -128`).toBe(false);
        expect(b.dtype).toBe('int32');
        expect(b.shape).toEqual([w.shape[qdim]]);
        expect(bq.zeroPoint.every((z) => z === 0)).toBe(true);
        const inScale = x.quant.scale[0] ?? NaN;
        const wrong = bq.scale.filter((s, c) => s !== Math.fround(inScale * (wq.scale[c] ?? NaN)));
        expect(wrong, `${b.name} scales != input_scale * weight_scale`).toEqual([]);
      }
      if (op.kind === 'maxPool2d' || op.kind === 'averagePool2d' || op.kind === 'concatenation' || op.kind === 'reshape') {
        const out = tensor(m, op.outputs[0]);
        const ins = op.kind === 'concatenation' ? op.inputs : [op.inputs[0]];
        for (const i of ins) expect(sameQuant(tensor(m, i), out), `${out.name} qparams`).toBe(true);
      }
      if (op.kind === 'softmax') {
        expect(tensor(m, op.outputs[0]).quant).toEqual({ scale: [1 / 256], zeroPoint: [-128], quantizedDimension: 0 });
      }
      if (op.kind === 'conv2d' || op.kind === 'depthwiseConv2d' || op.kind === 'add') {
        const a = op.options.activation;
        if (a === 'relu6') expect(tensor(m, op.outputs[0]).quant?.zeroPoint).toEqual([-128]);
      }
    }
  });
});

describe('cifar10-cnn against Table II of the replacement-strategy paper', () => {
  // [operation, input shape column (Cin x KH x KW x Cout or Cin x H x W x Cout), stride, padding, output shape (C x H x W)]
  const TABLE_II = [
    ['conv2d', [3, 5, 5, 32], 1, 'same', [32, 32, 32]],
    ['maxPool2d', null, 2, null, [32, 16, 16]],
    ['conv2d', [32, 5, 5, 32], 1, 'same', [32, 16, 16]],
    ['maxPool2d', null, 2, null, [32, 8, 8]],
    ['conv2d', [32, 5, 5, 64], 1, 'same', [64, 8, 8]],
    ['maxPool2d', null, 2, null, [64, 4, 4]],
    ['fullyConnected', [64, 4, 4, 10], null, null, [10]],
  ] as const;

  it('has every layer of the table with its exact shapes', () => {
    const m = model('cifar10-cnn');
    const layers = m.graph.ops.filter((o) => o.kind !== 'reshape' && o.kind !== 'softmax');
    expect(layers.map((o) => o.kind)).toEqual(TABLE_II.map((r) => r[0]));
    TABLE_II.forEach(([kind, weights, stride, padding, out], i) => {
      const op = layers[i];
      if (op === undefined) throw new Error(`missing layer ${i}`);
      const y = tensor(m, op.outputs[0]);
      // NHWC [1, H, W, C] against the table's C x H x W
      expect(out.length === 1 ? y.shape : [y.shape[3], y.shape[1], y.shape[2]], `layer ${i} output`).toEqual(out.length === 1 ? [1, out[0]] : [...out]);
      if (op.kind === 'conv2d' && weights !== null) {
        const [cin, kh, kw, cout] = weights;
        expect(tensor(m, op.inputs[1]).shape).toEqual([cout, kh, kw, cin]);
        expect([op.options.strideH, op.options.strideW, op.options.padding]).toEqual([stride, stride, padding]);
      }
      if (op.kind === 'maxPool2d') expect([op.options.strideH, op.options.strideW]).toEqual([stride, stride]);
      if (op.kind === 'fullyConnected' && weights !== null) {
        expect(tensor(m, op.inputs[1]).shape).toEqual([weights[3], weights[0] * weights[1] * weights[2]]);
      }
    });
    expect(tensor(m, m.graph.inputs[0]).shape).toEqual([1, 32, 32, 3]);
    expect(layers[1]?.kind === 'maxPool2d' && layers[1].options.activation).toBe('relu');
  });

  it('has the 89,440 weights and the 45,056 B of conv outputs of the paper', () => {
    const m = model('cifar10-cnn');
    const weights = m.graph.tensors.filter((t) => t.dtype === 'int8' && t.data !== null).reduce((a, t) => a + (t.data?.length ?? 0), 0);
    expect(weights).toBe(89_440);
    const convOut = [...opsOf(m, 'conv2d')].reduce((a, o) => a + byteSize('int8', tensor(m, o.outputs[0]).shape), 0);
    expect(convOut).toBe(45_056);
  });
});

describe('tiny-unet', () => {
  it(`has ${TINY_UNET_PARAMETERS} weights + biases (the paper's 109,725 counts BN instead of folded biases)`, () => {
    const m = model('tiny-unet');
    expect(parameterCount(m)).toBe(109_373);
    // 14 DoubleConv convs with 352 channels in all: 352 folded biases out, 2 x 352 BN parameters in.
    expect(TINY_UNET_PARAMETERS - 352 + 2 * 352).toBe(109_725);
    expect(tensor(m, m.graph.inputs[0]).shape).toEqual([1, 80, 120, 3]);
    expect(tensor(m, m.graph.outputs[0]).shape).toEqual([1, 80, 120, 1]);
  });

  it('concatenates [skip, up] with shared qparams after a stride-2 transpose conv', () => {
    const m = model('tiny-unet');
    const ups = opsOf(m, 'transposeConv');
    const cats = opsOf(m, 'concatenation');
    expect(ups.map((o) => tensor(m, o.outputs[0]).shape)).toEqual([[1, 20, 30, 16], [1, 40, 60, 8], [1, 80, 120, 4]]);
    for (const up of ups) {
      const [shapeIdx, filterIdx, inputIdx] = up.inputs;
      const shape = tensor(m, shapeIdx);
      expect(shape.dtype).toBe('int32');
      expect(Array.from(new Int32Array(new Uint8Array(shape.data ?? []).buffer))).toEqual(tensor(m, up.outputs[0]).shape);
      expect(tensor(m, filterIdx).shape).toEqual([tensor(m, up.outputs[0]).shape[3], 2, 2, tensor(m, inputIdx).shape[3]]);
      expect(up.options).toEqual({ padding: 'valid', strideH: 2, strideW: 2, activation: 'none' });
    }
    expect(cats.map((c) => c.inputs.map((i) => tensor(m, i).shape[3]))).toEqual([[32, 16], [16, 8], [8, 4]]);
    cats.forEach((c, k) => {
      expect(c.inputs[1]).toBe(ups[k]?.outputs[0]);
      expect(c.options.axis).toBe(3);
      expect(sameQuant(tensor(m, c.inputs[0]), tensor(m, c.inputs[1]))).toBe(true);
    });
    expect(opsOf(m, 'maxPool2d').map((o) => tensor(m, o.outputs[0]).shape)).toEqual([[1, 40, 60, 8], [1, 20, 30, 16], [1, 10, 15, 32]]);
  });
});

describe('mobilenet v1', () => {
  it('0.25-128: the first pointwise conv reads 32,768 B and writes 65,536 B, the 96 KB peak step', () => {
    const m = model('mobilenet-v1-0.25-128');
    const pw = opsOf(m, 'conv2d')[1];
    if (pw === undefined) throw new Error('no pointwise conv');
    const inBytes = byteSize('int8', tensor(m, pw.inputs[0]).shape);
    const outBytes = byteSize('int8', tensor(m, pw.outputs[0]).shape);
    expect([inBytes, outBytes]).toEqual([32_768, 65_536]);
    expect(tensor(m, pw.inputs[0]).shape).toEqual([1, 64, 64, 8]);
    expect(inBytes + outBytes).toBe(98_304);
    // No other op needs more input + output bytes at once.
    const opBytes = m.graph.ops.map((o) => [...o.inputs, ...o.outputs].filter((i) => tensor(m, i).data === null).reduce((a, i) => a + byteSize('int8', tensor(m, i).shape), 0));
    expect(Math.max(...opBytes)).toBe(98_304);
  });

  it('has 13 separable blocks with the paper channel counts and a 1001-class softmax', () => {
    for (const [name, alpha, side] of [['mobilenet-v1-0.25-128', 0.25, 4], ['mobilenet-v1-1.0-224', 1, 7]] as const) {
      const m = model(name);
      expect(opsOf(m, 'depthwiseConv2d').length).toBe(13);
      const pw = opsOf(m, 'conv2d').slice(1, 14).map((o) => tensor(m, o.outputs[0]).shape[3]);
      expect(pw).toEqual([64, 128, 128, 256, 256, 512, 512, 512, 512, 512, 512, 1024, 1024].map((c) => Math.max(8, c * alpha)));
      const pool = opsOf(m, 'averagePool2d')[0];
      expect(pool === undefined ? null : tensor(m, pool.inputs[0]).shape.slice(1, 3)).toEqual([side, side]);
      expect(tensor(m, m.graph.outputs[0]).shape).toEqual([1, 1001]);
    }
  });

  it('1.0-224 matches the Keras parameter total once BatchNorm is folded', () => {
    // Keras MobileNet 1.0: 4,253,864 parameters, 21,888 of them BN moving stats (2 per channel,
    // so 10,944 BN channels) and 1000 classes. Folding BN's 4 per channel into 1 bias and
    // adding class 1001 (1024 weights + 1 bias): 4,253,864 - 3 * 10,944 + 1,025.
    expect(parameterCount(model('mobilenet-v1-1.0-224'))).toBe(4_253_864 - 3 * 10_944 + 1_025);
  });
});

describe('mobilenet v2', () => {
  it('rounds channels like Keras _make_divisible', () => {
    expect([32 * 0.35, 16 * 0.35, 24 * 0.35, 32 * 0.35, 64 * 0.35, 96 * 0.35, 160 * 0.35, 320 * 0.35].map((v) => makeDivisible(Math.trunc(v))))
      .toEqual([16, 8, 8, 16, 24, 32, 56, 112]);
    expect(makeDivisible(32 * 0.35)).toBe(16);
  });

  it.each([
    ['mobilenet-v2-1.0-224', 32, [16, 24, 24, 32, 32, 32, 64, 64, 64, 64, 96, 96, 96, 160, 160, 160, 320]],
    ['mobilenet-v2-0.35-224', 16, [8, 8, 8, 16, 16, 16, 24, 24, 24, 24, 32, 32, 32, 56, 56, 56, 112]],
  ] as const)('%s: inverted residual stages, 10 residual adds, 1280-channel last conv', (name, first, projections) => {
    const m = model(name);
    const convs = opsOf(m, 'conv2d');
    expect(tensor(m, convs[0]?.outputs[0]).shape).toEqual([1, 112, 112, first]);
    const project = convs.filter((o) => tensor(m, o.outputs[0]).name.endsWith('_project'));
    expect(project.map((o) => tensor(m, o.outputs[0]).shape[3])).toEqual([...projections]);
    expect(project.every((o) => o.options.activation === 'none')).toBe(true);
    expect(opsOf(m, 'add').length).toBe(10);
    expect(opsOf(m, 'depthwiseConv2d').length).toBe(17);
    const last = convs[convs.length - 2];
    expect(tensor(m, last?.outputs[0]).shape).toEqual([1, 7, 7, 1280]);
    expect(tensor(m, m.graph.outputs[0]).shape).toEqual([1, 1001]);
  });

  it('1.0-224 matches the Keras parameter total once BatchNorm is folded', () => {
    // Keras MobileNetV2 1.0: 3,538,984 parameters, 34,112 BN moving stats (17,056 BN channels),
    // 1000 classes: 3,538,984 - 3 * 17,056 + (1280 + 1) for class 1001.
    expect(parameterCount(model('mobilenet-v2-1.0-224'))).toBe(3_538_984 - 3 * 17_056 + 1_281);
  });
});

describe('ds-cnn-kws', () => {
  it('is the MLPerf Tiny DS-CNN with the 2.66 M MACs of FDT Table 2', () => {
    const m = model('ds-cnn-kws');
    expect(tensor(m, m.graph.inputs[0]).shape).toEqual([1, 49, 10, 1]);
    expect(m.graph.ops.map((o) => o.kind)).toEqual([
      'conv2d', ...Array.from({ length: 4 }, () => ['depthwiseConv2d', 'conv2d']).flat(), 'averagePool2d', 'reshape', 'fullyConnected', 'softmax',
    ]);
    const first = opsOf(m, 'conv2d')[0];
    expect(first === undefined ? null : tensor(m, first.inputs[1]).shape).toEqual([64, 10, 4, 1]);
    expect(first?.options).toMatchObject({ strideH: 2, strideW: 2, padding: 'same', activation: 'relu' });
    let macs = 0;
    for (const op of m.graph.ops) {
      if (op.kind !== 'conv2d' && op.kind !== 'depthwiseConv2d' && op.kind !== 'fullyConnected') continue;
      const out = elementCount(tensor(m, op.outputs[0]).shape);
      const w = tensor(m, op.inputs[1]).shape;
      const perOutput = op.kind === 'conv2d' ? (w[1] ?? 0) * (w[2] ?? 0) * (w[3] ?? 0) : op.kind === 'depthwiseConv2d' ? (w[1] ?? 0) * (w[2] ?? 0) : (w[1] ?? 0);
      macs += out * perOutput;
    }
    expect(macs).toBe(2_656_768);
    expect((macs / 1e6).toFixed(2)).toBe('2.66');
    const pool = opsOf(m, 'averagePool2d')[0];
    expect(pool?.options).toMatchObject({ filterH: 25, filterW: 5, padding: 'valid' });
    expect(tensor(m, m.graph.outputs[0]).shape).toEqual([1, 12]);
  });
});
