// SVDF, int8 input/output with int16 or int8 weights_time and activation state: TFLM
// svdf_common.cc PrepareSvdf + EvalIntegerSvdfReference<T>. The activation state (input 4) is a
// variable tensor updated in place: shift left by one, feature matmul into each filter's newest
// slot (saturated to T, then the zero point added), time dot products into scratch 0
// (int32, batch x filters), bias + rank reduction into scratch 1 (int32, batch x units), then
// requantize to int8. The integer path applies no fused activation (TFLM ignores it there).
import { For, Let, Set, Store, Val } from '../nest.ts';
import { quantizeMultiplier } from '../quant.ts';
import type { KernelSpec } from '../spec.ts';
import { constraint, dim, isInt8Quantized, rank, scaleOf, zeroPointOf } from './common.ts';
import { OP_DATA_SVDF, TFLITE_SVDF_PARAMS, stock } from '../tflm-memory.ts';

const stateType = (c: { input(slot: number): { dtype: string } | null }): string | undefined => c.input(4)?.dtype;

export const svdfSpec: KernelSpec<'svdf'> = {
  kind: 'svdf',
  // PrepareSvdf requests two scratch buffers for int8 (those mcusim declares); the activation
  // state is a variable tensor (the tail model allocates it).
  tflmPersistent: stock(TFLITE_SVDF_PARAMS, OP_DATA_SVDF),
  requestsScratch: true,
  constraints: [
    constraint('svdf.types', 'input, weights_feature and output must be int8 quantized (TFLM has no other integer SVDF)', (c) =>
      isInt8Quantized(c.input(0)) && isInt8Quantized(c.input(1)) && isInt8Quantized(c.output(0))),
    constraint('svdf.state-type', 'weights_time and activation state must both be int16 or both int8, quantized', (c) => {
      const wt = c.input(2);
      const st = c.input(4);
      return wt !== null && st !== null && (st.dtype === 'int16' || st.dtype === 'int8') && wt.dtype === st.dtype && wt.quant !== null && st.quant !== null;
    }),
    constraint('svdf.state-variable', 'activation state (input 4) must be a variable tensor', (c) => c.input(4)?.isVariable === true),
    constraint('svdf.ranks', 'input, weights, state and output must be 2-D', (c) =>
      [0, 1, 2, 4].every((s) => rank(c.input(s)) === 2) && rank(c.output(0)) === 2),
    constraint('svdf.bias', 'int8 SVDF needs an int32 bias whose scale is state scale x weights_time scale (TFLM Prepare reads it)', (c) => {
      const b = c.input(3);
      if (b === null || b.dtype !== 'int32' || b.quant === null) return false;
      const product = Math.fround(scaleOf(c.input(4)) * scaleOf(c.input(2)));
      return Math.abs(scaleOf(b) - product) < 1e-5;
    }),
    constraint('svdf.per-tensor', 'weights and state must be quantized per tensor', (c) =>
      [1, 2, 4].every((s) => (c.input(s)?.quant?.scale.length ?? 0) === 1)),
  ],
  prepare(c) {
    const input = c.input(0)!;
    const wf = c.input(1)!;
    const wt = c.input(2)!;
    const state = c.input(4)!;
    const output = c.output(0);
    const r = c.op.options.rank;
    const batches = dim(input, 0);
    const inputSize = dim(input, 1);
    const filters = dim(wf, 0);
    const memory = dim(wt, 1);
    const units = filters / r;
    // float32 products and quotients, then widened to double, as Prepare writes them.
    const s1 = quantizeMultiplier(Math.fround(Math.fround(scaleOf(input) * scaleOf(wf)) / scaleOf(state)));
    const s2 = quantizeMultiplier(Math.fround(Math.fround(scaleOf(state) * scaleOf(wt)) / scaleOf(output)));
    const int16 = stateType(c) === 'int16';
    return {
      scalars: {
        batches, inputSize, filters, memory, units, rank: r,
        inZp: zeroPointOf(input), stateZp: zeroPointOf(state), outZp: zeroPointOf(output),
        m1: s1.multiplier, sh1: s1.shift, m2: s2.multiplier, sh2: s2.shift,
        stateMin: int16 ? -32768 : -128, stateMax: int16 ? 32767 : 127,
        stateLen: batches * filters * memory,
      },
      arrays: {},
      buffers: {
        input: { kind: 'input', slot: 0 },
        wf: { kind: 'input', slot: 1 },
        wt: { kind: 'input', slot: 2 },
        bias: { kind: 'input', slot: 3 },
        state: { kind: 'input', slot: 4 },
        output: { kind: 'output', slot: 0 },
        scratch: { kind: 'scratch', index: 0 },
        scratchOut: { kind: 'scratch', index: 1 },
      },
      scratch: [
        { name: 'scratch_tensor', dtype: 'int32', sizeBytes: batches * filters * 4 },
        { name: 'scratch_output_tensor', dtype: 'int32', sizeBytes: batches * units * 4 },
      ],
    };
  },
  body: [
    // Left shift the activation state by one element (over all batches and filters).
    For('i', '0', 'stateLen - 1', [Store('state', 'i', 'state[i + 1]')]),
    // Feature matmul into the newest slot of every filter's memory.
    For('b', '0', 'batches', [
      Let('inBase', 'b * inputSize'),
      For('r', '0', 'filters', [
        Let('fBase', 'r * inputSize'),
        Val('acc', '0'),
        For('k', '0', 'inputSize', [Set('acc', 'acc + wf[fBase + k] * (input[inBase + k] - inZp)', 'mac')]),
        // Clamped to T's range first, then the zero point added and narrowed to T (wrapping), as
        // this TFLM revision does (keyword_scrambled_8bit's int8 states show the wrap).
        Store('state', '(b * filters + r) * memory + memory - 1', 'stateZp + clamp(mbqm(acc, m1, sh1), stateMin, stateMax)'),
      ]),
    ]),
    // Time: one dot product per filter over its memory.
    For('b', '0', 'batches', [
      For('f', '0', 'filters', [
        Let('sBase', '(b * filters + f) * memory'),
        Val('acc', '0'),
        For('j', '0', 'memory', [Set('acc', 'acc + wt[f * memory + j] * (state[sBase + j] - stateZp)', 'mac')]),
        Store('scratch', 'b * filters + f', 'acc'),
      ]),
    ]),
    // Bias, then reduce each unit's `rank` filters.
    For('b', '0', 'batches', [For('u', '0', 'units', [Store('scratchOut', 'b * units + u', 'bias[u]')])]),
    For('b', '0', 'batches', [
      For('u', '0', 'units', [
        Val('acc', 'scratchOut[b * units + u]'),
        For('j', '0', 'rank', [Set('acc', 'acc + scratch[b * filters + u * rank + j]')]),
        Store('scratchOut', 'b * units + u', 'acc'),
      ]),
    ]),
    For('i', '0', 'batches * units', [Store('output', 'i', 'clamp(mbqm(scratchOut[i], m2, sh2) + outZp, -128, 127)')]),
  ],
};
