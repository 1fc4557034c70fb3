// FDT Fan-In partition + Merge (fused depthwise tiling paper §3, Fig. 2), custom op
// MergeAccumulators: the Conv2D / FullyConnected of TFLM reference_integer_ops (same loop order
// and tap arithmetic as conv2d.ts / fully-connected.ts) over one input-channel partition, added to
// an int32 accumulator input. An int32 output stores the raw partial sum; an int8 output adds the
// bias, requantizes with the untiled op's multipliers and clamps once. Int32 addition wraps, so the
// chained partial sums equal the untiled accumulator bit for bit.
import type { Tensor } from '../../ir/index.ts';
import { For, If, Let, Set, Store, Val } from '../nest.ts';
import type { Nest } from '../nest.ts';
import { activationRange } from '../quant.ts';
import type { KernelSpec, Prepared } from '../spec.ts';
import { activationConstraint, constraint, convMultipliers, count, dim, isInt8Quantized, multiplierArrays, rank, scaleOf, zeroPointOf } from './common.ts';
import {
  addBias, biasConstraint, convGeometry, convOutputLoops, convSpatialShapeHolds, convTaps, filterOpBuffers, filterScalesConstraint,
  requantizeStore, strideConstraint,
} from './conv-common.ts';
import { mcusimOnly } from '../tflm-memory.ts';

const perChannel = (t: Tensor | null): boolean => (t?.quant?.scale.length ?? 0) > 1;
const isConv = (p: Prepared): boolean => (p.flags?.conv ?? 0) === 1;

/** acc += taps of one output element (conv). */
const CONV_TAPS: Nest = convTaps([
  Let('inBase', '((b * inH + inY) * inW + inX) * inD'),
  Let('fBase', '((oc * fH + fy) * fW + fx) * inD'),
  For('ic', '0', 'inD', [Set('acc', 'acc + (input[inBase + ic] + inputOffset) * filter[fBase + ic]', 'mac')]),
]);

/** Bias, then either the raw int32 store or requantize + clamp to int8. */
function finish(outIndex: string): Nest {
  return [
    addBias,
    If('final', requantizeStore(outIndex), [Store('output', outIndex, 'acc')]),
  ];
}

const CONV_BODY: Nest = convOutputLoops([
  Val('acc', '0'),
  If('hasAcc', [Set('acc', 'accIn[outBase + oc]')]),
  ...CONV_TAPS,
  ...finish('outBase + oc'),
]);

const FC_BODY: Nest = [
  For('b', '0', 'batches', [
    Let('inBase', 'b * accum'),
    For('oc', '0', 'outD', [
      Let('fBase', 'oc * accum'),
      Val('acc', '0'),
      If('hasAcc', [Set('acc', 'accIn[oc + outD * b]')]),
      For('d', '0', 'accum', [Set('acc', 'acc + (input[inBase + d] + inputOffset) * (filter[fBase + d] + filterOffset)', 'mac')]),
      ...finish('oc + outD * b'),
    ]),
  ]),
];

export const mergeSpec: KernelSpec<'merge'> = {
  kind: 'merge',
  tflmPersistent: mcusimOnly('custom op MergeAccumulators (FDT): not a TFLM builtin'),
  constraints: [
    constraint('merge.types', 'input and filter must be int8 quantized; output int8 quantized or int32 (raw partial sums)', (c) =>
      isInt8Quantized(c.input(0)) && isInt8Quantized(c.input(1)) && (isInt8Quantized(c.output(0)) || c.output(0).dtype === 'int32')),
    constraint('merge.accumulator', 'the accumulator input, if present, must be int32 with the output shape', (c) => {
      const a = c.input(3);
      return a === null || (a.dtype === 'int32' && a.shape.length === c.output(0).shape.length && a.shape.every((d, i) => d === c.output(0).shape[i]));
    }),
    constraint('merge.ranks', 'conv2d base: input, filter and output rank 4; fullyConnected base: filter rank 2', (c) =>
      c.op.options.base === 'conv2d' ? rank(c.input(0)) === 4 && rank(c.input(1)) === 4 && rank(c.output(0)) === 4 : rank(c.input(1)) === 2),
    constraint('merge.filter-depth', 'filter depth must equal the partition input depth (conv2d) or divide the input (fullyConnected)', (c) =>
      c.op.options.base === 'conv2d' ? dim(c.input(1), 3) === dim(c.input(0), 3) : dim(c.input(1), 1) > 0 && count(c.input(0)) % dim(c.input(1), 1) === 0),
    filterScalesConstraint('merge', (c) => c.input(1)),
    biasConstraint('merge', (c) => c.input(2), (c) => dim(c.input(1), 0)),
    constraint('merge.output-shape', 'output shape must be that of the base op on this partition', (c) => {
      const o = c.op.options;
      const i = c.input(0);
      const f = c.input(1);
      const y = c.output(0);
      if (o.base === 'fullyConnected') return count(y) === (count(i) / dim(f, 1)) * dim(f, 0) && dim(y, -1) === dim(f, 0);
      return convSpatialShapeHolds(o, i, f, y) && dim(y, 3) === dim(f, 0);
    }),
    strideConstraint('merge', (c) => c.op.options),
    activationConstraint('merge', (c) => c.op.options.activation),
  ],
  prepare(c) {
    const o = c.op.options;
    const input = c.input(0)!;
    const filter = c.input(1)!;
    const bias = c.input(2);
    const acc = c.input(3);
    const output = c.output(0);
    const final = output.dtype === 'int8';
    const outD = dim(filter, 0);
    const act = final ? activationRange(o.activation, scaleOf(output), zeroPointOf(output)) : { min: 0, max: 0 };
    const fc = o.base === 'fullyConnected';
    const pc = perChannel(filter);
    const ws = filter.quant?.scale ?? [];
    const inS = scaleOf(input);
    const outS = scaleOf(output);
    // The untiled op's multipliers: the partition has the same input scale and per-output-channel filter scales.
    const none = { mult: new Int32Array(outD), shift: new Int32Array(outD) };
    const { mult, shift } = !final ? none : !fc ? convMultipliers(input, filter, output, outD)
      : pc ? multiplierArrays(outD, (ch) => (inS * Math.fround(ws[ch] ?? 0)) / outS)
        : multiplierArrays(outD, () => Math.fround(inS * scaleOf(filter)) / outS);
    const common = {
      inputOffset: -zeroPointOf(input), outputOffset: final ? zeroPointOf(output) : 0, actMin: act.min, actMax: act.max, outD,
    };
    const scalars = fc
      ? { ...common, batches: count(output) / outD, accum: dim(filter, 1), filterOffset: pc ? 0 : -zeroPointOf(filter) }
      : (() => {
        const [n, inH, inW, inD] = input.shape as [number, number, number, number];
        const [, fH, fW] = filter.shape as [number, number, number, number];
        const [, outH, outW] = output.shape as [number, number, number, number];
        return {
          ...common, batches: n, inH, inW, inD, outH, outW, fH, fW, ...convGeometry(o, inH, inW, fH, fW, outH, outW),
        };
      })();
    return {
      flags: { conv: fc ? 0 : 1, hasBias: bias ? 1 : 0, hasAcc: acc ? 1 : 0, final: final ? 1 : 0 },
      scalars,
      arrays: { mult, shift },
      buffers: filterOpBuffers(bias !== null, acc ? { accIn: { kind: 'input', slot: 3 } } : {}),
      scratch: [],
    };
  },
  body: (p) => (isConv(p) ? CONV_BODY : FC_BODY),
};
