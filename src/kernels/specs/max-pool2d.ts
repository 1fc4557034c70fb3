// MaxPool2D, int8: the loop order of TFLM reference_integer_ops::MaxPool (integer_ops/pooling.h):
// batch, out_y, out_x, channel, then the in-bounds filter window clipped by its start/end bounds;
// the running max starts at -128 and is clamped to the activation range.
import { For, Let, Set, Store, Val } from '../nest.ts';
import type { KernelSpec } from '../spec.ts';
import { poolConstraints, preparePool } from './pool-common.ts';

export const maxPool2dSpec: KernelSpec<'maxPool2d'> = {
  kind: 'maxPool2d',
  constraints: poolConstraints('maxPool2d'),
  prepare: preparePool,
  body: [
    For('b', '0', 'batches', [
      For('outY', '0', 'outH', [
        Let('inYOrigin', 'outY * strideH - padH'),
        Let('fyStart', 'max(0, -inYOrigin)'),
        Let('fyEnd', 'min(fH, inH - inYOrigin)'),
        For('outX', '0', 'outW', [
          Let('inXOrigin', 'outX * strideW - padW'),
          Let('fxStart', 'max(0, -inXOrigin)'),
          Let('fxEnd', 'min(fW, inW - inXOrigin)'),
          Let('outBase', '((b * outH + outY) * outW + outX) * depth'),
          For('ch', '0', 'depth', [
            Val('m', '-128'),
            For('fy', 'fyStart', 'fyEnd', [
              Let('rowBase', '(b * inH + inYOrigin + fy) * inW + inXOrigin'),
              For('fx', 'fxStart', 'fxEnd', [Set('m', 'max(m, input[(rowBase + fx) * depth + ch])')]),
            ]),
            Store('output', 'outBase + ch', 'clamp(m, actMin, actMax)'),
          ]),
        ]),
      ]),
    ]),
  ],
};
