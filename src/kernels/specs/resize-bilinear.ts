// ResizeBilinear, int8: TFLM resize_bilinear.cc (4-D input, constant int32 size, not both
// align_corners and half_pixel_centers) and reference_ops::ResizeBilinearInteger: per output
// element the four taps (y0,x0), (y1,x0), (y0,x1), (y1,x1) weighted in 1/1024 steps, the 20-bit
// sum rounded half away from zero (the default build, not TFLITE_SINGLE_ROUNDING).
// The four products stay below 2^31: |tap| <= 128 and every weight pair product <= 1536^2.
import { For, Let, Store, Val } from '../nest.ts';
import type { KernelSpec, OpContext } from '../spec.ts';
import { constraint } from './common.ts';
import { bilinearTaps, resizeConstraints, resizeSize } from './resize-common.ts';
import { TFLITE_RESIZE_BILINEAR_PARAMS, stock } from '../tflm-memory.ts';

function taps(c: OpContext<'resizeBilinear'>): { y: ReturnType<typeof bilinearTaps>; x: ReturnType<typeof bilinearTaps> } {
  const [, inH = 1, inW = 1] = c.input(0)!.shape;
  const [outH, outW] = resizeSize(c.input(1)) ?? [1, 1];
  const o = c.op.options;
  return { y: bilinearTaps(inH, outH, o.alignCorners, o.halfPixelCenters), x: bilinearTaps(inW, outW, o.alignCorners, o.halfPixelCenters) };
}

export const resizeBilinearSpec: KernelSpec<'resizeBilinear'> = {
  kind: 'resizeBilinear',
  tflmPersistent: stock(TFLITE_RESIZE_BILINEAR_PARAMS, null),
  constraints: [
    ...resizeConstraints('resizeBilinear'),
    constraint('resizeBilinear.flags', 'align_corners and half_pixel_centers must not both be true', (c) =>
      !(c.op.options.alignCorners && c.op.options.halfPixelCenters)),
    // Large upscales can round the 10-bit scale up far enough that TFLM reads past the input.
    constraint('resizeBilinear.in-bounds', 'every interpolation tap must lie inside the input (TFLM would read out of bounds)', (c) => {
      const [, inH = 1, inW = 1] = c.input(0)!.shape;
      const t = taps(c);
      return t.y.lower.every((v) => v < inH) && t.x.lower.every((v) => v < inW);
    }),
  ],
  prepare(c) {
    const [batches = 1, inH = 1, inW = 1, depth = 1] = c.input(0)!.shape;
    const [outH, outW] = resizeSize(c.input(1)) ?? [1, 1];
    const t = taps(c);
    return {
      scalars: { batches, outH, outW, depth, batchStride: inH * inW * depth, rowStride: inW * depth },
      arrays: { y0: t.y.lower, y1: t.y.upper, dy: t.y.frac, x0: t.x.lower, x1: t.x.upper, dx: t.x.frac },
      buffers: { input: { kind: 'input', slot: 0 }, output: { kind: 'output', slot: 0 } },
      scratch: [],
    };
  },
  body: [
    For('b', '0', 'batches', [
      For('y', '0', 'outH', [
        Let('r0', 'b * batchStride + y0[y] * rowStride'),
        Let('r1', 'b * batchStride + y1[y] * rowStride'),
        Let('wy1', 'dy[y]'),
        Let('wy0', '1024 - dy[y]'),
        Let('outRow', '(b * outH + y) * outW'),
        For('x', '0', 'outW', [
          Let('c0', 'x0[x] * depth'),
          Let('c1', 'x1[x] * depth'),
          Let('wx1', 'dx[x]'),
          Let('wx0', '1024 - dx[x]'),
          Let('dst', '(outRow + x) * depth'),
          For('c', '0', 'depth', [
            Val('s', 'input[r0 + c0 + c] * wy0 * wx0 + input[r1 + c0 + c] * wy1 * wx0 + input[r0 + c1 + c] * wy0 * wx1 + input[r1 + c1 + c] * wy1 * wx1'),
            Store('output', 'dst + c', '(s + select(s > 0, 524288, -524288)) / 1048576'),
          ]),
        ]),
      ]),
    ]),
  ],
};
