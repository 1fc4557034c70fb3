// MobileNet v1 (Howard et al. 2017, arXiv:1704.04861, Table 1) as the TF-slim / TFLite hosted int8
// models lay it out: 3x3/2 conv, 13 depthwise-separable blocks, ReLU6 after every conv, average
// pool over the final R/32 x R/32 map, 1x1 conv to 1001 classes, reshape, softmax. Channel counts
// are TF-slim's depth(d) = max(floor(d * alpha), 8).
import type { Model } from '../graph.ts';
import type { Act } from './graph-builder.ts';
import { GraphBuilder } from './graph-builder.ts';
import { LOGITS } from './weighted-layer.ts';

/** [pointwise output channels at alpha 1, depthwise stride] of the 13 separable blocks. */
export const MOBILENET_V1_BLOCKS: readonly (readonly [number, number])[] = [
  [64, 1], [128, 2], [128, 1], [256, 2], [256, 1], [512, 2],
  [512, 1], [512, 1], [512, 1], [512, 1], [512, 1], [1024, 2], [1024, 1],
];

export const MOBILENET_CLASSES = 1001;

/** Images in [-1, 1): int8 scale 1/128, zero point 0 (the hosted models' uint8 128-offset input). */
export const MOBILENET_INPUT_QUANT = { scale: 1 / 128, zeroPoint: 0 } as const;

export function buildMobileNetV1(alpha: number, resolution: number, seed: string): Model {
  const depth = (d: number): number => Math.max(Math.floor(d * alpha), 8);
  const b = new GraphBuilder(seed);
  let x: Act = b.input('input', [1, resolution, resolution, 3], MOBILENET_INPUT_QUANT);
  x = b.conv2d(x, { name: 'MobilenetV1/Conv2d_0', outChannels: depth(32), kernel: 3, stride: 2, activation: 'relu6' });
  MOBILENET_V1_BLOCKS.forEach(([channels, stride], i) => {
    const id = `MobilenetV1/Conv2d_${i + 1}`;
    x = b.depthwiseConv2d(x, { name: `${id}_depthwise`, kernel: 3, stride, activation: 'relu6' });
    x = b.conv2d(x, { name: `${id}_pointwise`, outChannels: depth(channels), kernel: 1, activation: 'relu6' });
  });
  const side = x.shape[1] ?? 1;
  x = b.averagePool2d(x, { name: 'MobilenetV1/Logits/AvgPool_1a', filter: side, stride: 1, padding: 'valid' });
  x = b.conv2d(x, {
    name: 'MobilenetV1/Logits/Conv2d_1c_1x1', outChannels: MOBILENET_CLASSES, kernel: 1, ...LOGITS,
  });
  x = b.reshape('MobilenetV1/Logits/SpatialSqueeze', x, [1, MOBILENET_CLASSES]);
  const out = b.softmax('MobilenetV1/Predictions/Reshape_1', x);
  return b.build(`MobileNet v1 ${alpha.toFixed(2)} ${resolution} int8, seeded weights (mcusim zoo)`, [out]);
}
