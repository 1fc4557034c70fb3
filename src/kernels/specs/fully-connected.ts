// FullyConnected, int8: per-tensor filters as TFLM reference_integer_ops::FullyConnected (filter
// offset applied; multiplier from the float32 product in_s*w_s) and per-channel filters as
// FullyConnectedPerChannel (filter zero point ignored). Same loop order for both. With a constant
// filter the input offset is hoisted: sum(in * (f + fo)) + inputOffset * sum(f + fo), exact in
// wrapping int32, same loads in the same order.
import { For, If, Let, Set, Store, Val } from '../nest.ts';
import { activationRange } from '../quant.ts';
import type { KernelSpec } from '../spec.ts';
import { filterRunSums } from './conv2d.ts';
import { constraint, count, dim, fusableActivation, isInt8Quantized, multiplierArrays, rank, scaleOf, zeroPointOf } from './common.ts';

const perChannel = (scales: readonly number[] | undefined): boolean => (scales?.length ?? 0) > 1;

export const fullyConnectedSpec: KernelSpec<'fullyConnected'> = {
  kind: 'fullyConnected',
  constraints: [
    constraint('fullyConnected.types', 'input, filter and output must be int8 quantized tensors', (c) =>
      isInt8Quantized(c.input(0)) && isInt8Quantized(c.input(1)) && isInt8Quantized(c.output(0))),
    constraint('fullyConnected.filter-rank', 'filter must have rank 2 [Cout, K]', (c) => rank(c.input(1)) === 2),
    constraint('fullyConnected.weights-format', 'only the default weights format is supported', (c) => c.op.options.weightsFormat === 'default'),
    constraint('fullyConnected.shapes', 'input size must be a multiple of K and output = batches x Cout', (c) => {
      const k = dim(c.input(1), 1);
      const outD = dim(c.output(0), -1);
      return k > 0 && count(c.input(0)) % k === 0 && outD === dim(c.input(1), 0) && count(c.output(0)) === (count(c.input(0)) / k) * outD;
    }),
    constraint('fullyConnected.filter-scales', 'filter needs one scale per output channel or one per tensor', (c) => {
      const n = c.input(1)?.quant?.scale.length ?? 0;
      return n === 1 || n === dim(c.input(1), 0);
    }),
    constraint('fullyConnected.bias', 'bias, if present, must be int32 with one element per output channel', (c) => {
      const b = c.input(2);
      return b === null || (b.dtype === 'int32' && count(b) === dim(c.input(1), 0));
    }),
    constraint('fullyConnected.bias-scale', 'per-tensor bias scale must be within 2% (of the output scale) of input scale x filter scale', (c) => {
      const b = c.input(2);
      if (b === null || b.quant === null || perChannel(c.input(1)?.quant?.scale)) return true;
      const product = Math.fround(scaleOf(c.input(0)) * scaleOf(c.input(1)));
      return Math.abs(product - scaleOf(b)) / scaleOf(c.output(0)) <= 0.02;
    }),
    constraint('fullyConnected.activation', 'fused activation must be none, relu, relu6 or reluN1To1', (c) => fusableActivation(c.op.options.activation)),
  ],
  prepare(c) {
    const input = c.input(0)!;
    const filter = c.input(1)!;
    const bias = c.input(2);
    const output = c.output(0);
    const [outD, accum] = filter.shape as [number, number];
    const act = activationRange(c.op.options.activation, scaleOf(output), zeroPointOf(output));
    const inS = scaleOf(input);
    const outS = scaleOf(output);
    const pc = perChannel(filter.quant?.scale);
    const ws = filter.quant?.scale ?? [];
    const { mult, shift } = pc
      ? multiplierArrays(outD, (ch) => (inS * Math.fround(ws[ch] ?? 0)) / outS)
      : multiplierArrays(outD, () => Math.fround(inS * scaleOf(filter)) / outS);
    const filterOffset = pc ? 0 : -zeroPointOf(filter);
    const fsum = filterRunSums(filter, outD, accum, filterOffset);
    return {
      flags: { hasBias: bias ? 1 : 0, hoist: fsum ? 1 : 0 },
      scalars: {
        batches: count(output) / outD, outD, accum,
        inputOffset: -zeroPointOf(input), filterOffset,
        outputOffset: zeroPointOf(output), actMin: act.min, actMax: act.max,
      },
      arrays: { mult, shift, ...(fsum ? { fsum } : {}) },
      buffers: {
        input: { kind: 'input', slot: 0 },
        filter: { kind: 'input', slot: 1 },
        ...(bias ? { bias: { kind: 'input', slot: 2 } as const } : {}),
        output: { kind: 'output', slot: 0 },
      },
      scratch: [],
    };
  },
  body: [
    For('b', '0', 'batches', [
      Let('inBase', 'b * accum'),
      For('oc', '0', 'outD', [
        Let('fBase', 'oc * accum'),
        Val('acc', '0'),
        If('hoist', [
          For('d', '0', 'accum', [Set('acc', 'acc + input[inBase + d] * (filter[fBase + d] + filterOffset)', 'mac')]),
          Set('acc', 'acc + inputOffset * fsum[oc]'),
        ], [
          For('d', '0', 'accum', [Set('acc', 'acc + (input[inBase + d] + inputOffset) * (filter[fBase + d] + filterOffset)', 'mac')]),
        ]),
        If('hasBias', [Set('acc', 'acc + bias[oc]')]),
        Set('acc', 'mbqm(acc, mult[oc], shift[oc]) + outputOffset'),
        Store('output', 'oc + outD * b', 'clamp(acc, actMin, actMax)'),
      ]),
    ]),
  ],
};
