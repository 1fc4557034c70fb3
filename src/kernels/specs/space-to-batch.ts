// SpaceToBatchND and BatchToSpaceND: TFLM reference_ops (space_to_batch_nd.h, batch_to_space_nd.h)
// on 4-D NHWC, a 3-D input taken as [N, H, 1, C] with block width 1 and no width padding / crops.
// SpaceToBatch walks the output (b, h, w) and copies a depth row from the input, or memsets it to
// SpaceToBatchParams.output_offset where it falls in the padding. TFLM's Prepare never sets that
// field (not to the zero point either): it keeps the 0 of the fresh persistent buffer, so the
// padding is 0 whatever the output zero point (the goldens agree).
// BatchToSpace walks the input (b, h, w), skipping rows and columns the crops remove. Block shape
// and paddings / crops must be constant int32 tensors here; TFLM evaluates float32 and int8.
import { For, If, Let, Store } from '../nest.ts';
import type { KernelSpec, OpContext } from '../spec.ts';
import { constraint, unaryPrepared } from './common.ts';
import { constInt32s, sameShape } from './copy-common.ts';
import { SPACE_TO_BATCH_PARAMS, stock } from '../tflm-memory.ts';

type Kind = 'spaceToBatchNd' | 'batchToSpaceNd';

interface Geometry {
  /** Input and output as 4-D [N, H, W, C]. */
  readonly x: readonly number[];
  readonly y: readonly number[];
  readonly bh: number;
  readonly bw: number;
  /** Paddings (space to batch) or crops (batch to space): top, left. */
  readonly top: number;
  readonly left: number;
}

const as4d = (s: readonly number[]): number[] => (s.length === 3 ? [s[0] ?? 0, s[1] ?? 0, 1, s[2] ?? 0] : [...s]);

/** The 4-D geometry, or null when the shapes, block shape or paddings / crops do not fit. */
function geometry(c: Pick<OpContext, 'input' | 'output'>, toSpace: boolean): Geometry | null {
  const xs = c.input(0)?.shape ?? [];
  const block = constInt32s(c.input(1));
  const pads = constInt32s(c.input(2));
  const r = xs.length;
  if ((r !== 3 && r !== 4) || block === null || pads === null || block.length !== r - 2 || pads.length !== 2 * (r - 2)) return null;
  if (block.some((b) => b < 1) || pads.some((p) => p < 0)) return null;
  const [bh = 1, bw = 1] = block;
  const [top = 0, bottom = 0, left = 0, right = 0] = pads;
  const x = as4d(xs);
  const [n = 0, h = 0, w = 0, ch = 0] = x;
  let y: number[];
  if (toSpace) {
    if (n % (bh * bw) !== 0) return null;
    y = [n / (bh * bw), h * bh - top - bottom, w * bw - left - right, ch];
  } else {
    if ((h + top + bottom) % bh !== 0 || (w + left + right) % bw !== 0) return null;
    y = [n * bh * bw, (h + top + bottom) / bh, (w + left + right) / bw, ch];
  }
  if (y.some((d) => d < 0) || !sameShape(as4d(c.output(0).shape), y) || c.output(0).shape.length !== r) return null;
  return { x, y, bh, bw, top, left };
}

function spaceBatchSpec<K extends Kind>(kind: K, toSpace: boolean): KernelSpec<K> {
  const what = toSpace ? 'crops' : 'paddings';
  return {
    kind,
    // Neither parser allocates; space_to_batch_nd.cc's Init allocates SpaceToBatchParams, batch_to_space_nd.cc has no Init.
    tflmPersistent: stock(null, toSpace ? null : SPACE_TO_BATCH_PARAMS),
    constraints: [
      constraint(`${kind}.types`, 'input and output must be int8', (c) => c.input(0)?.dtype === 'int8' && c.output(0).dtype === 'int8'),
      constraint(`${kind}.shape`, `input must be 3-D or 4-D; block_shape and ${what} constant int32 tensors (one block size and two ${what} per spatial dim, non-negative) that give the output shape`, (c) =>
        geometry(c, toSpace) !== null),
    ],
    prepare(c) {
      const g = geometry(c, toSpace) as Geometry;
      const [xn = 0, xh = 0, xw = 0, ch = 0] = g.x;
      const [yn = 0, yh = 0, yw = 0] = g.y;
      return unaryPrepared({ xn, xh, xw, yn, yh, yw, ch, bh: g.bh, bw: g.bw, top: g.top, left: g.left, pad: 0 });
    },
    body: toSpace
      ? [
        For('ib', '0', 'xn', [
          Let('ob', 'ib % yn'),
          Let('spatial', 'ib / yn'),
          For('ih', '0', 'xh', [
            Let('oh', 'ih * bh + spatial / bw - top'),
            If('oh >= 0 && oh < yh', [
              For('iw', '0', 'xw', [
                Let('ow', 'iw * bw + spatial % bw - left'),
                If('ow >= 0 && ow < yw', [
                  Let('outAt', '((ob * yh + oh) * yw + ow) * ch'),
                  Let('inAt', '((ib * xh + ih) * xw + iw) * ch'),
                  For('c', '0', 'ch', [Store('output', 'outAt + c', 'input[inAt + c]')]),
                ]),
              ]),
            ]),
          ]),
        ]),
      ]
      : [
        For('ob', '0', 'yn', [
          Let('ib', 'ob % xn'),
          Let('shiftW', '(ob / xn) % bw'),
          Let('shiftH', '(ob / xn) / bw'),
          For('oh', '0', 'yh', [
            Let('ph', 'oh * bh + shiftH'),
            For('ow', '0', 'yw', [
              Let('pw', 'ow * bw + shiftW'),
              Let('outAt', '((ob * yh + oh) * yw + ow) * ch'),
              If('ph < top || ph >= top + xh || pw < left || pw >= left + xw',
                [For('c', '0', 'ch', [Store('output', 'outAt + c', 'pad')])],
                [Let('inAt', '((ib * xh + ph - top) * xw + pw - left) * ch'), For('c', '0', 'ch', [Store('output', 'outAt + c', 'input[inAt + c]')])]),
            ]),
          ]),
        ]),
      ],
  };
}

export const spaceToBatchNdSpec: KernelSpec<'spaceToBatchNd'> = spaceBatchSpec('spaceToBatchNd', false);
export const batchToSpaceNdSpec: KernelSpec<'batchToSpaceNd'> = spaceBatchSpec('batchToSpaceNd', true);
