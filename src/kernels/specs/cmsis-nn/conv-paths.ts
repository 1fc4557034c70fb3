// The loop nests of CMSIS-NN 4ab83cc3 arm_convolve_wrapper_s8's paths on cores without MVE
// (ARM_MATH_DSP and plain C walk memory alike): arm_convolve_s8 (im2col of two output pixels into
// int16 columns, then arm_nn_mat_mult_kernel_s8_s16 writes both), arm_convolve_1x1_s8_fast and
// arm_convolve_1x1_s8 (arm_nn_mat_mult_nt_t_s8 straight on the input: output-channel pairs outer,
// row pairs inner, so every channel pair re-reads the whole input). arm_convolve_1_x_n_s8 is
// arm_convolve_s8 off MVE. Values equal ConvPerChannel's: int32 sums wrap, requantize is mbqm.
import type { Nest, Stmt } from '../../nest.ts';
import { For, If, Let, Set, Store, Val } from '../../nest.ts';

/** clamp(requantize(acc) + output offset) stored at `index`, channel `oc`. */
export function storeRequantized(index: string, acc: string, oc: string): Stmt {
  return Store('output', index, `clamp(mbqm(${acc}, mult[${oc}], shift[${oc}]) + outputOffset, actMin, actMax)`);
}

/** Val `acc` = bias[oc] (or 0 without a bias), as the CMSIS-NN kernels load their accumulators. */
export function biasInit(acc: string, oc: string): Nest {
  return [Val(acc, '0'), If('hasBias', [Set(acc, `${acc} + bias[${oc}]`)])];
}

/**
 * Accumulators as arm_nn_mat_mult_nt_t_s8 starts them: bias + inputOffset * sum(filter row) (the
 * lhs offset contribution) under the `hoist` flag, bias alone otherwise (then the dot adds offsets).
 */
function ntInit(acc: string, oc: string): Nest {
  return [...biasInit(acc, oc), If('hoist', [Set(acc, `${acc} + inputOffset * fsum[${oc}]`)])];
}

/** acc += x * w (hoisted offset) or (x + inputOffset) * w. */
function ntMac(acc: string, x: string, w: string): Stmt {
  return If('hoist', [Set(acc, `${acc} + ${x} * ${w}`, 'mac')], [Set(acc, `${acc} + (${x} + inputOffset) * ${w}`, 'mac')]);
}

/**
 * arm_nn_mat_mult_nt_t_s8 (DSP / plain C order) over `mmRows` input rows `lhsStride` apart, once
 * per (mb, my) of `mmOuterB` x `mmOuterY` calls (input / output bases advance by mmInB, mmInY,
 * mmOutB, mmOutY): arm_convolve_1x1_s8_fast makes one call over all N*H*W rows, arm_convolve_1x1_s8
 * one per output row with the stride folded into lhsStride. Rows of the filter are `inD` long.
 */
export const NT_T_ROWS: Nest = [
  For('mb', '0', 'mmOuterB', [
    For('my', '0', 'mmOuterY', [
      Let('inRow0', 'mb * mmInB + my * mmInY'),
      Let('outRow0', 'mb * mmOutB + my * mmOutY'),
      For('ocp', '0', 'outD / 2', [
        Let('oc0', 'ocp * 2'),
        Let('oc1', 'oc0 + 1'),
        Let('f0', 'oc0 * inD'),
        Let('f1', 'f0 + inD'),
        For('rp', '0', 'mmRows / 2', [
          Let('i0', 'inRow0 + rp * 2 * lhsStride'),
          Let('i1', 'i0 + lhsStride'),
          Let('o0', 'outRow0 + rp * 2 * outD'),
          Let('o1', 'o0 + outD'),
          ...ntInit('a00', 'oc0'), ...ntInit('a01', 'oc1'), ...ntInit('a10', 'oc0'), ...ntInit('a11', 'oc1'),
          For('k', '0', 'inD', [
            Val('w0', 'filter[f0 + k]'),
            Val('w1', 'filter[f1 + k]'),
            Val('x0', 'input[i0 + k]'),
            ntMac('a00', 'x0', 'w0'), ntMac('a01', 'x0', 'w1'),
            Val('x1', 'input[i1 + k]'),
            ntMac('a10', 'x1', 'w0'), ntMac('a11', 'x1', 'w1'),
          ]),
          storeRequantized('o0 + oc0', 'a00', 'oc0'),
          storeRequantized('o0 + oc1', 'a01', 'oc1'),
          storeRequantized('o1 + oc0', 'a10', 'oc0'),
          storeRequantized('o1 + oc1', 'a11', 'oc1'),
        ]),
        If('mmRows % 2 == 1', [
          Let('i0', 'inRow0 + (mmRows - 1) * lhsStride'),
          Let('o0', 'outRow0 + (mmRows - 1) * outD'),
          ...ntInit('a00', 'oc0'), ...ntInit('a01', 'oc1'),
          For('k', '0', 'inD', [
            Val('w0', 'filter[f0 + k]'),
            Val('w1', 'filter[f1 + k]'),
            Val('x0', 'input[i0 + k]'),
            ntMac('a00', 'x0', 'w0'), ntMac('a01', 'x0', 'w1'),
          ]),
          storeRequantized('o0 + oc0', 'a00', 'oc0'),
          storeRequantized('o0 + oc1', 'a01', 'oc1'),
        ]),
      ]),
      // The odd last output channel: one pass over every row, offset added per element.
      If('outD % 2 == 1', [
        Let('ocL', 'outD - 1'),
        Let('fL', 'ocL * inD'),
        For('r', '0', 'mmRows', [
          Let('i0', 'inRow0 + r * lhsStride'),
          ...biasInit('acc', 'ocL'),
          For('k', '0', 'inD', [Set('acc', 'acc + (input[i0 + k] + inputOffset) * filter[fL + k]', 'mac')]),
          storeRequantized('outRow0 + r * outD + ocL', 'acc', 'ocL'),
        ]),
      ]),
    ]),
  ]),
];

/**
 * arm_nn_mat_mult_kernel_s8_s16 on the two int16 im2col columns (column 1 at `aligned`): channel
 * pairs, each writing pixel 0 and pixel 1 (output bases o0, o1), then the odd last channel.
 */
const MAT_MULT_2: Nest = [
  For('ocp', '0', 'outD / 2', [
    Let('oc0', 'ocp * 2'),
    Let('oc1', 'oc0 + 1'),
    Let('f0', 'oc0 * rhsCols'),
    Let('f1', 'f0 + rhsCols'),
    ...biasInit('a00', 'oc0'), ...biasInit('a01', 'oc0'), ...biasInit('a10', 'oc1'), ...biasInit('a11', 'oc1'),
    For('k', '0', 'rhsCols', [
      Val('b0', 'scratch[k]'),
      Val('b1', 'scratch[aligned + k]'),
      Val('w0', 'filter[f0 + k]'),
      Val('w1', 'filter[f1 + k]'),
      Set('a00', 'a00 + w0 * b0', 'mac'),
      Set('a01', 'a01 + w0 * b1', 'mac'),
      Set('a10', 'a10 + w1 * b0', 'mac'),
      Set('a11', 'a11 + w1 * b1', 'mac'),
    ]),
    storeRequantized('o0 + oc0', 'a00', 'oc0'),
    storeRequantized('o1 + oc0', 'a01', 'oc0'),
    storeRequantized('o0 + oc1', 'a10', 'oc1'),
    storeRequantized('o1 + oc1', 'a11', 'oc1'),
  ]),
  If('outD % 2 == 1', [
    Let('ocL', 'outD - 1'),
    Let('fL', 'ocL * rhsCols'),
    ...biasInit('a00', 'ocL'), ...biasInit('a01', 'ocL'),
    For('k', '0', 'rhsCols', [
      Val('w0', 'filter[fL + k]'),
      Set('a00', 'a00 + w0 * scratch[k]', 'mac'),
      Set('a01', 'a01 + w0 * scratch[aligned + k]', 'mac'),
    ]),
    storeRequantized('o0 + ocL', 'a00', 'ocL'),
    storeRequantized('o1 + ocL', 'a01', 'ocL'),
  ]),
];

/** arm_convolve_s8's left-over column: one pixel (output base o0), every channel, from column 0. */
const MAT_MULT_1: Nest = [
  For('oc', '0', 'outD', [
    Let('f0', 'oc * rhsCols'),
    ...biasInit('acc', 'oc'),
    For('k', '0', 'rhsCols', [Set('acc', 'acc + filter[f0 + k] * scratch[k]', 'mac')]),
    storeRequantized('o0 + oc', 'acc', 'oc'),
  ]),
];

/** Where arm_convolve_s8's im2col reads: window origins, which taps are inside, and their input base. */
export interface Im2colTaps {
  readonly inYOrigin: string;
  readonly inXOrigin: string;
  readonly inside: string;
  readonly inBase: string;
}

/**
 * The im2col fill of one output pixel's window (outY, outX, pix and the origins bound): column
 * (pix % `block`) of the scratch, `aligned` bytes apart, gets `value` per input channel of a tap
 * inside the input (inBase bound) and `pad` for a tap outside, taps in filter order. DSP / plain C
 * store the input widened with its offset (block 2), MVE stores the int8 input (block 4).
 */
export function im2colWindow(t: Im2colTaps, block: number, value: string, pad: string): Nest {
  return [
    Let('col', `(pix % ${block}) * aligned`),
    For('fy', '0', 'fH', [
      Let('inY', 'inYOrigin + dilH * fy'),
      For('fx', '0', 'fW', [
        Let('inX', 'inXOrigin + dilW * fx'),
        Let('sBase', 'col + (fy * fW + fx) * inD'),
        If(t.inside, [
          Let('inBase', t.inBase),
          For('ic', '0', 'inD', [Store('scratch', 'sBase + ic', value)]),
        ], [
          For('ic', '0', 'inD', [Store('scratch', 'sBase + ic', pad)]),
        ]),
      ]),
    ]),
  ];
}

/**
 * arm_convolve_s8 (groups 1), DSP / plain C: per output pixel, im2col of its window into int16
 * column (pixel % 2) as input + inputOffset (0 for taps outside); after every second pixel of a
 * batch the mat-mult kernel writes both; an odd last pixel is finished alone. The C code stages the
 * int8 copy inside the same scratch before widening it (arm_s8_to_s16_unordered_with_offset, which
 * also permutes each group of 4 as the filter reads do): the scratch's own byte order is not
 * modelled, only that the input is read into it before the outputs are written.
 */
export function im2colConv(t: Im2colTaps): Nest {
  return [
    For('b', '0', 'batches', [
      For('outY', '0', 'outH', [
        Let('inYOrigin', t.inYOrigin),
        For('outX', '0', 'outW', [
          Let('inXOrigin', t.inXOrigin),
          Let('pix', 'outY * outW + outX'),
          ...im2colWindow(t, 2, 'input[inBase + ic] + inputOffset', '0'),
          If('pix % 2 == 1', [
            Let('o0', '(b * outH * outW + pix - 1) * outD'),
            Let('o1', 'o0 + outD'),
            ...MAT_MULT_2,
          ]),
        ]),
      ]),
      If('(outH * outW) % 2 == 1', [
        Let('o0', '(b * outH * outW + outH * outW - 1) * outD'),
        ...MAT_MULT_1,
      ]),
    ]),
  ];
}

/** The taps of arm_convolve_s8 as arm_convolve_wrapper_s8 calls it (no upscale). */
export const PLAIN_TAPS: Im2colTaps = {
  inYOrigin: 'outY * strideH - padH',
  inXOrigin: 'outX * strideW - padW',
  inside: 'inX >= 0 && inX < inW && inY >= 0 && inY < inH',
  inBase: '((b * inH + inY) * inW + inX) * inD',
};

/** arm_convolve_s8 as arm_convolve_wrapper_s8 calls it. */
export const IM2COL_CONV: Nest = im2colConv(PLAIN_TAPS);

/** CMSIS-NN's aligned im2col column length (rhs_cols rounded up to a multiple of 4). */
export function alignedCols(rhsCols: number): number {
  const r = rhsCols % 4;
  return r !== 0 ? rhsCols + 4 - r : rhsCols;
}
