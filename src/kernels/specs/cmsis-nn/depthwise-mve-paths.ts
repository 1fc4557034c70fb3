// DepthwiseConv2D nests of CMSIS-NN 4ab83cc3 on MVE: arm_depthwise_conv_s8_opt's MVE branch (blocks of
// CH_IN_BLOCK_MVE = 124 channels outermost; per pixel an int8 im2col of the block's taps, padding = zero
// point; every 4th pixel arm_nn_depthwise_conv_nt_t_s8 writes 4 pixels, 4 channels at a time) and
// arm_depthwise_conv_to_conv_s8 (one input channel: the filter transposed into the scratch behind the
// conv buffer, then the conv2d MVE nests). Inactive vector lanes are not read in the model.
import type { Nest, Stmt } from '../../nest.ts';
import { For, If, Let, Set, Store } from '../../nest.ts';
import { biasInit, storeRequantized } from './conv-paths.ts';

/** CMSIS-NN's CH_IN_BLOCK_MVE (arm_nnsupportfunctions.h). */
export const CH_IN_BLOCK_MVE = 124;

const init = (acc: string, oc: string): Nest => [...biasInit(acc, oc), If('hoist', [Set(acc, `${acc} + inputOffset * fsum[${oc}]`)])];
const mac = (acc: string, x: string, w: string): Stmt =>
  If('hoist', [Set(acc, `${acc} + ${x} * ${w}`, 'mac')], [Set(acc, `${acc} + (${x} + inputOffset) * ${w}`, 'mac')]);

/**
 * `pixels` buffered pixels (slot p at p * kSize * 124) of the block into output base `o`, 4 channels
 * at a time: channel groups outer for arm_nn_depthwise_conv_nt_t_s8, pixels outer for the left-over
 * pixels (`pixelMajor`), as the C code stores them.
 */
function depthwiseNt(pixels: string, o: string, tag: string, pixelMajor: boolean): Nest {
  const groups = (body: Nest): Stmt => For(`g${tag}`, '0', '(act + 3) / 4', body);
  const pix = (body: Nest): Stmt => For(`p${tag}`, '0', pixels, body);
  const lanes = (): Stmt => For(`t${tag}`, '0', '4', [
    Let(`c${tag}`, `g${tag} * 4 + t${tag}`),
    If(`c${tag} < act`, [
      ...init('acc', `cb + c${tag}`),
      For('tap', '0', 'fH * fW', [
        mac('acc', `scratch[(p${tag} * fH * fW + tap) * ${CH_IN_BLOCK_MVE} + c${tag}]`, `filter[tap * outD + cb + c${tag}]`),
      ]),
      storeRequantized(`${o} + p${tag} * outD + c${tag}`, 'acc', `cb + c${tag}`),
    ]),
  ]);
  return pixelMajor ? [pix([groups([lanes()])])] : [groups([pix([lanes()])])];
}

/** arm_depthwise_conv_s8_opt on MVE (batch 1, ch_mult 1, no dilation). */
export const DW_OPT_MVE: Nest = [
  For('chb', '0', `(inD + ${CH_IN_BLOCK_MVE - 1}) / ${CH_IN_BLOCK_MVE}`, [
    Let('cb', `chb * ${CH_IN_BLOCK_MVE}`),
    Let('act', `min(${CH_IN_BLOCK_MVE}, inD - cb)`),
    For('outY', '0', 'outH', [
      Let('inY0', 'outY * strideH - padH'),
      For('outX', '0', 'outW', [
        Let('inX0', 'outX * strideW - padW'),
        Let('pix', 'outY * outW + outX'),
        For('ky', '0', 'fH', [
          Let('inY', 'inY0 + ky'),
          For('kx', '0', 'fW', [
            Let('inX', 'inX0 + kx'),
            Let('lb', `((pix % 4) * fH * fW + ky * fW + kx) * ${CH_IN_BLOCK_MVE}`),
            If('inX >= 0 && inX < inW && inY >= 0 && inY < inH', [
              Let('inBase', '(inY * inW + inX) * inD + cb'),
              For('c', '0', 'act', [Store('scratch', 'lb + c', 'input[inBase + c]')]),
            ], [
              For('c', '0', 'act', [Store('scratch', 'lb + c', '0 - inputOffset')]),
            ]),
          ]),
        ]),
        If('pix % 4 == 3', [Let('o4', '(pix - 3) * outD + cb'), ...depthwiseNt('4', 'o4', 'F', false)]),
      ]),
    ]),
    Let('oL', '(outH * outW - (outH * outW) % 4) * outD + cb'),
    ...depthwiseNt('(outH * outW) % 4', 'oL', 'L', true),
  ]),
];

/** arm_depthwise_conv_to_conv_s8: transpose [1, H, W, C] into [C, H, W, 1] at fOff in the scratch, then `conv`. */
export function depthwiseAsConv(conv: Nest): Nest {
  return [
    For('h', '0', 'fH', [
      For('w', '0', 'fW', [
        For('c', '0', 'outD', [Store('filter', 'fOff + (c * fH + h) * fW + w', 'wsrc[(h * fW + w) * outD + c]')]),
      ]),
    ]),
    ...conv,
  ];
}
