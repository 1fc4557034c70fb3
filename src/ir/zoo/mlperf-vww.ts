// MLPerf Tiny visual wake words reference model: MobileNet v1 at width 0.25 on 96x96x3, as
// mlcommons/tiny's visual_wake_words/vww_model.py (mobilenet_v1) defines it: 3x3/2 conv with 8
// filters, the 13 depthwise-separable blocks of MobileNet v1 (Howard et al. 2017, Table 1) with
// plain ReLU after every conv (not Keras' ReLU6), SAME padding throughout, average pool over the
// final 3x3 map, flatten, dense 2 (person / no person), softmax. BatchNorm folded into the biases.
import type { Model } from '../graph.ts';
import type { Act } from './graph-builder.ts';
import { GraphBuilder } from './graph-builder.ts';
import { MOBILENET_V1_BLOCKS } from './mobilenet-v1.ts';
import { LOGITS } from './weighted-layer.ts';

export const VWW_CLASSES = 2;

/** The reference model's width: 32 * 0.25 = 8 first filters, doubled where MobileNet doubles. */
const ALPHA = 0.25;

export function buildMlperfVww(seed: string): Model {
  const b = new GraphBuilder(seed);
  // Pixels scaled to [0, 1] as the training script feeds them: scale 1/255, zero point -128.
  let x: Act = b.input('input', [1, 96, 96, 3], { scale: 1 / 255, zeroPoint: -128 });
  x = b.conv2d(x, { name: 'conv2d', outChannels: 32 * ALPHA, kernel: 3, stride: 2, activation: 'relu' });
  MOBILENET_V1_BLOCKS.forEach(([channels, stride], i) => {
    x = b.depthwiseConv2d(x, { name: `depthwise_conv2d_${i}`, kernel: 3, stride, activation: 'relu' });
    x = b.conv2d(x, { name: `conv2d_${i + 1}`, outChannels: channels * ALPHA, kernel: 1, activation: 'relu' });
  });
  x = b.averagePool2d(x, { name: 'average_pooling2d', filter: [x.shape[1] ?? 1, x.shape[2] ?? 1], padding: 'valid' });
  x = b.reshape('flatten', x, [1, x.shape[3] ?? 1], 'flatten');
  x = b.fullyConnected(x, { name: 'dense', units: VWW_CLASSES, ...LOGITS });
  const out = b.softmax('softmax', x);
  return b.build('MLPerf Tiny VWW reference MobileNet v1 0.25 96x96x3 -> 2 int8 (mlcommons/tiny), seeded weights (mcusim zoo)', [out]);
}
