// AveragePool2D, int8: the loop order of TFLM reference_integer_ops::AveragePool (integer_ops/
// pooling.h). The divisor is the number of in-bounds taps, and the rounding is TFLM's
// `acc > 0 ? (acc + n/2) / n : (acc - n/2) / n` with C truncating division (primitive avgRound).
import { For, Let, Set, Store, Val } from '../nest.ts';
import type { KernelSpec } from '../spec.ts';
import { poolConstraints, preparePool } from './pool-common.ts';

export const averagePool2dSpec: KernelSpec<'averagePool2d'> = {
  kind: 'averagePool2d',
  constraints: poolConstraints('averagePool2d'),
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
          Let('taps', '(fyEnd - fyStart) * (fxEnd - fxStart)'),
          Let('outBase', '((b * outH + outY) * outW + outX) * depth'),
          For('ch', '0', 'depth', [
            Val('acc', '0'),
            For('fy', 'fyStart', 'fyEnd', [
              Let('rowBase', '(b * inH + inYOrigin + fy) * inW + inXOrigin'),
              For('fx', 'fxStart', 'fxEnd', [Set('acc', 'acc + input[(rowBase + fx) * depth + ch]')]),
            ]),
            Store('output', 'outBase + ch', 'clamp(avgRound(acc, taps), actMin, actMax)'),
          ]),
        ]),
      ]),
    ]),
  ],
};
