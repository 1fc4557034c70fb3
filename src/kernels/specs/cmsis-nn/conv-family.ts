// Conv2D, DepthwiseConv2D and TransposeConv as TFLM 90b983c's kernels/cmsis_nn/{conv,depthwise_conv,
// transpose_conv}.cc run them through CMSIS-NN 4ab83cc3: the wrappers' path choice from shapes, params
// and the compile-time features (ARM_MATH_DSP, ARM_MATH_MVEI), each path's memory access order (nests
// in conv-*.ts, depthwise-*.ts, transpose-conv-paths.ts), the scratch TFLM requests (*_get_buffer_size,
// GCC build) and the kernels' OpData. Constraints and quantization are the reference specs'.
import type { Tensor } from '../../../ir/index.ts';
import type { Nest } from '../../nest.ts';
import type { BufferRef, KernelSpec, Prepared } from '../../spec.ts';
import { cStruct, OP_DATA_CONV, TFLITE_CONV_PARAMS, TFLITE_DEPTHWISE_CONV_PARAMS, perChannelArrays, stock } from '../../tflm-memory.ts';
import { constraint, convMultipliers, dim } from '../common.ts';
import type { ConvDims } from '../conv-common.ts';
import { convScalars, filterOpPrepared } from '../conv-common.ts';
import { conv2dSpec, filterRunSums } from '../conv2d.ts';
import { depthwiseConv2dSpec } from '../depthwise-conv2d.ts';
import { alignedCols, IM2COL_CONV, NT_T_ROWS } from './conv-paths.ts';
import { IM2COL_CONV_MVE, NT_T_ROWS_MVE, ONE_BY_N_MVE, oneByNSplit } from './conv-mve-paths.ts';
import { CH_IN_BLOCK_MVE, DW_OPT_MVE, depthwiseAsConv } from './depthwise-mve-paths.ts';
import { DW_3X3, DW_MULT_4, DW_OPT_DSP } from './depthwise-paths.ts';
import { cmsisNnTransposeConvSpecOf } from './transpose-conv-paths.ts';

/** CMSIS-NN's compile-time features: ARM_MATH_DSP (M4, M7, M33) and ARM_MATH_MVEI (M55, M85). */
export interface CmsisNnFeatures { readonly dsp: boolean; readonly mve: boolean }

/** cmsis_nn/conv.cc and depthwise_conv.cc OpData: the reference OpDataConv plus the scratch index. */
export const OP_DATA_CMSIS_CONV = cStruct('OpData (cmsis_nn conv)', [['reference_op_data', OP_DATA_CONV], ['buffer_idx', 'int32']]);

/** The conv2d paths of arm_convolve_wrapper_s8 (flag `path`). */
export const CONV_PATH = { im2col: 0, ntAllRows: 1, ntPerRow: 2, oneByNMve: 3 } as const;
/** The depthwise paths of arm_depthwise_conv_wrapper_s8 (flag `path`). */
export const DW_PATH = { generic: 0, threeByThree: 1, optDsp: 2, mult4: 3, optMve: 4, toConv: 5 } as const;

/** arm_nn_is_convolve_1_x_n: the wrapper's 1xN test. */
const isOneByN = (s: Readonly<Record<string, number>>): boolean =>
  s.inH === 1 && s.dilW === 1 && s.fH === 1 && ((s.strideW ?? 0) * (s.inD ?? 0)) % 4 === 0;

/** Which arm_convolve_wrapper_s8 path runs, and the scratch TFLM requests for it. */
export function cmsisConvPath(s: Readonly<Record<string, number>>, f: CmsisNnFeatures = { dsp: true, mve: false }): { path: number; scratchBytes: number } {
  const oneByOne = s.padH === 0 && s.padW === 0 && s.fH === 1 && s.fW === 1 && s.dilH === 1 && s.dilW === 1;
  // arm_convolve_1x1_s8_fast asks for 0 bytes on a GCC build (its DSP buffer is ARMCC-only).
  if (oneByOne) return { path: s.strideW === 1 && s.strideH === 1 ? CONV_PATH.ntAllRows : CONV_PATH.ntPerRow, scratchBytes: 0 };
  const cols = (s.fH ?? 0) * (s.fW ?? 0) * (s.inD ?? 0);
  const split = f.mve && isOneByN(s) ? oneByNSplit(s) : null;
  if (split !== null) return { path: CONV_PATH.oneByNMve, scratchBytes: split.bufferBytes };
  // MVE: four int8 im2col rows of 16-byte lanes (arm_convolve_s8_get_buffer_size_mve). Off MVE two
  // int16 columns; arm_convolve_1_x_n_s8 is arm_convolve_s8 there, with the same buffer.
  return { path: CONV_PATH.im2col, scratchBytes: f.mve ? 4 * Math.ceil(cols / 16) * 16 : 4 * alignedCols(cols) };
}

/** The nt_t call geometry of the 1x1 paths: one call over all N*H*W rows, or one per output row. */
function ntRows(s: ConvDims & Record<string, number>, path: number): Record<string, number> {
  return path === CONV_PATH.ntAllRows
    ? { mmOuterB: 1, mmOuterY: 1, mmRows: s.batches * s.inH * s.inW, mmInB: 0, mmInY: 0, mmOutB: 0, mmOutY: 0, lhsStride: s.inD }
    : { mmOuterB: s.batches, mmOuterY: s.outH, mmRows: s.outW, mmInB: s.inH * s.inW * s.inD, mmInY: (s.strideH ?? 1) * s.inW * s.inD,
        mmOutB: s.outH * s.outW * s.outD, mmOutY: s.outW * s.outD, lhsStride: s.inD * (s.strideW ?? 1) };
}

export function cmsisNnConv2dSpec(f: CmsisNnFeatures): KernelSpec<'conv2d'> {
  return {
    kind: 'conv2d',
    requestsScratch: true,
    tflmPersistent: { ...stock(TFLITE_CONV_PARAMS, OP_DATA_CMSIS_CONV), prepareBuffers: (c) => perChannelArrays(dim(c.input(1), 0)) },
    constraints: [
      ...conv2dSpec.constraints,
      constraint('conv2d.cmsis-nn-mve-1xn', 'CMSIS-NN MVE arm_convolve_1_x_n_s8 mishandles this padding (uneven split: output left unwritten; negative total padding: last column computed over padding): use --kernels reference', (c) => {
        if (!f.mve) return true;
        const s = convScalars(c.op.options, c.input(0)!, c.input(1)!, c.output(0));
        return cmsisConvPath(s, f).path !== CONV_PATH.oneByNMve || oneByNSplit(s)?.ok === true;
      }),
    ],
    prepare(c): Prepared {
      const input = c.input(0)!;
      const filter = c.input(1)!;
      const output = c.output(0);
      const s = convScalars(c.op.options, input, filter, output);
      const { path, scratchBytes } = cmsisConvPath(s, f);
      const rhsCols = s.fH * s.fW * s.inD;
      const base = filterOpPrepared(c.input(2), s, convMultipliers(input, filter, output, s.outD),
        path === CONV_PATH.im2col && !f.mve ? undefined : filterRunSums(filter, s.outD, rhsCols));
      const rows = ntRows(s, path);
      return {
        ...base,
        flags: { ...base.flags, path, mve: f.mve ? 1 : 0 },
        scalars: {
          ...s, rhsCols, aligned: alignedCols(rhsCols), fOff: 0,
          ...(path === CONV_PATH.ntAllRows || path === CONV_PATH.ntPerRow ? rows : {}),
          ...(path === CONV_PATH.oneByNMve ? oneByNSplit(s)?.scalars : {}),
        },
        buffers: { ...base.buffers, ...(scratchBytes > 0 ? { scratch: { kind: 'scratch', index: 0 } as const } : {}) },
        scratch: scratchBytes > 0 ? [{ name: 'scratch', dtype: f.mve ? 'int8' : 'int16', sizeBytes: scratchBytes }] : [],
      };
    },
    body: (p) => {
      const mve = p.flags?.mve === 1;
      if (p.flags?.path === CONV_PATH.im2col) return mve ? IM2COL_CONV_MVE : IM2COL_CONV;
      if (p.flags?.path === CONV_PATH.oneByNMve) return ONE_BY_N_MVE;
      return mve ? NT_T_ROWS_MVE : NT_T_ROWS;
    },
  };
}

/** Which arm_depthwise_conv_wrapper_s8 path runs, and the scratch TFLM requests for it. */
export function cmsisDepthwisePath(s: Readonly<Record<string, number>>, f: CmsisNnFeatures): { path: number; scratchBytes: number } {
  const plain = s.batches === 1 && s.dilH === 1 && s.dilW === 1;
  // MVE with one input channel: a regular conv (GCC threshold 1), its buffer then the transposed filter.
  if (f.mve && s.inD === 1 && (s.outD ?? 0) > 1) {
    return { path: DW_PATH.toConv, scratchBytes: cmsisConvPath(s, f).scratchBytes + (s.fH ?? 0) * (s.fW ?? 0) * (s.outD ?? 0) };
  }
  if (s.depthMult === 1 && plain) {
    if (f.mve) return { path: DW_PATH.optMve, scratchBytes: 4 * CH_IN_BLOCK_MVE * (s.fH ?? 0) * (s.fW ?? 0) };
    if (s.fH === 3 && s.fW === 3 && (s.padH ?? 0) <= 1 && (s.padW ?? 0) <= 1) return { path: DW_PATH.threeByThree, scratchBytes: 0 };
    // Off DSP, arm_depthwise_conv_s8_opt falls back to arm_depthwise_conv_s8 and asks for nothing.
    if (f.dsp) return { path: DW_PATH.optDsp, scratchBytes: 2 * (s.inD ?? 0) * (s.fH ?? 0) * (s.fW ?? 0) };
    return { path: DW_PATH.generic, scratchBytes: 0 };
  }
  return { path: (s.depthMult ?? 0) % 4 === 0 && plain ? DW_PATH.mult4 : DW_PATH.generic, scratchBytes: 0 };
}

/** Per output channel, the sum of its filter taps ([1, H, W, C] layout), or null for a non-constant filter. */
function depthwiseTapSums(filter: Tensor, taps: number, channels: number): Int32Array | null {
  const rows = filterRunSums(filter, taps * channels, 1);
  if (rows === null) return null;
  const sums = new Int32Array(channels);
  for (let t = 0; t < taps; t++) for (let c = 0; c < channels; c++) sums[c] = (sums[c]! + rows[t * channels + c]!) | 0;
  return sums;
}

const DW_BODY: Readonly<Record<number, Nest>> = {
  [DW_PATH.threeByThree]: DW_3X3,
  [DW_PATH.optDsp]: DW_OPT_DSP,
  [DW_PATH.mult4]: DW_MULT_4,
  [DW_PATH.optMve]: DW_OPT_MVE,
};
const DW_AS_CONV_ROWS = depthwiseAsConv(NT_T_ROWS_MVE);
const DW_AS_CONV_IM2COL = depthwiseAsConv(IM2COL_CONV_MVE);

export function cmsisNnDepthwiseConv2dSpec(f: CmsisNnFeatures): KernelSpec<'depthwiseConv2d'> {
  return {
    kind: 'depthwiseConv2d',
    requestsScratch: true,
    tflmPersistent: { ...stock(TFLITE_DEPTHWISE_CONV_PARAMS, OP_DATA_CMSIS_CONV), prepareBuffers: (c) => perChannelArrays(dim(c.input(1), 3)) },
    constraints: [
      ...depthwiseConv2dSpec.constraints,
      // arm_depthwise_conv_s8_opt (MVE) hands arm_nn_depthwise_conv_nt_t_s8 `bias + block_offset`: with
      // no bias, the second 124-channel block gets a non-NULL pointer and reads its bias at address 496.
      constraint('depthwiseConv2d.cmsis-nn-mve-no-bias', 'CMSIS-NN MVE arm_depthwise_conv_s8_opt with more than 124 channels, no bias and at least 4 output pixels reads the bias of channels 124 on from address 496 (NULL + 124): give the op a bias or use --kernels reference', (c) => {
        const s = depthwiseConv2dSpec.prepare(c).scalars;
        return c.input(2) !== null || cmsisDepthwisePath(s, f).path !== DW_PATH.optMve || (s.inD ?? 0) <= CH_IN_BLOCK_MVE || (s.outH ?? 0) * (s.outW ?? 0) < 4;
      }),
      constraint('depthwiseConv2d.cmsis-nn-mve-1xn', 'CMSIS-NN MVE depthwise-as-conv through arm_convolve_1_x_n_s8 is not modelled yet: use --kernels reference', (c) => {
        const s = depthwiseConv2dSpec.prepare(c).scalars;
        return cmsisDepthwisePath(s, f).path !== DW_PATH.toConv || cmsisConvPath(s, f).path !== CONV_PATH.oneByNMve;
      }),
    ],
    prepare(c): Prepared {
      const base = depthwiseConv2dSpec.prepare(c);
      const s = base.scalars as ConvDims & Record<string, number>;
      const { path, scratchBytes } = cmsisDepthwisePath(s, f);
      const scratch: Record<string, BufferRef> = scratchBytes > 0 ? { scratch: { kind: 'scratch', index: 0 } } : {};
      const taps = s.fH * s.fW;
      if (path === DW_PATH.toConv || path === DW_PATH.optMve) {
        const fsum = depthwiseTapSums(c.input(1)!, taps, s.outD);
        const conv = cmsisConvPath(s, f);
        const asConv = path === DW_PATH.toConv ? { conv: conv.path, rhsCols: taps, aligned: alignedCols(taps), fOff: conv.scratchBytes, ...ntRows(s, conv.path) } : {};
        return {
          ...base,
          flags: { ...base.flags, path, hoist: fsum ? 1 : 0, mve: 1 },
          scalars: { ...s, ...asConv },
          arrays: { ...base.arrays, ...(fsum ? { fsum } : {}) },
          buffers: path === DW_PATH.toConv
            ? { ...base.buffers, wsrc: { kind: 'input', slot: 1 }, filter: { kind: 'scratch', index: 0 }, ...scratch }
            : { ...base.buffers, ...scratch },
          scratch: [{ name: 'scratch', dtype: 'int8', sizeBytes: scratchBytes }],
        };
      }
      return {
        ...base,
        flags: { ...base.flags, path },
        buffers: { ...base.buffers, ...scratch },
        scratch: scratchBytes > 0 ? [{ name: 'scratch', dtype: 'int16', sizeBytes: scratchBytes }] : [],
      };
    },
    body: (p) => {
      if (p.flags?.path === DW_PATH.toConv) return p.scalars.conv === CONV_PATH.im2col ? DW_AS_CONV_IM2COL : DW_AS_CONV_ROWS;
      return DW_BODY[p.flags?.path ?? DW_PATH.generic] ?? (depthwiseConv2dSpec.body as Nest);
    },
  };
}

export function cmsisNnTransposeConvSpec(f: CmsisNnFeatures): KernelSpec<'transposeConv'> {
  return cmsisNnTransposeConvSpecOf(f.mve);
}
