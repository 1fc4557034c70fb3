// TransposeConv, int8 with per-channel (or per-tensor, broadcast) int8 filters [Cout, KH, KW, Cin]
// and an optional int32 bias: TFLM micro transpose_conv.cc Prepare (one int32 scratch of output
// elements x 4 bytes; padding of a forward conv whose input is this op's output; the fused
// activation's quantized range, as the oracle's TFLM applies it) and the loop order of reference_integer_ops::TransposeConv: zero the
// scratch, scatter-accumulate every input x filter tap into it, then requantize into the output.
// Inputs: [output_shape (never read), filter, input, bias?]. Option scratchInt16 (TinySeg §5.3,
// set by the optimizer only where |every partial sum| <= 32767 is proven) makes the scratch int16:
// the same loops and values, half the bytes. Option scratchFree (mcusim, beyond TinySeg) gathers
// instead: each output element sums the same input x filter products in one int32 accumulator, so
// there is no scratch and the wrapped int32 sum (addition is associative mod 2^32) is identical.
import type { Nest } from '../nest.ts';
import { For, If, Let, Set, Store, Val } from '../nest.ts';
import type { KernelSpec } from '../spec.ts';
import { outputLoops, outputQuantScalars, outputStage } from './conv-common.ts';
import { activationConstraint, constraint, convMultipliers, count, dim, isInt8Quantized, rank } from './common.ts';
import { OP_DATA_TRANSPOSE_CONV, TFLITE_TRANSPOSE_CONV_PARAMS, perChannelArrays, stock } from '../tflm-memory.ts';

const FILTER = 1;
const INPUT = 2;
const BIAS = 3;

/** TFLM ComputePaddingHeightWidth (dilation 1) along one axis, with C's truncating division. */
function transposePadding(padding: 'same' | 'valid', outSize: number, filter: number, stride: number): number {
  const convOut = Math.trunc(padding === 'same' ? (outSize + stride - 1) / stride : (outSize + stride - filter) / stride);
  const total = (convOut - 1) * stride + filter - outSize;
  return total > 0 ? Math.trunc(total / 2) : 0;
}

/** Every output element (b, outY, outX, oc), output-ordered, with its flat base `oBase`. */
const overOutputs = (perOc: Nest): Nest => outputLoops(perOc, 'oBase');

/** reference_integer_ops::TransposeConv: zero the scratch, scatter every tap, requantize. */
const SCATTER: Nest = [
  For('i', '0', 'outCount', [Store('scratch', 'i', '0')]),
  For('b', '0', 'batches', [
    For('inY', '0', 'inH', [
      Let('outYOrigin', 'inY * strideH - padH'),
      For('inX', '0', 'inW', [
        Let('outXOrigin', 'inX * strideW - padW'),
        Let('inBase', '((b * inH + inY) * inW + inX) * inD'),
        For('ic', '0', 'inD', [
          For('fy', '0', 'fH', [
            Let('outY', 'outYOrigin + fy'),
            For('fx', '0', 'fW', [
              Let('outX', 'outXOrigin + fx'),
              // The bounds test does not depend on the output channel: hoisted, same accesses.
              If('outX >= 0 && outX < outW && outY >= 0 && outY < outH', [
                Let('oBase', '((b * outH + outY) * outW + outX) * outD'),
                Let('fBase', '(fy * fW + fx) * inD + ic'),
                For('oc', '0', 'outD', [
                  Val('prod', '(input[inBase + ic] + inputOffset) * filter[oc * fOcStride + fBase]', 'mac'),
                  Store('scratch', 'oBase + oc', 'scratch[oBase + oc] + prod'),
                ]),
              ]),
            ]),
          ]),
        ]),
      ]),
    ]),
  ]),
  ...overOutputs([Val('acc', 'scratch[oBase + oc]'), ...outputStage('oBase + oc')]),
];

/**
 * Scratch-free gather form: output (outY, outX) receives filter tap fy from input row
 * inY = (outY + padH - fy) / strideH exactly when that division is exact and in range (the
 * scatter's outY = inY * strideH - padH + fy, solved for inY); likewise for columns.
 */
const GATHER: Nest = overOutputs([
  Val('acc', '0'),
  For('fy', '0', 'fH', [
    Let('ty', 'outY + padH - fy'),
    If('ty >= 0 && ty % strideH == 0 && ty / strideH < inH', [
      Let('inY', 'ty / strideH'),
      For('fx', '0', 'fW', [
        Let('tx', 'outX + padW - fx'),
        If('tx >= 0 && tx % strideW == 0 && tx / strideW < inW', [
          Let('inBase', '((b * inH + inY) * inW + tx / strideW) * inD'),
          Let('fBase', 'oc * fOcStride + (fy * fW + fx) * inD'),
          For('ic', '0', 'inD', [Set('acc', 'acc + (input[inBase + ic] + inputOffset) * filter[fBase + ic]', 'mac')]),
        ]),
      ]),
    ]),
  ]),
  ...outputStage('oBase + oc'),
]);

export const transposeConvSpec: KernelSpec<'transposeConv'> = {
  kind: 'transposeConv',
  tflmPersistent: {
    ...stock(TFLITE_TRANSPOSE_CONV_PARAMS, OP_DATA_TRANSPOSE_CONV),
    prepareBuffers: (c) => perChannelArrays(dim(c.input(1), 0)),
    // Stock TFLM requests the int32 (int8 input) accumulator scratch whatever mcusim's options say.
    scratchRequests: () => 1,
    mcusimOptions: ['scratchInt16', 'scratchFree'],
  },
  requestsScratch: true,
  constraints: [
    constraint('transposeConv.types', 'input, filter and output must be int8 quantized tensors', (c) =>
      isInt8Quantized(c.input(INPUT)) && isInt8Quantized(c.input(FILTER)) && isInt8Quantized(c.output(0))),
    constraint('transposeConv.rank', 'input, filter and output must have rank 4', (c) =>
      rank(c.input(INPUT)) === 4 && rank(c.input(FILTER)) === 4 && rank(c.output(0)) === 4),
    constraint('transposeConv.shape', 'filter must be [Cout, KH, KW, Cin] with Cin the input depth, Cout the output depth, and batches equal', (c) =>
      dim(c.input(FILTER), 3) === dim(c.input(INPUT), 3) && dim(c.input(FILTER), 0) === dim(c.output(0), 3) &&
      dim(c.input(INPUT), 0) === dim(c.output(0), 0)),
    constraint('transposeConv.filter-scales', 'filter needs one scale per output channel or one per tensor, and as many zero points as scales', (c) => {
      const q = c.input(FILTER)?.quant;
      const n = q?.scale.length ?? 0;
      return (n === 1 || n === dim(c.input(FILTER), 0)) && q?.zeroPoint.length === n;
    }),
    constraint('transposeConv.bias', 'bias, if present, must be int32 with one element per output channel', (c) => {
      const b = c.input(BIAS);
      return b === null || (b.dtype === 'int32' && count(b) === dim(c.input(FILTER), 0));
    }),
    constraint('transposeConv.stride', 'strides must be >= 1', (c) => c.op.options.strideH >= 1 && c.op.options.strideW >= 1),
    activationConstraint('transposeConv', (c) => c.op.options.activation),
  ],
  prepare(c) {
    const o = c.op.options;
    const input = c.input(INPUT)!;
    const filter = c.input(FILTER)!;
    const bias = c.input(BIAS);
    const output = c.output(0);
    const [n, inH, inW, inD] = input.shape as [number, number, number, number];
    const [outD, fH, fW] = filter.shape as [number, number, number, number];
    const [, outH, outW] = output.shape as [number, number, number, number];
    const { mult, shift } = convMultipliers(input, filter, output, outD);
    const outCount = count(output);
    const s16 = o.scratchInt16 === true;
    const gather = o.scratchFree === true;
    return {
      flags: { hasBias: bias ? 1 : 0, gather: gather ? 1 : 0 },
      scalars: {
        batches: n, inH, inW, inD, outH, outW, outD, fH, fW, outCount, fOcStride: fH * fW * inD,
        strideH: o.strideH, strideW: o.strideW,
        padH: transposePadding(o.padding, outH, fH, o.strideH),
        padW: transposePadding(o.padding, outW, fW, o.strideW),
        ...outputQuantScalars(input, output, o.activation),
      },
      arrays: { mult, shift },
      buffers: {
        input: { kind: 'input', slot: INPUT },
        filter: { kind: 'input', slot: FILTER },
        ...(bias ? { bias: { kind: 'input', slot: BIAS } as const } : {}),
        output: { kind: 'output', slot: 0 },
        ...(gather ? {} : { scratch: { kind: 'scratch', index: 0 } as const }),
      },
      scratch: gather ? [] : [{ name: 'scratch', dtype: s16 ? 'int16' : 'int32', sizeBytes: outCount * (s16 ? 2 : 4) }],
    };
  },
  body: (p) => (p.flags?.gather === 1 ? GATHER : SCATTER),
};
