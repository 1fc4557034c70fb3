// validateModel / findModelIssues: tensor rules, dataflow order, and the shape rule of every op
// kind (a consistent case passes, a broken one gives the expected code naming op and tensor).
import { describe, expect, it } from 'vitest';
import { ModelError } from '../../src/ir/errors.ts';
import type { Issue } from '../../src/ir/errors.ts';
import type { BuiltinKind, Model, OpOptionsMap, Tensor } from '../../src/ir/graph.ts';
import { findModelIssues, validateModel } from '../../src/ir/validate.ts';
import { convModel, filled, int32Const, makeModel, quant, tensor } from './tflite/fixtures.ts';

const NONE = { activation: 'none' } as const;

/** One op of `kind`; non-constant inputs become graph inputs, null inputs are omitted (-1). */
function opModel<K extends BuiltinKind>(kind: K, options: OpOptionsMap[K], ins: readonly (Tensor | null)[], outs: readonly Tensor[]): Model {
  const tensors: Tensor[] = [];
  const inputs = ins.map((t) => (t === null ? -1 : tensors.push(t) - 1));
  const outputs = outs.map((t) => tensors.push(t) - 1);
  const graphInputs = inputs.filter((i) => i >= 0 && tensors[i]?.data === null);
  return makeModel(tensors, [{ kind, inputs, outputs, options } as never], graphInputs, outputs);
}

const x = (shape: number[], dtype: Tensor['dtype'] = 'int8'): Tensor => tensor('x', dtype, shape);
const y = (shape: number[], dtype: Tensor['dtype'] = 'int8'): Tensor => tensor('y', dtype, shape);
const w = (shape: number[]): Tensor => tensor('w', 'int8', shape, { data: filled(shape.reduce((a, b) => a * b, 1)) });
const bias = (n: number): Tensor => tensor('b', 'int32', [n], { data: filled(4 * n) });
const codes = (m: Model): string[] => findModelIssues(m).map((i) => i.code);

const conv = (over: Partial<OpOptionsMap['conv2d']> = {}): OpOptionsMap['conv2d'] => ({
  padding: 'same',
  strideH: 1,
  strideW: 1,
  dilationH: 1,
  dilationW: 1,
  ...NONE,
  ...over,
});
const pool = (over: Partial<OpOptionsMap['maxPool2d']>): OpOptionsMap['maxPool2d'] => ({
  padding: 'valid',
  strideH: 2,
  strideW: 2,
  filterH: 2,
  filterW: 2,
  ...NONE,
  ...over,
});
const slice = (over: Partial<OpOptionsMap['stridedSlice']> = {}): OpOptionsMap['stridedSlice'] => ({
  beginMask: 0,
  endMask: 0,
  ellipsisMask: 0,
  newAxisMask: 0,
  shrinkAxisMask: 0,
  offset: false,
  ...over,
});
const fc = (keepNumDims = false): OpOptionsMap['fullyConnected'] => ({ ...NONE, weightsFormat: 'default', keepNumDims, asymmetricQuantizeInputs: false });
const add = { ...NONE, potScaleInt16: true };
const q = quant([0.1], [3]);
const splitOut = (n: number, shape: number[]): Tensor[] => Array.from({ length: n }, (_, i) => tensor(`y${i}`, 'int8', shape));

/** [description, model, expected codes ([] = valid)] */
const cases: [string, Model, string[]][] = [
  ['conv2d SAME', convModel(), []],
  ['conv2d wrong output', convModel([1, 8, 8, 5]), ['E_MODEL_SHAPE']],
  ['conv2d dilated VALID', opModel('conv2d', conv({ padding: 'valid', dilationH: 2, dilationW: 2 }), [x([1, 9, 9, 3]), w([4, 3, 3, 3]), null], [y([1, 5, 5, 4])]), []],
  ['conv2d stride 2 SAME', opModel('conv2d', conv({ strideH: 2, strideW: 2 }), [x([1, 9, 9, 3]), w([4, 3, 3, 3]), bias(4)], [y([1, 5, 5, 4])]), []],
  ['conv2d stride 0', opModel('conv2d', conv({ strideH: 0 }), [x([1, 9, 9, 3]), w([4, 3, 3, 3])], [y([1, 9, 9, 4])]), ['E_MODEL_INVALID']],
  ['conv2d filter depth', opModel('conv2d', conv(), [x([1, 8, 8, 3]), w([4, 3, 3, 2])], [y([1, 8, 8, 4])]), ['E_MODEL_SHAPE']],
  ['conv2d bias count', opModel('conv2d', conv(), [x([1, 8, 8, 3]), w([4, 3, 3, 3]), bias(5)], [y([1, 8, 8, 4])]), ['E_MODEL_SHAPE']],
  ['conv2d output dtype', opModel('conv2d', conv(), [x([1, 8, 8, 3]), w([4, 3, 3, 3])], [y([1, 8, 8, 4], 'int16')]), ['E_MODEL_DTYPE']],
  ['depthwise dm 2', opModel('depthwiseConv2d', { ...conv(), depthMultiplier: 2 }, [x([1, 8, 8, 4]), w([1, 3, 3, 8]), bias(8)], [y([1, 8, 8, 8])]), []],
  ['depthwise wrong dm', opModel('depthwiseConv2d', { ...conv(), depthMultiplier: 1 }, [x([1, 8, 8, 4]), w([1, 3, 3, 8]), bias(8)], [y([1, 8, 8, 8])]), ['E_MODEL_SHAPE']],
  ...transposeConvCases(),
  ['maxPool2d 2x2/2', opModel('maxPool2d', pool({}), [x([1, 8, 8, 3])], [y([1, 4, 4, 3])]), []],
  ['averagePool2d SAME 3x3/2', opModel('averagePool2d', pool({ padding: 'same', filterH: 3, filterW: 3 }), [x([1, 7, 7, 3])], [y([1, 4, 4, 3])]), []],
  ['maxPool2d wrong', opModel('maxPool2d', pool({}), [x([1, 8, 8, 3])], [y([1, 3, 4, 3])]), ['E_MODEL_SHAPE']],
  ['maxPool2d filter 0', opModel('maxPool2d', pool({ filterW: 0 }), [x([1, 8, 8, 3])], [y([1, 4, 4, 3])]), ['E_MODEL_INVALID']],
  ['concatenation axis -1', opModel('concatenation', { axis: -1, ...NONE }, [x([1, 4, 4, 3]), x([1, 4, 4, 5])], [y([1, 4, 4, 8])]), []],
  ['concatenation axis 1', opModel('concatenation', { axis: 1, ...NONE }, [x([1, 2, 4, 3]), x([1, 4, 4, 3]), x([1, 1, 4, 3])], [y([1, 7, 4, 3])]), []],
  ['concatenation mismatch', opModel('concatenation', { axis: 3, ...NONE }, [x([1, 4, 4, 3]), x([1, 4, 5, 3])], [y([1, 4, 4, 6])]), ['E_MODEL_SHAPE']],
  ['concatenation axis 4', opModel('concatenation', { axis: 4, ...NONE }, [x([1, 4, 4, 3]), x([1, 4, 4, 3])], [y([1, 4, 4, 6])]), ['E_MODEL_INVALID']],
  ['fullyConnected', opModel('fullyConnected', fc(), [x([1, 8]), w([3, 8]), bias(3)], [y([1, 3])]), []],
  ['fullyConnected flattens', opModel('fullyConnected', fc(), [x([2, 4, 8]), w([3, 8]), null], [y([8, 3])]), []],
  ['fullyConnected keepNumDims', opModel('fullyConnected', fc(true), [x([2, 4, 8]), w([3, 8])], [y([2, 4, 3])]), []],
  ['fullyConnected keepNumDims wrong', opModel('fullyConnected', fc(true), [x([2, 4, 8]), w([3, 8])], [y([8, 3])]), ['E_MODEL_SHAPE']],
  ['fullyConnected depth', opModel('fullyConnected', fc(), [x([1, 7]), w([3, 8])], [y([1, 3])]), ['E_MODEL_SHAPE']],
  ['softmax', opModel('softmax', { beta: 1 }, [x([1, 10])], [y([1, 10])]), []],
  ['softmax int16 out', opModel('softmax', { beta: 1 }, [x([1, 10])], [y([1, 10], 'int16')]), []],
  ['softmax float out', opModel('softmax', { beta: 1 }, [x([1, 10])], [y([1, 10], 'float32')]), ['E_MODEL_DTYPE']],
  ['add broadcast [C]', opModel('add', add, [x([1, 4, 4, 3]), x([3])], [y([1, 4, 4, 3])]), []],
  ['mul broadcast both', opModel('mul', NONE, [x([2, 1, 3]), x([1, 5, 1])], [y([2, 5, 3])]), []],
  ['add no broadcast', opModel('add', add, [x([1, 4]), x([1, 3])], [y([1, 4])]), ['E_MODEL_SHAPE']],
  ['mul wrong output', opModel('mul', NONE, [x([2, 1, 3]), x([1, 5, 1])], [y([2, 1, 3])]), ['E_MODEL_SHAPE']],
  ['add dtypes', opModel('add', add, [x([1, 4]), x([1, 4], 'int16')], [y([1, 4])]), ['E_MODEL_DTYPE']],
  ['pad', opModel('pad', {}, [x([1, 4, 4, 3]), int32Const('p', [0, 0, 1, 1, 2, 2, 0, 0], [4, 2])], [y([1, 6, 8, 3])]), []],
  ['pad negative', opModel('pad', {}, [x([1, 4, 4, 3]), int32Const('p', [0, 0, -1, 1, 2, 2, 0, 0], [4, 2])], [y([1, 4, 8, 3])]), ['E_MODEL_INVALID']],
  ['pad paddings shape', opModel('pad', {}, [x([1, 4, 4, 3]), int32Const('p', [1, 1, 2, 2], [2, 2])], [y([1, 6, 8, 3])]), ['E_MODEL_SHAPE']],
  ['reshape -1', opModel('reshape', { newShape: null }, [x([1, 4, 4, 3]), int32Const('s', [1, -1])], [y([1, 48])]), []],
  ['reshape new_shape option', opModel('reshape', { newShape: [-1, 12] }, [x([1, 4, 4, 3])], [y([4, 12])]), []],
  ['reshape count', opModel('reshape', { newShape: null }, [x([1, 4, 4, 3]), int32Const('s', [1, 47])], [y([1, 47])]), ['E_MODEL_SHAPE']],
  ['reshape two -1', opModel('reshape', { newShape: null }, [x([1, 4, 4, 3]), int32Const('s', [-1, -1])], [y([4, 12])]), ['E_MODEL_SHAPE']],
  ['reshape vs shape tensor', opModel('reshape', { newShape: null }, [x([1, 4, 4, 3]), int32Const('s', [4, -1])], [y([12, 4])]), ['E_MODEL_SHAPE']],
  ['mean keepDims', opModel('mean', { keepDims: true }, [x([1, 4, 4, 8]), int32Const('a', [1, 2])], [y([1, 1, 1, 8])]), []],
  ['mean drop dims', opModel('mean', { keepDims: false }, [x([1, 4, 4, 8]), int32Const('a', [1, 2])], [y([1, 8])]), []],
  ['mean negative axes', opModel('mean', { keepDims: false }, [x([1, 4, 4, 8]), int32Const('a', [-3, -2])], [y([1, 8])]), []],
  ['mean wrong', opModel('mean', { keepDims: true }, [x([1, 4, 4, 8]), int32Const('a', [1, 2])], [y([1, 8])]), ['E_MODEL_SHAPE']],
  ['mean axis range', opModel('mean', { keepDims: true }, [x([1, 4, 4, 8]), int32Const('a', [4])], [y([1, 4, 4, 8])]), ['E_MODEL_INVALID']],
  ['quantize', opModel('quantize', {}, [x([1, 4], 'float32')], [tensor('y', 'int8', [1, 4], { quant: q })]), []],
  ['quantize no qparams', opModel('quantize', {}, [x([1, 4], 'float32')], [y([1, 4])]), ['E_MODEL_INVALID']],
  ['quantize shape', opModel('quantize', {}, [x([1, 4], 'float32')], [tensor('y', 'int8', [4], { quant: q })]), ['E_MODEL_SHAPE']],
  ['dequantize', opModel('dequantize', {}, [tensor('x', 'int8', [1, 4], { quant: q })], [y([1, 4], 'float32')]), []],
  ['dequantize to int8', opModel('dequantize', {}, [tensor('x', 'int8', [1, 4], { quant: q })], [y([1, 4])]), ['E_MODEL_DTYPE']],
  ['split', opModel('split', { numSplits: 3 }, [int32Const('a', [-1], []), x([1, 4, 4, 6])], splitOut(3, [1, 4, 4, 2])), []],
  ['split outputs', opModel('split', { numSplits: 3 }, [int32Const('a', [3], []), x([1, 4, 4, 6])], splitOut(2, [1, 4, 4, 3])), ['E_MODEL_INVALID']],
  ['split indivisible', opModel('split', { numSplits: 4 }, [int32Const('a', [3], []), x([1, 4, 4, 6])], splitOut(4, [1, 4, 4, 1])), ['E_MODEL_SHAPE']],
  [
    'splitV',
    opModel('splitV', { numSplits: 3 }, [x([1, 10]), int32Const('s', [3, -1, 2]), int32Const('a', [1], [])], [y([1, 3]), y([1, 5]), y([1, 2])]),
    [],
  ],
  ['splitV sum', opModel('splitV', { numSplits: 2 }, [x([1, 10]), int32Const('s', [3, 4]), int32Const('a', [1], [])], [y([1, 3]), y([1, 4])]), ['E_MODEL_SHAPE']],
  ...stridedSliceCases(),
  ['logistic', opModel('logistic', {}, [x([1, 5])], [y([1, 5])]), []],
  ['relu wrong', opModel('relu', {}, [x([1, 5])], [y([5])]), ['E_MODEL_SHAPE']],
  ['relu6', opModel('relu6', {}, [x([2, 3])], [y([2, 3])]), []],
  ['leakyRelu dtype', opModel('leakyRelu', { alpha: 0.2 }, [x([2, 3])], [y([2, 3], 'int16')]), ['E_MODEL_DTYPE']],
  ['transpose', opModel('transpose', {}, [x([1, 2, 3, 4]), int32Const('p', [0, 3, 1, 2])], [y([1, 4, 2, 3])]), []],
  ['transpose bad perm', opModel('transpose', {}, [x([1, 2, 3, 4]), int32Const('p', [0, 0, 1, 2])], [y([1, 1, 2, 3])]), ['E_MODEL_INVALID']],
  ['add arity', opModel('add', add, [x([1, 4])], [y([1, 4])]), ['E_MODEL_INVALID']],
  ['add omitted input', opModel('add', add, [x([1, 4]), null], [y([1, 4])]), ['E_MODEL_INVALID']],
];

function transposeConvCases(): [string, Model, string[]][] {
  const t = (padding: 'same' | 'valid', kh: number, out: number[], declared = out): Model =>
    opModel('transposeConv', { padding, strideH: 2, strideW: 2, ...NONE }, [int32Const('shape', declared), w([4, kh, kh, 8]), x([1, 4, 4, 8]), bias(4)], [y(out)]);
  return [
    ['transposeConv SAME 2x2/2', t('same', 2, [1, 8, 8, 4]), []],
    ['transposeConv VALID 3x3/2', t('valid', 3, [1, 9, 9, 4]), []],
    // TFLM takes the output size from the output tensor alone and never reads output_shape.
    ['transposeConv output beyond the forward conv', t('same', 2, [1, 9, 9, 4]), []],
    ['transposeConv output_shape ignored', t('same', 2, [1, 8, 8, 4], [1, 7, 8, 4]), []],
    ['transposeConv channels', t('same', 2, [1, 8, 8, 5], [1, 8, 8, 5]), ['E_MODEL_SHAPE']],
  ];
}

function stridedSliceCases(): [string, Model, string[]][] {
  const s = (o: Partial<OpOptionsMap['stridedSlice']>, b: number[], e: number[], st: number[], out: number[]): Model =>
    opModel('stridedSlice', slice(o), [x([1, 8, 8, 3]), int32Const('begin', b), int32Const('end', e), int32Const('strides', st)], [y(out)]);
  return [
    ['stridedSlice', s({}, [0, 1, 0, 0], [1, 7, 8, 3], [1, 2, 1, 1], [1, 3, 8, 3]), []],
    ['stridedSlice shrink', s({ shrinkAxisMask: 1 }, [0, 1, 0, 0], [1, 7, 8, 3], [1, 2, 1, 1], [3, 8, 3]), []],
    ['stridedSlice masks', s({ beginMask: 2, endMask: 2 }, [0, 5, 0, 0], [1, 6, 8, 2], [1, 1, 1, 1], [1, 8, 8, 2]), []],
    ['stridedSlice negative', s({}, [0, -1, 0, 0], [1, -9, 8, 3], [1, -1, 1, 1], [1, 8, 8, 3]), []],
    ['stridedSlice negative end mask', s({ endMask: 4 }, [0, 0, 6, 0], [1, 8, 0, 3], [1, 1, -2, 1], [1, 8, 4, 3]), []],
    ['stridedSlice wrong', s({}, [0, 1, 0, 0], [1, 7, 8, 3], [1, 2, 1, 1], [1, 4, 8, 3]), ['E_MODEL_SHAPE']],
    ['stridedSlice zero stride', s({}, [0, 1, 0, 0], [1, 7, 8, 3], [1, 0, 1, 1], [1, 3, 8, 3]), ['E_MODEL_INVALID']],
  ];
}

describe('shape rules of every op kind', () => {
  for (const [name, model, expected] of cases) {
    it(name, () => {
      const issues = findModelIssues(model);
      expect(issues.map((i) => i.code)).toEqual(expected);
      for (const i of issues) expect(i).toMatchObject({ opIndex: 0, opKind: model.graph.ops[0]?.kind });
    });
  }

  it('covers every builtin kind', () => {
    const covered = new Set(cases.map(([, m]) => m.graph.ops[0]?.kind));
    const kinds: BuiltinKind[] = ['conv2d', 'depthwiseConv2d', 'transposeConv', 'maxPool2d', 'averagePool2d', 'concatenation', 'fullyConnected', 'softmax', 'add', 'mul', 'pad', 'reshape', 'mean', 'quantize', 'dequantize', 'split', 'splitV', 'stridedSlice', 'logistic', 'relu', 'relu6', 'leakyRelu', 'transpose'];
    expect(kinds.filter((k) => !covered.has(k))).toEqual([]);
  });

  it('names the offending tensor', () => {
    const [issue] = findModelIssues(convModel([1, 8, 8, 5]));
    expect(issue).toMatchObject({ code: 'E_MODEL_SHAPE', opIndex: 0, opKind: 'conv2d', tensorIndex: 3, tensorName: 'output' });
  });

  it('does not shape-check custom ops', () => {
    const m = makeModel([x([1, 4]), y([7, 7, 7])], [{ kind: 'custom', customCode: 'Fetching', customOptions: new Uint8Array(2), inputs: [0], outputs: [1] }], [0], [1]);
    expect(codes(m)).toEqual([]);
  });
});

describe('tensor rules', () => {
  const one = (t: Tensor): Model => opModel('relu', {}, [t], [tensor('y', t.dtype, t.shape)]);
  it('refuses dynamic dims, huge tensors and wrong constant sizes', () => {
    expect(codes(one(x([-1, 4])))).toContain('E_MODEL_SHAPE');
    expect(codes(one(x([1 << 20, 1 << 20])))).toEqual(['E_MODEL_TENSOR_SIZE', 'E_MODEL_TENSOR_SIZE']);
    const c = makeModel([tensor('c', 'int32', [4], { data: filled(15) })], [], [], [0]);
    expect(codes(c)).toEqual(['E_MODEL_TENSOR_SIZE']);
  });

  it('checks quantization parameters', () => {
    const bad = (qq: ReturnType<typeof quant>, shape = [2, 3]): string[] =>
      codes(makeModel([tensor('w', 'int8', shape, { quant: qq, data: filled(shape.reduce((a, b) => a * b, 1)) })], [], [], [0]));
    expect(bad(quant([0.1, 0.2], [0, 0], 0))).toEqual([]);
    expect(bad(quant([0.1, 0.2, 0.3], [0, 0, 0], 1))).toEqual([]);
    expect(bad(quant([0.1, 0.2], [0, 0], 1))).toEqual(['E_MODEL_INVALID']);
    expect(bad(quant([0.1, 0.2], [0], 0))).toEqual(['E_MODEL_INVALID']);
    expect(bad({ scale: [Number.NaN], zeroPoint: [0], quantizedDimension: 0 })).toEqual(['E_MODEL_INVALID']);
    // TOCO's depthwise biases: 1-D with quantized_dimension 3.
    expect(bad(quant([0.1, 0.2], [0, 0], 3), [2])).toEqual([]);
  });
});

describe('graph rules', () => {
  const relu = (i: number, o: number) => ({ kind: 'relu' as const, inputs: [i], outputs: [o], options: {} });
  const ts = (): Tensor[] => [x([4]), tensor('a', 'int8', [4]), tensor('b', 'int8', [4])];

  it('accepts ops in execution order', () => {
    expect(codes(makeModel(ts(), [relu(0, 1), relu(1, 2)], [0], [2]))).toEqual([]);
  });

  it('reports ops out of order as a cycle', () => {
    const issues = findModelIssues(makeModel(ts(), [relu(1, 2), relu(0, 1)], [0], [2]));
    expect(issues).toEqual([expect.objectContaining({ code: 'E_MODEL_CYCLE', opIndex: 0, opKind: 'relu', tensorIndex: 1, tensorName: 'a' })]);
  });

  it('accepts a tensor no op produces, as TFLM does (Vela scratch tensors), but not one produced later', () => {
    const unproduced = [x([4]), tensor('a', 'int8', [4]), tensor('b', 'int8', [4]), tensor('never', 'int8', [4])];
    const add = { kind: 'add' as const, inputs: [0, 3], outputs: [1], options: { activation: 'none' as const, potScaleInt16: false } };
    expect(codes(makeModel(unproduced, [add, relu(1, 2)], [0], [2]))).toEqual([]);
    const later = { ...add, inputs: [0, 2] };
    expect(codes(makeModel(unproduced, [later, relu(1, 2)], [0], [2]))).toEqual(['E_MODEL_CYCLE']);
  });

  it('reports a tensor produced twice, a written constant, an output never computed, bad indices', () => {
    expect(codes(makeModel(ts(), [relu(0, 1), relu(0, 1)], [0], [1]))).toEqual(['E_MODEL_INVALID']);
    const withConst = [x([4]), tensor('c', 'int8', [4], { data: filled(4) })];
    expect(codes(makeModel(withConst, [relu(0, 1)], [0], [1]))).toEqual(['E_MODEL_INVALID']);
    expect(codes(makeModel(ts(), [relu(0, 1)], [0], [2]))).toEqual(['E_MODEL_INVALID']);
    expect(codes(makeModel(ts(), [relu(0, 9)], [0], [1]))).toEqual(['E_MODEL_INVALID', 'E_MODEL_INVALID']);
    expect(codes(makeModel(ts(), [relu(0, 1)], [0, 5], [1]))).toEqual(['E_MODEL_INVALID']);
  });

  it('requires schema version 3', () => {
    expect(codes({ ...convModel(), version: 2 })).toEqual(['E_MODEL_INVALID']);
  });

  it('reports all problems at once through validateModel', () => {
    const base = convModel([1, 8, 8, 5]);
    const tensors = [...base.graph.tensors, tensor('dyn', 'int8', [-1, 4]), tensor('z', 'int8', [1, 8, 8, 5])];
    const ops = [relu(3, 5), ...base.graph.ops];
    const model = makeModel(tensors, ops, [0], [5]);
    let err: unknown;
    try {
      validateModel(model);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ModelError);
    const issues = (err as ModelError).issues;
    expect(new Set(issues.map((i: Issue) => i.code))).toEqual(new Set(['E_MODEL_SHAPE', 'E_MODEL_CYCLE']));
    expect(issues).toContainEqual(expect.objectContaining({ code: 'E_MODEL_SHAPE', tensorIndex: 4, tensorName: 'dyn' }));
    expect(issues).toContainEqual(expect.objectContaining({ code: 'E_MODEL_CYCLE', opIndex: 0, opKind: 'relu', tensorIndex: 3 }));
    expect(issues).toContainEqual(expect.objectContaining({ code: 'E_MODEL_SHAPE', opIndex: 1, opKind: 'conv2d', tensorIndex: 3 }));
    expect((err as ModelError).code).toBe(issues[0]?.code);
  });

  it('lists at most 200 issues and counts the rest', () => {
    const tensors = Array.from({ length: 500 }, (_, i) => tensor(`t${i}`, 'int8', [-1]));
    const issues = findModelIssues(makeModel(tensors, [], [], []));
    expect(issues).toHaveLength(201);
    expect(issues[200]?.message).toMatch(/300/);
  });
});
