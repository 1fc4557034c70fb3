// FullyConnected, int8: per-tensor filters as TFLM reference_integer_ops::FullyConnected (filter
// offset applied; multiplier from the float32 product in_s*w_s) and per-channel filters as
// FullyConnectedPerChannel (filter zero point ignored). Same loop order for both. With a constant
// filter the input offset is hoisted: sum(in * (f + fo)) + inputOffset * sum(f + fo), exact in
// wrapping int32, same loads in the same order.
import { For, Let, Val } from '../nest.ts';
import type { KernelSpec } from '../spec.ts';
import { filterRunSums } from './conv2d.ts';
import { activationConstraint, constraint, count, dim, multiplierArrays, rank, scaleOf, zeroPointOf } from './common.ts';
import {
  biasConstraint, filterOpPrepared, filterScalesConstraint, hoistedDot, int8TypesConstraint, outputQuantScalars, outputStage,
} from './conv-common.ts';
import { OP_DATA_FULLY_CONNECTED, TFLITE_FULLY_CONNECTED_PARAMS, perChannelArrays, stock } from '../tflm-memory.ts';

const perChannel = (scales: readonly number[] | undefined): boolean => (scales?.length ?? 0) > 1;

export const fullyConnectedSpec: KernelSpec<'fullyConnected'> = {
  kind: 'fullyConnected',
  tflmPersistent: {
    ...stock(TFLITE_FULLY_CONNECTED_PARAMS, OP_DATA_FULLY_CONNECTED),
    // CalculateOpDataFullyConnected allocates the arrays only for a per-channel filter.
    prepareBuffers: (c) => { const n = c.input(1)?.quant?.scale.length ?? 1; return n > 1 ? perChannelArrays(n) : []; },
  },
  constraints: [
    int8TypesConstraint('fullyConnected'),
    constraint('fullyConnected.filter-rank', 'filter must have rank 2 [Cout, K]', (c) => rank(c.input(1)) === 2),
    constraint('fullyConnected.weights-format', 'only the default weights format is supported', (c) => c.op.options.weightsFormat === 'default'),
    constraint('fullyConnected.shapes', 'input size must be a multiple of K and output = batches x Cout', (c) => {
      const k = dim(c.input(1), 1);
      const outD = dim(c.output(0), -1);
      return k > 0 && count(c.input(0)) % k === 0 && outD === dim(c.input(1), 0) && count(c.output(0)) === (count(c.input(0)) / k) * outD;
    }),
    filterScalesConstraint('fullyConnected', (c) => c.input(1)),
    biasConstraint('fullyConnected', (c) => c.input(2), (c) => dim(c.input(1), 0)),
    constraint('fullyConnected.bias-scale', 'per-tensor bias scale must be within 2% (of the output scale) of input scale x filter scale', (c) => {
      const b = c.input(2);
      if (b === null || b.quant === null || perChannel(c.input(1)?.quant?.scale)) return true;
      const product = Math.fround(scaleOf(c.input(0)) * scaleOf(c.input(1)));
      return Math.abs(product - scaleOf(b)) / scaleOf(c.output(0)) <= 0.02;
    }),
    activationConstraint('fullyConnected', (c) => c.op.options.activation),
  ],
  prepare(c) {
    const input = c.input(0)!;
    const filter = c.input(1)!;
    const bias = c.input(2);
    const output = c.output(0);
    const [outD, accum] = filter.shape as [number, number];
    const inS = scaleOf(input);
    const outS = scaleOf(output);
    const pc = perChannel(filter.quant?.scale);
    const ws = filter.quant?.scale ?? [];
    const multipliers = pc
      ? multiplierArrays(outD, (ch) => (inS * Math.fround(ws[ch] ?? 0)) / outS)
      : multiplierArrays(outD, () => Math.fround(inS * scaleOf(filter)) / outS);
    const filterOffset = pc ? 0 : -zeroPointOf(filter);
    const fsum = filterRunSums(filter, outD, accum, filterOffset);
    const { inputOffset, ...quant } = outputQuantScalars(input, output, c.op.options.activation);
    return filterOpPrepared(bias, { batches: count(output) / outD, outD, accum, inputOffset, filterOffset, ...quant }, multipliers, fsum);
  },
  body: [
    For('b', '0', 'batches', [
      Let('inBase', 'b * accum'),
      For('oc', '0', 'outD', [
        Let('fBase', 'oc * accum'),
        Val('acc', '0'),
        hoistedDot('d', 'accum', '(filter[fBase + d] + filterOffset)', 'oc'),
        ...outputStage('oc + outD * b'),
      ]),
    ]),
  ],
};
