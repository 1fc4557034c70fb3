// MLPerf Tiny image classification reference model: ResNet-8 on CIFAR-10 32x32x3, as mlcommons/tiny's
// image_classification/keras_model.py (resnet_v1_eembc) defines it at the trained model's width 16:
// conv 3x3 16 + ReLU, three residual stacks of 16, 32, 64 filters (3x3 conv + ReLU, 3x3 conv, ADD +
// ReLU; stacks 2 and 3 start at stride 2 and bring the shortcut over with a 1x1 stride-2 conv),
// average pool over the final 8x8 map, flatten, dense 10, softmax. BatchNorm folded into the biases;
// the ReLU after each ADD fused into it, as TensorFlow's converter writes it.
import type { Model } from '../graph.ts';
import type { Act } from './graph-builder.ts';
import { GraphBuilder } from './graph-builder.ts';
import { LOGITS } from './weighted-layer.ts';

export const IC_CLASSES = 10;

/** One residual stack: the identity shortcut when `stride` is 1, else a 1x1 conv onto it. */
function stack(b: GraphBuilder, x: Act, filters: number, stride: number, id: number): Act {
  let y = b.conv2d(x, { name: `stack${id}/conv_a`, outChannels: filters, kernel: 3, stride, activation: 'relu' });
  y = b.conv2d(y, { name: `stack${id}/conv_b`, outChannels: filters, kernel: 3 });
  if (stride === 1) return b.add(`stack${id}/add`, x, y, 'relu');
  // Keras adds [x, y] with x the projected shortcut, built after the residual branch.
  const shortcut = b.conv2d(x, { name: `stack${id}/shortcut`, outChannels: filters, kernel: 1, stride });
  return b.add(`stack${id}/add`, shortcut, y, 'relu');
}

export function buildMlperfIc(seed: string): Model {
  const b = new GraphBuilder(seed);
  // Raw 8-bit pixels 0..255: scale 1, zero point -128 holds every value exactly.
  let x: Act = b.input('input', [1, 32, 32, 3], { scale: 1, zeroPoint: -128 });
  x = b.conv2d(x, { name: 'conv2d', outChannels: 16, kernel: 3, activation: 'relu' });
  x = stack(b, x, 16, 1, 1);
  x = stack(b, x, 32, 2, 2);
  x = stack(b, x, 64, 2, 3);
  x = b.averagePool2d(x, { name: 'average_pooling2d', filter: [x.shape[1] ?? 1, x.shape[2] ?? 1], padding: 'valid' });
  x = b.reshape('flatten', x, [1, x.shape[3] ?? 1], 'flatten');
  x = b.fullyConnected(x, { name: 'dense', units: IC_CLASSES, ...LOGITS });
  const out = b.softmax('softmax', x);
  return b.build('MLPerf Tiny IC reference ResNet-8 32x32x3 -> 10 int8 (mlcommons/tiny), seeded weights (mcusim zoo)', [out]);
}
