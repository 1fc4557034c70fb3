// ResizeNearestNeighbor, int8: TFLM resize_nearest_neighbor.cc (4-D input, constant int32 size)
// and reference_ops::ResizeNearestNeighbor: per output (b, y, x) a memcpy of `depth` elements
// from the input pixel (b, in_y, in_x), whose coordinates GetNearestNeighbor computes in float32
// (resize-common.ts, once here in prepare). No requantization: bytes are copied.
import { For, Let, Store } from '../nest.ts';
import type { KernelSpec } from '../spec.ts';
import { nearestIndices, resizeConstraints, resizeSize } from './resize-common.ts';
import { TFLITE_RESIZE_NEAREST_NEIGHBOR_PARAMS, stock } from '../tflm-memory.ts';

export const resizeNearestNeighborSpec: KernelSpec<'resizeNearestNeighbor'> = {
  kind: 'resizeNearestNeighbor',
  tflmPersistent: stock(TFLITE_RESIZE_NEAREST_NEIGHBOR_PARAMS, null),
  constraints: resizeConstraints('resizeNearestNeighbor'),
  prepare(c) {
    const [batches = 1, inH = 1, inW = 1, depth = 1] = c.input(0)!.shape;
    const [outH, outW] = resizeSize(c.input(1)) ?? [1, 1];
    const o = c.op.options;
    return {
      scalars: { batches, outH, outW, depth, batchStride: inH * inW * depth, rowStride: inW * depth },
      arrays: { inY: nearestIndices(inH, outH, o.alignCorners, o.halfPixelCenters), inX: nearestIndices(inW, outW, o.alignCorners, o.halfPixelCenters) },
      buffers: { input: { kind: 'input', slot: 0 }, output: { kind: 'output', slot: 0 } },
      scratch: [],
    };
  },
  body: [
    For('b', '0', 'batches', [
      For('y', '0', 'outH', [
        Let('rowBase', 'b * batchStride + inY[y] * rowStride'),
        Let('outRow', '(b * outH + y) * outW'),
        For('x', '0', 'outW', [
          Let('src', 'rowBase + inX[x] * depth'),
          Let('dst', '(outRow + x) * depth'),
          For('c', '0', 'depth', [Store('output', 'dst + c', 'input[src + c]')]),
        ]),
      ]),
    ]),
  ],
};
