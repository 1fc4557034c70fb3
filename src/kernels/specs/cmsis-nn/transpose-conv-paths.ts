// TransposeConv as TFLM 90b983c's kernels/cmsis_nn/transpose_conv.cc runs it through CMSIS-NN 4ab83cc3
// arm_transpose_conv_wrapper_s8. Input depth > 16, strides <= 2: the filter reversed into scratch 1,
// then arm_convolve_s8 over the zero-upsampled input (DSP / plain C or MVE im2col). Else
// arm_transpose_conv_s8 (same order on every core): per input row, arm_nn_transpose_conv_row_s8_s32
// accumulates into a rolling int32 buffer of max(fH, strideH) rows, finished rows are requantized
// into the output. No output-sized int32 scratch; the fused activation is ignored.
import type { Nest } from '../../nest.ts';
import { For, If, Let, Set, Store, Val } from '../../nest.ts';
import type { KernelSpec, Prepared } from '../../spec.ts';
import type { CFieldType } from '../../tflm-memory.ts';
import { OP_DATA_TRANSPOSE_CONV, TFLITE_TRANSPOSE_CONV_PARAMS, cStruct, perChannelArrays, stock } from '../../tflm-memory.ts';
import { constraint, dim } from '../common.ts';
import { transposeConvSpec } from '../transpose-conv.ts';
import type { Im2colTaps } from './conv-paths.ts';
import { alignedCols, im2colConv } from './conv-paths.ts';
import { im2colConvMve } from './conv-mve-paths.ts';
import { filterRunSums } from '../conv2d.ts';

/** CMSIS-NN's REVERSE_TCOL_EFFICIENT_THRESHOLD (arm_nnsupportfunctions.h). */
const REVERSE_TCOL_EFFICIENT_THRESHOLD = 16;

/** cmsis_nn/transpose_conv.cc OpData: the reference OpData's fields plus scratch_buffer_output_index. */
const CONV_PARAMS: CFieldType = OP_DATA_TRANSPOSE_CONV.fields[0]?.[1] ?? 'int32';
export const OP_DATA_CMSIS_TRANSPOSE_CONV = cStruct('OpData (cmsis_nn transpose_conv)', [
  ['params', CONV_PARAMS], ['scratch_buffer_index', 'int32'], ['scratch_buffer_output_index', 'int32'],
  ['bias_converted_buffer_index', 'int32'], ['per_channel_output_multiplier', 'ptr'], ['per_channel_output_shift', 'ptr'],
]);

/** Reset `count` buffer cells (each outD channels) from `base` to the bias (or 0). */
const resetCells = (base: string, count: string): Nest => [
  For('e', '0', count, [For('oc', '0', 'outD', [If('hasBias', [Store('buf', `${base} + e * outD + oc`, 'bias[oc]')], [Store('buf', `${base} + e * outD + oc`, '0')])])]),
];

/** Requantize buffer row `rb` (from column padW) into output row `row` of batch b. */
const emitRow = (rb: string, row: string): Nest => [
  For('x', '0', 'outW', [
    For('z', '0', 'outD', [
      Val('acc', `buf[${rb} + (padW + x) * outD + z]`),
      Store('output', `((b * outH + ${row}) * outW + x) * outD + z`, 'clamp(mbqm(acc, mult[z], shift[z]) + outputOffset, actMin, actMax)'),
    ]),
  ]),
];

/** arm_nn_transpose_conv_row_s8_s32 for `lanes` input columns from `x0`: every (oc, filter row, filter column). */
function rowGroup(lanes: number, x0: string): Nest {
  const ks = Array.from({ length: lanes }, (_, k) => k);
  return [
    For('oc', '0', 'outD', [
      For('r', '0', 'nRows', [
        Let('idx', '(bufRow + r * bufX) % bufSize'),
        Let('fr', '(oc * fH + skipTop + r) * fW * inD'),
        For('c', '0', 'fW', [
          ...ks.map((k) => Val(`res${k}`, '0')),
          For('ic', '0', 'inD', [
            Val('w', 'filter[fr + c * inD + ic]'),
            ...ks.map((k) => Set(`res${k}`, `res${k} + (input[inRow + (${x0} + ${k}) * inD + ic] + inputOffset) * w`, 'mac')),
          ]),
          ...ks.map((k) => Store('buf', `idx + ((${x0} + ${k}) * strideW + c) * outD + oc`, `buf[idx + ((${x0} + ${k}) * strideW + c) * outD + oc] + res${k}`)),
        ]),
      ]),
    ]),
  ];
}

/** arm_transpose_conv_s8, DSP / plain C. */
const ROW_BUFFER: Nest = [
  For('b', '0', 'batches', [
    ...resetCells('0', 'bufXE * bufY'),
    For('j', '0', 'inH', [
      Let('skipTop', 'max(0, padH - j * strideH)'),
      Let('skipBot', 'max(0, j * strideH + fH - (padH + outH) - 1)'),
      Let('done', 'max(0, j - j0) * strideH'),
      Let('bufRow', '(done * bufX) % bufSize'),
      Let('nRows', 'fH - skipTop - skipBot'),
      Let('inRow', '(b * inH + j) * inW * inD'),
      For('g', '0', 'inW / 4', [Let('x4', 'g * 4'), ...rowGroup(4, 'x4')]),
      If('inW % 4 >= 2', [Let('x2', '(inW / 4) * 4'), ...rowGroup(2, 'x2')]),
      If('inW % 2 == 1', [Let('x1', 'inW - 1'), ...rowGroup(1, 'x1')]),
      If('skipTop == 0', [
        For('y', '0', 'strideH', [
          Let('rb', '((done + y) * bufX) % bufSize'),
          ...emitRow('rb', 'done + y'),
          ...resetCells('rb', 'bufXE'),
        ]),
      ]),
    ]),
    Let('doneAll', 'max(0, inH - j0) * strideH'),
    For('y', '0', 'fH - strideH', [
      Let('rb', '((doneAll + y) * bufX) % bufSize'),
      If('inH * strideH + y >= padH && inH * strideH + y < padH + outH', [
        ...emitRow('rb', 'doneAll + y - max(0, padH - inH * strideH)'),
      ]),
    ]),
  ]),
];

/** The zero-upsampled input arm_convolve_s8 reads on the reverse-conv path (upscale_dims = strides). */
const UPSCALE_TAPS: Im2colTaps = {
  inYOrigin: 'outY - cpadH',
  inXOrigin: 'outX - cpadW',
  inside: 'inY >= 0 && inY < inH * strideH && inY % strideH == 0 && inX >= 0 && inX < inW * strideW && inX % strideW == 0',
  inBase: '((b * inH + inY / strideH) * inW + inX / strideW) * inD',
};

/** The wrapper's reverse-conv path: reversed filter into scratch 1, then upscale arm_convolve_s8 (`conv`). */
const reverseConv = (conv: Nest): Nest => [
  For('oc', '0', 'outD', [
    For('y', '0', 'fH', [
      For('x', '0', 'fW', [
        Let('src', '((oc * fH + y) * fW + x) * inD'),
        Let('dst', '((oc * fH + fH - 1 - y) * fW + fW - 1 - x) * inD'),
        For('ic', '0', 'inD', [Store('filter', 'dst + ic', 'wfilter[src + ic]')]),
      ]),
    ]),
  ]),
  ...conv,
];
const REVERSE_CONV = reverseConv(im2colConv(UPSCALE_TAPS));
const REVERSE_CONV_MVE = reverseConv(im2colConvMve(UPSCALE_TAPS));

interface RowGeometry { readonly emittedRows: number; readonly kernelBytes: number; readonly requestBytes: number; readonly bufXE: number; readonly bufY: number; readonly j0: number }

/** The row path's rolling buffer as the kernel sizes it and as TFLM requests it (stride.h in x: CMSIS-NN's own mix). */
function rowGeometry(s: Readonly<Record<string, number>>): RowGeometry {
  const g = (k: string): number => s[k] ?? 0;
  const bufXE = (g('inW') - 1) * g('strideW') + Math.max(g('fW'), g('strideW'));
  const bufY = Math.max(g('fH'), g('strideH'));
  const reqXE = (g('inW') - 1) * g('strideW') + Math.max(g('fW'), g('strideH'));
  const j0 = Math.ceil(g('padH') / g('strideH'));
  let leftover = 0;
  for (let y = 0; y < g('fH') - g('strideH'); y++) {
    const row = g('inH') * g('strideH') + y;
    if (row >= g('padH') && row < g('padH') + g('outH')) leftover++;
  }
  return { emittedRows: Math.max(0, g('inH') - j0) * g('strideH') + leftover, kernelBytes: 4 * bufXE * g('outD') * bufY, requestBytes: 4 * reqXE * g('outD') * bufY, bufXE, bufY, j0 };
}

const isReverse = (s: Readonly<Record<string, number>>): boolean => (s.strideW ?? 0) <= 2 && (s.strideH ?? 0) <= 2 && (s.inD ?? 0) > REVERSE_TCOL_EFFICIENT_THRESHOLD;

export function cmsisNnTransposeConvSpecOf(mve: boolean): KernelSpec<'transposeConv'> {
  const scalarsOf = (c: Parameters<KernelSpec<'transposeConv'>['prepare']>[0]): Readonly<Record<string, number>> => transposeConvSpec.prepare(c).scalars;
  return {
    kind: 'transposeConv',
    requestsScratch: true,
    tflmPersistent: {
      ...stock(TFLITE_TRANSPOSE_CONV_PARAMS, OP_DATA_CMSIS_TRANSPOSE_CONV),
      prepareBuffers: (c) => perChannelArrays(dim(c.input(1), 0)),
      // Two RequestScratchBufferInArena calls for int8 (the reversed-filter one may ask for 0 bytes).
      scratchRequests: () => 2,
    },
    constraints: [
      ...transposeConvSpec.constraints,
      // arm_transpose_conv_s8 emits stride_h rows per input row from the first one without top
      // padding: it writes past the output (VALID with filter < stride), leaves rows unwritten or
      // mixes two rows in one (padding not a multiple of the stride), and sizes its buffer with
      // stride_w where TFLM's request used stride_h. The build's bytes are then undefined: refused.
      constraint('transposeConv.cmsis-nn-rows', 'CMSIS-NN arm_transpose_conv_s8 mishandles this shape (its output rows, padding or scratch do not line up): use --kernels reference', (c) => {
        const s = scalarsOf(c);
        if (isReverse(s)) return true;
        const g = rowGeometry(s);
        return g.emittedRows === s.outH && (s.padH ?? 0) % (s.strideH ?? 1) === 0 && g.kernelBytes <= g.requestBytes && (s.padW ?? 0) + (s.outW ?? 0) <= g.bufXE;
      }),
    ],
    prepare(c): Prepared {
      const ref = transposeConvSpec.prepare(c);
      // PopulateConvolutionQuantizationParams gets kTfLiteActNone: the int8 range, whatever is fused.
      const s: Readonly<Record<string, number>> = { ...ref.scalars, actMin: -128, actMax: 127 };
      const buffers = { input: ref.buffers.input!, ...(ref.buffers.bias ? { bias: ref.buffers.bias } : {}), output: ref.buffers.output! };
      const base = { arrays: ref.arrays };
      const hasBias = ref.flags?.hasBias ?? 0;
      if (isReverse(s)) {
        const rhsCols = (s.fH ?? 0) * (s.fW ?? 0) * (s.inD ?? 0);
        const aligned = alignedCols(rhsCols);
        // MVE's nt_t sums each filter row itself: the reversed row's sum is the original's.
        const fsum = mve ? filterRunSums(c.input(1)!, s.outD ?? 0, rhsCols) : null;
        return {
          ...base,
          flags: { hasBias, reverse: 1, mve: mve ? 1 : 0, hoist: fsum ? 1 : 0 },
          arrays: { ...ref.arrays, ...(fsum ? { fsum } : {}) },
          scalars: { ...s, rhsCols, aligned, fOff: 0, dilH: 1, dilW: 1, cpadH: (s.fH ?? 0) - 1 - (s.padH ?? 0), cpadW: (s.fW ?? 0) - 1 - (s.padW ?? 0) },
          buffers: { ...buffers, wfilter: { kind: 'input', slot: 1 }, scratch: { kind: 'scratch', index: 0 }, filter: { kind: 'scratch', index: 1 } },
          scratch: [
            mve ? { name: 'scratch', dtype: 'int8', sizeBytes: 4 * Math.ceil(rhsCols / 16) * 16 } : { name: 'scratch', dtype: 'int16', sizeBytes: 4 * aligned },
            { name: 'filter', dtype: 'int8', sizeBytes: rhsCols * (s.outD ?? 0) },
          ],
        };
      }
      const g = rowGeometry(s);
      return {
        ...base,
        flags: { hasBias, reverse: 0 },
        scalars: { ...s, bufXE: g.bufXE, bufY: g.bufY, bufX: g.bufXE * (s.outD ?? 0), bufSize: g.bufXE * (s.outD ?? 0) * g.bufY, j0: g.j0 },
        buffers: { ...buffers, filter: { kind: 'input', slot: 1 }, buf: { kind: 'scratch', index: 0 } },
        scratch: [{ name: 'buf', dtype: 'int32', sizeBytes: g.requestBytes }],
      };
    },
    body: (p) => (p.flags?.reverse === 1 ? (p.flags.mve === 1 ? REVERSE_CONV_MVE : REVERSE_CONV) : ROW_BUFFER),
  };
}
