// MLPerf Tiny keyword spotting DS-CNN (small), as mlcommons/tiny's keyword_spotting/keras_model.py
// ('ds_cnn') defines it and the FDT paper counts it (Table 2: 2.66 M MACs): 49x10x1 MFCC input,
// conv 10x4 stride 2 SAME 64 + ReLU, 4 x (depthwise 3x3 + ReLU, pointwise 64 + ReLU), average
// pool over the whole 25x5 map (as the reference int8 file does; the script asks (24, 5)), flatten,
// FC 12, softmax. BatchNorm folded into the biases, dropout dropped; mlperf-kws also writes the
// flatten the way TensorFlow's converter does (shape tensor [-1, 64], no options).
import type { Model } from '../graph.ts';
import type { ReshapeStyle } from './graph-builder.ts';
import { GraphBuilder } from './graph-builder.ts';
import { LOGITS } from './weighted-layer.ts';

export const KWS_CLASSES = 12;

function buildDsCnn(seed: string, flatten: ReshapeStyle, description: string): Model {
  const b = new GraphBuilder(seed);
  // MFCC features are mostly negative log energies: an illustrative asymmetric range
  // [-105.5, 22] (scale 0.5, zero point 83) exercises the kernels' input offsets.
  let x = b.input('input', [1, 49, 10, 1], { scale: 0.5, zeroPoint: 83 });
  x = b.conv2d(x, { name: 'conv1', outChannels: 64, kernel: [10, 4], stride: 2, activation: 'relu' });
  for (let i = 1; i <= 4; i++) {
    x = b.depthwiseConv2d(x, { name: `dw${i}`, kernel: 3, activation: 'relu' });
    x = b.conv2d(x, { name: `pw${i}`, outChannels: 64, kernel: 1, activation: 'relu' });
  }
  x = b.averagePool2d(x, { name: 'avgpool', filter: [x.shape[1] ?? 1, x.shape[2] ?? 1], padding: 'valid' });
  x = b.reshape('flatten', x, [1, 64], flatten);
  x = b.fullyConnected(x, { name: 'fc', units: KWS_CLASSES, ...LOGITS });
  const out = b.softmax('softmax', x);
  return b.build(description, [out]);
}

export function buildDsCnnKws(seed: string): Model {
  return buildDsCnn(seed, 'tensorAndOptions', 'MLPerf Tiny keyword spotting DS-CNN (small) 49x10x1 int8, seeded weights (mcusim zoo)');
}

/** The MLPerf Tiny KWS reference model (kws_ref_model.tflite) op for op, with seeded weights. */
export function buildMlperfKws(seed: string): Model {
  return buildDsCnn(seed, 'flatten', 'MLPerf Tiny KWS reference DS-CNN 49x10x1 -> 12 int8 (mlcommons/tiny), seeded weights (mcusim zoo)');
}
