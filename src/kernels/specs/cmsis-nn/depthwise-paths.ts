// The loop nests of CMSIS-NN 4ab83cc3 arm_depthwise_conv_wrapper_s8's paths off MVE:
// arm_depthwise_conv_3x3_s8 (4 channels per pass over the 3x3 window, then 4 stores),
// arm_depthwise_conv_s8_opt on DSP (int16 im2col of the whole window, all channels, then every
// channel of the pixel), and arm_depthwise_conv_s8's depthwise_conv_s8_mult_4 (ch_mult % 4 == 0:
// each input tap read once for 4 multiplier channels). depthwise_conv_s8_generic walks memory as
// the reference DepthwiseConvPerChannel does; the spec reuses that nest.
import type { Nest, Stmt } from '../../nest.ts';
import { For, If, Let, Set, Store, Val } from '../../nest.ts';
import { biasInit, storeRequantized } from './conv-paths.ts';

const mac = (acc: string, x: string, w: string): Stmt => Set(acc, `${acc} + (${x} + inputOffset) * ${w}`, 'mac');

/** One channel block of the 3x3 kernel: `lanes` accumulators for channels c0 .. c0 + lanes - 1. */
function threeByThree(lanes: number): Nest {
  const ids = Array.from({ length: lanes }, (_, j) => j);
  return [
    ...ids.flatMap((j) => biasInit(`a${j}`, `c0 + ${j}`)),
    For('kh', '0', '3', [
      Let('inY', 'inY0 + kh'),
      If('inY >= 0 && inY < inH', [
        For('kw', '0', '3', [
          Let('inX', 'inX0 + kw'),
          // Tap 0 only when the window starts inside, tap 1 always, tap 2 when 3 columns remain.
          If('(kw == 0 && inX0 >= 0) || kw == 1 || (kw == 2 && inW - inX0 >= 3)', [
            Let('ib', '(inY * inW + inX) * inD + c0'),
            Let('fb', '(kh * 3 + kw) * inD + c0'),
            ...ids.map((j) => mac(`a${j}`, `input[ib + ${j}]`, `filter[fb + ${j}]`)),
          ]),
        ]),
      ]),
    ]),
    ...ids.map((j) => storeRequantized(`outBase + c0 + ${j}`, `a${j}`, `c0 + ${j}`)),
  ];
}

/** arm_depthwise_conv_3x3_s8 (batch 1, ch_mult 1, padding <= 1): blocks of 4 channels, then 1 by 1. */
export const DW_3X3: Nest = [
  For('outY', '0', 'outH', [
    Let('inY0', 'outY * strideH - padH'),
    For('outX', '0', 'outW', [
      Let('inX0', 'outX * strideW - padW'),
      Let('outBase', '(outY * outW + outX) * outD'),
      For('cb', '0', 'inD / 4', [Let('c0', 'cb * 4'), ...threeByThree(4)]),
      For('c0', '(inD / 4) * 4', 'inD', threeByThree(1)),
    ]),
  ]),
];

/**
 * arm_depthwise_conv_s8_opt, DSP (batch 1, ch_mult 1): the pixel's whole window, every channel, as
 * int16 input + inputOffset (0 outside) into the scratch, then every output channel of the pixel.
 */
export const DW_OPT_DSP: Nest = [
  For('outY', '0', 'outH', [
    Let('inY0', 'outY * strideH - padH'),
    For('outX', '0', 'outW', [
      Let('inX0', 'outX * strideW - padW'),
      For('ky', '0', 'fH', [
        Let('inY', 'inY0 + ky'),
        For('kx', '0', 'fW', [
          Let('inX', 'inX0 + kx'),
          Let('sBase', '(ky * fW + kx) * inD'),
          If('inX >= 0 && inX < inW && inY >= 0 && inY < inH', [
            Let('inBase', '(inY * inW + inX) * inD'),
            For('c', '0', 'inD', [Store('scratch', 'sBase + c', 'input[inBase + c] + inputOffset')]),
          ], [
            For('c', '0', 'inD', [Store('scratch', 'sBase + c', '0')]),
          ]),
        ]),
      ]),
      Let('outBase', '(outY * outW + outX) * outD'),
      For('c', '0', 'outD', [
        ...biasInit('acc', 'c'),
        For('k', '0', 'fH * fW', [Set('acc', 'acc + filter[k * outD + c] * scratch[k * inD + c]', 'mac')]),
        storeRequantized('outBase + c', 'acc', 'c'),
      ]),
    ]),
  ]),
];

/** depthwise_conv_s8_mult_4 (batch 1, no dilation, ch_mult % 4 == 0): 4 multiplier channels per tap read. */
export const DW_MULT_4: Nest = [
  For('outY', '0', 'outH', [
    Let('inY0', 'outY * strideH - padH'),
    For('outX', '0', 'outW', [
      Let('inX0', 'outX * strideW - padW'),
      Let('outBase', '(outY * outW + outX) * outD'),
      For('ic', '0', 'inD', [
        For('mt', '0', 'depthMult / 4', [
          Let('oc0', 'ic * depthMult + mt * 4'),
          ...[0, 1, 2, 3].flatMap((j) => biasInit(`a${j}`, `oc0 + ${j}`)),
          For('ky', '0', 'fH', [
            Let('inY', 'inY0 + ky'),
            If('inY >= 0 && inY < inH', [
              For('kx', '0', 'fW', [
                Let('inX', 'inX0 + kx'),
                If('inX >= 0 && inX < inW', [
                  Val('x', 'input[(inY * inW + inX) * inD + ic] + inputOffset'),
                  Let('fb', '(ky * fW + kx) * outD + oc0'),
                  ...[0, 1, 2, 3].map((j) => Set(`a${j}`, `a${j} + x * filter[fb + ${j}]`, 'mac')),
                ]),
              ]),
            ]),
          ]),
          ...[0, 1, 2, 3].map((j) => storeRequantized(`outBase + oc0 + ${j}`, `a${j}`, `oc0 + ${j}`)),
        ]),
      ]),
    ]),
  ]),
];
