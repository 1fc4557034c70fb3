// Conv2D nests of CMSIS-NN 4ab83cc3 on MVE (ARM_MATH_MVEI, Cortex-M55 / M85): arm_nn_mat_mult_nt_t_s8's
// MVE order (4 lhs rows at a time, every output channel of them in turn, 4 bytes scattered per
// channel; a left-over row stores its channels 4 by 4 as they complete), which arm_convolve_1x1_s8_fast
// and arm_convolve_1x1_s8 run on the input and arm_convolve_s8 on up to 4 int8 im2col rows (raw
// input bytes, padding = zero point) in its scratch. Values: sum(x * w) + inputOffset * sum(w) + bias.
// The filter is read from `fOff` (0; depthwise-as-conv reads its transposed filter from the scratch).
import type { Nest, Stmt } from '../../nest.ts';
import { For, If, Let, Set, Store, Val } from '../../nest.ts';
import type { Im2colTaps } from './conv-paths.ts';
import { PLAIN_TAPS, biasInit, im2colWindow, storeRequantized } from './conv-paths.ts';

const lanes = (n: number): number[] => Array.from({ length: n }, (_, j) => j);

/** acc = bias (+ inputOffset * sum of the filter row when hoisted). */
const init = (acc: string, oc: string): Nest => [...biasInit(acc, oc), If('hoist', [Set(acc, `${acc} + inputOffset * fsum[${oc}]`)])];
const mac = (acc: string, x: string, w: string): Stmt =>
  If('hoist', [Set(acc, `${acc} + ${x} * ${w}`, 'mac')], [Set(acc, `${acc} + (${x} + inputOffset) * ${w}`, 'mac')]);

/**
 * One arm_nn_mat_mult_nt_t_s8 call (MVE): `rows` lhs rows of `lhs`, row k at `lhsRow(k)`, output row k
 * at `outRow(k)`; filter rows are `K` long. Names are suffixed with `tag` so calls can share a scope.
 */
export function ntMve(lhs: string, rows: string, lhsRow: (k: string) => string, outRow: (k: string) => string, K: string, tag: string): Nest {
  const q = `q${tag}`;
  const oc = `oc${tag}`;
  const k = `k${tag}`;
  const r = `r${tag}`;
  const og = `og${tag}`;
  /** `n` channels from `first` of row `r`: compute all, then store all (a 4-channel group or the tail). */
  const rowChannels = (n: number, first: string): Nest => [
    ...lanes(n).flatMap((t) => [
      ...init(`s${t}`, `${first} + ${t}`),
      For(k, '0', K, [mac(`s${t}`, `${lhs}[${lhsRow(r)} + ${k}]`, `filter[fOff + (${first} + ${t}) * ${K} + ${k}]`)]),
    ]),
    ...lanes(n).map((t) => storeRequantized(`${outRow(r)} + ${first} + ${t}`, `s${t}`, `${first} + ${t}`)),
  ];
  return [
    For(q, '0', `${rows} / 4`, [
      For(oc, '0', 'outD', [
        ...lanes(4).flatMap((j) => init(`a${j}`, oc)),
        For(k, '0', K, [
          Val('w', `filter[fOff + ${oc} * ${K} + ${k}]`),
          ...lanes(4).map((j) => mac(`a${j}`, `${lhs}[${lhsRow(`${q} * 4 + ${j}`)} + ${k}]`, 'w')),
        ]),
        ...lanes(4).map((j) => storeRequantized(`${outRow(`${q} * 4 + ${j}`)} + ${oc}`, `a${j}`, oc)),
      ]),
    ]),
    For(r, `(${rows} / 4) * 4`, rows, [
      For(og, '0', 'outD / 4', rowChannels(4, `${og} * 4`)),
      ...[1, 2, 3].map((n) => If(`outD % 4 == ${n}`, rowChannels(n, '(outD / 4) * 4'))),
    ]),
  ];
}

/** arm_convolve_1x1_s8_fast / arm_convolve_1x1_s8 on MVE: nt_t straight on the input rows. */
export const NT_T_ROWS_MVE: Nest = [
  For('mb', '0', 'mmOuterB', [
    For('my', '0', 'mmOuterY', [
      Let('inRow0', 'mb * mmInB + my * mmInY'),
      Let('outRow0', 'mb * mmOutB + my * mmOutY'),
      ...ntMve('input', 'mmRows', (k) => `inRow0 + (${k}) * lhsStride`, (k) => `outRow0 + (${k}) * outD`, 'inD', ''),
    ]),
  ]),
];

/** arm_convolve_s8 on MVE (groups 1): int8 im2col rows of `aligned` bytes, 4 per nt_t call. */
export function im2colConvMve(t: Im2colTaps): Nest {
  return [
    For('b', '0', 'batches', [
      For('outY', '0', 'outH', [
        Let('inYOrigin', t.inYOrigin),
        For('outX', '0', 'outW', [
          Let('inXOrigin', t.inXOrigin),
          Let('pix', 'outY * outW + outX'),
          ...im2colWindow(t, 4, 'input[inBase + ic]', '0 - inputOffset'),
          If('pix % 4 == 3', [
            Let('o0', '(b * outH * outW + pix - 3) * outD'),
            ...ntMve('scratch', '4', (k) => `(${k}) * aligned`, (k) => `o0 + (${k}) * outD`, 'rhsCols', 'F'),
          ]),
        ]),
      ]),
      If('(outH * outW) % 4 != 0', [
        Let('oL', '(b * outH * outW + outH * outW - (outH * outW) % 4) * outD'),
        ...ntMve('scratch', '(outH * outW) % 4', (k) => `(${k}) * aligned`, (k) => `oL + (${k}) * outD`, 'rhsCols', 'L'),
      ]),
    ]),
  ];
}

/** arm_convolve_s8 on MVE as arm_convolve_wrapper_s8 calls it (no upscale). */
export const IM2COL_CONV_MVE: Nest = im2colConvMve(PLAIN_TAPS);

/**
 * arm_convolve_1_x_n_s8 on MVE (input height 1): per batch, the left-padded output columns from an
 * im2col of [zero points, first kernel_x columns] (rows lhsOff apart), the unpadded ones straight
 * from the input, the right-padded ones from [last kernel_x - 1 columns, zero points].
 */
export const ONE_BY_N_MVE: Nest = [
  For('b', '0', 'batches', [
    Let('inB', 'b * inW * inD'),
    Let('oB', 'b * outW * outD'),
    For('i', '0', 'padSizeLeft', [Store('scratch', 'i', '0 - inputOffset')]),
    For('i', '0', 'numLeft', [Store('scratch', 'padSizeLeft + i', 'input[inB + i]')]),
    ...ntMve('scratch', 'leftN', (k) => `(${k}) * lhsOff`, (k) => `oB + (${k}) * outD`, 'rhsCols', 'A'),
    ...ntMve('input', 'midN', (k) => `inB + midStart + (${k}) * lhsOff`, (k) => `oB + (leftN + ${k}) * outD`, 'rhsCols', 'B'),
    For('i', '0', 'numRight', [Store('scratch', 'i', 'input[inB + rightStart + i]')]),
    For('i', '0', 'padSizeRight', [Store('scratch', 'numRight + i', '0 - inputOffset')]),
    ...ntMve('scratch', 'rightN', (k) => `(${k}) * lhsOff`, (k) => `oB + (leftN + midN + ${k}) * outD`, 'rhsCols', 'C'),
  ]),
];

/** arm_convolve_1_x_n_s8's MVE split of the output columns, or null when it falls back to arm_convolve_s8. */
export function oneByNSplit(s: Readonly<Record<string, number>>): { readonly ok: boolean; readonly scalars: Record<string, number>; readonly bufferBytes: number } | null {
  const g = (k: string): number => s[k] ?? 0;
  const [inW, inD, fW, outW, padW, strideW] = [g('inW'), g('inD'), g('fW'), g('outW'), g('padW'), g('strideW')];
  const totalPad = (outW - 1) * strideW + fW - inW;
  const asym = totalPad % 2;
  const right = padW + asym !== 0 ? Math.max(1, Math.trunc((padW + asym + strideW - 1) / strideW)) : 0;
  const left = padW !== 0 ? Math.max(1, Math.trunc((padW + strideW - 1) / strideW)) : 0;
  const mid = Math.max(outW - (right + left), 0);
  if (right + mid + left !== outW) return null;
  const padSizeLeft = padW * inD;
  const padSizeRight = asym ? right * inD : padSizeLeft;
  const numLeft = fW * inD;
  const numRight = numLeft - inD;
  const midStart = (strideW * left - padW) * inD;
  // CMSIS-NN returns ARM_CMSIS_NN_FAILURE (and TFLM ignores it) when the padding is not split
  // evenly or a section starts before the input: the output is then never written. A negative
  // total padding (VALID, input wider than the windows need) gives asym_pad = -1 in C, and the
  // last column is computed over one "padding" column instead of the input: not TFLM's result.
  const ok = padW * 2 + asym === totalPad && midStart >= 0 && totalPad >= 0;
  return {
    ok,
    scalars: {
      leftN: left, midN: mid, rightN: outW - left - mid, padSizeLeft, padSizeRight, numLeft, numRight,
      lhsOff: inD * strideW, midStart, rightStart: (strideW * (left + mid) - padW) * inD,
    },
    bufferBytes: Math.max(numLeft + padSizeLeft, numRight + padSizeRight),
  };
}
