// PRelu, int8: TFLM prelu_common.cc CalculatePreluParams (QuantizeMultiplier of double(in_s) /
// double(out_s) and double(in_s) * double(alpha_s) / double(out_s)) and reference_ops::
// BroadcastPrelu4DSlow: output-ordered loops (flat when the shapes agree, as broadcast.ts), the
// identity multiplier for x >= 0, the alpha multiplier of x * alpha otherwise. TFLM reads alpha only
// for negative inputs; here it is read for every element (a superset of TFLM's reads: same bytes,
// and a constant alpha, as converters write it, is never traced).
import { Store, Val } from '../nest.ts';
import { quantizeMultiplier } from '../quant.ts';
import type { KernelSpec } from '../spec.ts';
import { binaryNest, broadcastParams, broadcastsTo } from './broadcast.ts';
import { constraint, isInt8Quantized, rank, scaleOf, zeroPointOf } from './common.ts';
import { PRELU_PARAMS, stock } from '../tflm-memory.ts';

export const preluSpec: KernelSpec<'prelu'> = {
  kind: 'prelu',
  tflmPersistent: stock(null, PRELU_PARAMS),
  constraints: [
    constraint('prelu.types', 'input, alpha and output must be int8 quantized tensors', (c) =>
      isInt8Quantized(c.input(0)) && isInt8Quantized(c.input(1)) && isInt8Quantized(c.output(0))),
    constraint('prelu.broadcast', 'input and alpha must have rank <= 4 and broadcast to the output shape', (c) =>
      rank(c.input(0)) <= 4 && rank(c.input(1)) <= 4 && rank(c.output(0)) <= 4 && broadcastsTo(c.input(0), c.input(1), c.output(0))),
    constraint('prelu.scales', 'input, alpha and output scales must be positive and finite', (c) =>
      [scaleOf(c.input(0)), scaleOf(c.input(1)), scaleOf(c.output(0))].every((s) => s > 0 && Number.isFinite(s))),
  ],
  prepare(c) {
    const inS = scaleOf(c.input(0));
    const outS = scaleOf(c.output(0));
    const q1 = quantizeMultiplier(inS / outS);
    const q2 = quantizeMultiplier((inS * scaleOf(c.input(1))) / outS);
    const bc = broadcastParams(c.input(0)!, c.input(1)!, c.output(0));
    return {
      flags: bc.flags,
      scalars: {
        ...bc.scalars, inOffset: -zeroPointOf(c.input(0)), alphaOffset: -zeroPointOf(c.input(1)), outOffset: zeroPointOf(c.output(0)),
        mult1: q1.multiplier, shift1: q1.shift, mult2: q2.multiplier, shift2: q2.shift,
      },
      arrays: {},
      buffers: { input1: { kind: 'input', slot: 0 }, input2: { kind: 'input', slot: 1 }, output: { kind: 'output', slot: 0 } },
      scratch: [],
    };
  },
  body: (p) =>
    binaryNest(p.flags ?? {}, (a, b, o) => [
      Val('x', `inOffset + input1[${a}]`),
      Val('al', `alphaOffset + input2[${b}]`),
      Store('output', o, 'clamp(outOffset + select(x >= 0, mbqm(x, mult1, shift1), mbqm(x * al, mult2, shift2)), -128, 127)'),
    ]),
};
