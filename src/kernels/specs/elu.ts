// Elu, int8: TFLM elu.cc, whose int8 path is a 256-entry lookup table built in Prepare
// (PopulateLookupTable: float32 dequantize, expf(x) - 1 for x < 0, times float32 1/out_s,
// roundf, + zero point, clamp) and read once per element (EvalUsingLookupTable). The table is
// built here with the same float32 roundings (Math.fround after every float operation).
import { For, Store } from '../nest.ts';
import { roundHalfAway } from '../quant.ts';
import type { KernelSpec } from '../spec.ts';
import { constraint, count, isInt8Quantized, scaleOf, zeroPointOf } from './common.ts';
import { OP_DATA_ELU, stock } from '../tflm-memory.ts';

export const eluSpec: KernelSpec<'elu'> = {
  kind: 'elu',
  tflmPersistent: stock(null, OP_DATA_ELU),
  constraints: [
    constraint('elu.types', 'input and output must be int8 quantized with the same element count', (c) =>
      isInt8Quantized(c.input(0)) && isInt8Quantized(c.output(0)) && count(c.input(0)) === count(c.output(0))),
    constraint('elu.scales', 'input and output scales must be positive and finite', (c) =>
      [scaleOf(c.input(0)), scaleOf(c.output(0))].every((s) => s > 0 && Number.isFinite(s))),
  ],
  prepare(c) {
    const f = Math.fround;
    const inS = scaleOf(c.input(0));
    const inZp = zeroPointOf(c.input(0));
    const outZp = zeroPointOf(c.output(0));
    const inverse = f(1 / scaleOf(c.output(0)));
    const lut = new Int32Array(256);
    for (let v = -128; v <= 127; v++) {
      const x = f(inS * f(v - inZp));
      const y = x < 0 ? f(f(Math.exp(x)) - 1) : x;
      const q = Math.trunc(f(roundHalfAway(f(y * inverse)) + outZp));
      lut[v + 128] = Math.max(-128, Math.min(127, q));
    }
    return { scalars: { n: count(c.input(0)) }, arrays: { lut }, buffers: { input: { kind: 'input', slot: 0 }, output: { kind: 'output', slot: 0 } }, scratch: [] };
  },
  body: [For('i', '0', 'n', [Store('output', 'i', 'lut[input[i] + 128]')])],
};
