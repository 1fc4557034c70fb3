// The CIFAR-10 CNN of the CMSIS-NN memory-replacement paper (Table II; Caffe's CIFAR-10 example
// as used to test CMSIS-NN): conv 5x5x32, max pool + ReLU, conv 5x5x32 + ReLU, max pool,
// conv 5x5x64 + ReLU, max pool, FC 1024 -> 10, softmax. Pools are 3x3 stride 2 windows as in
// CMSIS-NN's arm_nnexamples_cifar10 (SAME here: 32 -> 16 -> 8 -> 4, as the table lists).
import type { Model } from '../graph.ts';
import { GraphBuilder } from './graph-builder.ts';
import { LOGITS } from './weighted-layer.ts';

export function buildCifar10Cnn(seed: string): Model {
  const b = new GraphBuilder(seed);
  // Pixels in [0, 1]: scale 1/255, zero point -128.
  let x = b.input('input', [1, 32, 32, 3], { scale: 1 / 255, zeroPoint: -128 });
  x = b.conv2d(x, { name: 'conv1', outChannels: 32, kernel: 5 });
  // Table II applies this ReLU after the pool; both commute, and the pool keeps conv1's qparams.
  x = b.maxPool2d(x, { name: 'pool1', filter: 3, stride: 2, padding: 'same', activation: 'relu' });
  x = b.conv2d(x, { name: 'conv2', outChannels: 32, kernel: 5, activation: 'relu' });
  x = b.maxPool2d(x, { name: 'pool2', filter: 3, stride: 2, padding: 'same' });
  x = b.conv2d(x, { name: 'conv3', outChannels: 64, kernel: 5, activation: 'relu' });
  x = b.maxPool2d(x, { name: 'pool3', filter: 3, stride: 2, padding: 'same' });
  x = b.reshape('flatten', x, [1, 1024]);
  x = b.fullyConnected(x, { name: 'ip1', units: 10, ...LOGITS });
  const out = b.softmax('prob', x);
  return b.build('CIFAR-10 CNN (CMSIS-NN example, replacement-strategy paper Table II) int8, seeded weights (mcusim zoo)', [out]);
}
