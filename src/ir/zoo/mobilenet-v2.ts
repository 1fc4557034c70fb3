// MobileNet v2 (Sandler et al. 2018, arXiv:1801.04381, Table 2) following the Keras reference
// (keras.applications.mobilenet_v2): inverted residual blocks (1x1 expand + ReLU6, 3x3 depthwise +
// ReLU6, linear 1x1 projection, ADD when stride 1 and channels match; block 0 has no expansion),
// channels rounded by _make_divisible(., 8), last conv 1280 unless alpha > 1. The head is the
// TFLite hosted models': average pool, 1x1 conv to 1001 classes, reshape, softmax.
import type { Model } from '../graph.ts';
import type { Act } from './graph-builder.ts';
import { GraphBuilder } from './graph-builder.ts';
import { LOGITS } from './weighted-layer.ts';
import { MOBILENET_CLASSES, MOBILENET_INPUT_QUANT } from './mobilenet-v1.ts';

/** (expansion t, output channels c, repeats n, first stride s) of the 7 bottleneck stages. */
const STAGES: readonly (readonly [number, number, number, number])[] = [
  [1, 16, 1, 1], [6, 24, 2, 2], [6, 32, 3, 2], [6, 64, 4, 2], [6, 96, 3, 1], [6, 160, 3, 2], [6, 320, 1, 1],
];

/** Keras' _make_divisible: round to the nearest multiple of `divisor`, never more than 10% down. */
export function makeDivisible(v: number, divisor = 8): number {
  let r = Math.max(divisor, Math.floor(Math.trunc(v + divisor / 2) / divisor) * divisor);
  if (r < 0.9 * v) r += divisor;
  return r;
}

function invertedResidual(b: GraphBuilder, x: Act, filters: number, alpha: number, stride: number, expansion: number, id: number): Act {
  const inChannels = x.shape[3] ?? 0;
  const pointwise = makeDivisible(Math.trunc(filters * alpha));
  const prefix = id === 0 ? 'expanded_conv' : `block_${id}`;
  let h = x;
  if (id !== 0) h = b.conv2d(h, { name: `${prefix}_expand`, outChannels: expansion * inChannels, kernel: 1, activation: 'relu6' });
  h = b.depthwiseConv2d(h, { name: `${prefix}_depthwise`, kernel: 3, stride, activation: 'relu6' });
  h = b.conv2d(h, { name: `${prefix}_project`, outChannels: pointwise, kernel: 1 });
  return inChannels === pointwise && stride === 1 ? b.add(`${prefix}_add`, x, h) : h;
}

export function buildMobileNetV2(alpha: number, resolution: number, seed: string): Model {
  const b = new GraphBuilder(seed);
  let x: Act = b.input('input', [1, resolution, resolution, 3], MOBILENET_INPUT_QUANT);
  x = b.conv2d(x, { name: 'Conv1', outChannels: makeDivisible(32 * alpha), kernel: 3, stride: 2, activation: 'relu6' });
  let id = 0;
  for (const [t, c, n, s] of STAGES) {
    for (let i = 0; i < n; i++) x = invertedResidual(b, x, c, alpha, i === 0 ? s : 1, t, id++);
  }
  const last = alpha > 1 ? makeDivisible(1280 * alpha) : 1280;
  x = b.conv2d(x, { name: 'Conv_1', outChannels: last, kernel: 1, activation: 'relu6' });
  x = b.averagePool2d(x, { name: 'Logits/AvgPool', filter: x.shape[1] ?? 1, stride: 1, padding: 'valid' });
  x = b.conv2d(x, { name: 'Logits/Conv2d_1c_1x1', outChannels: MOBILENET_CLASSES, kernel: 1, ...LOGITS });
  x = b.reshape('Logits/Squeeze', x, [1, MOBILENET_CLASSES]);
  const out = b.softmax('Predictions', x);
  return b.build(`MobileNet v2 ${alpha.toFixed(2)} ${resolution} int8, seeded weights (mcusim zoo)`, [out]);
}
