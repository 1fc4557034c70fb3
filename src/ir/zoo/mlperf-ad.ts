// MLPerf Tiny anomaly detection reference model: the fully connected autoencoder of
// mlcommons/tiny's anomaly_detection/keras_model.py (get_model, DCASE 2020 task 2 baseline) on 640
// inputs (5 frames x 128 log-mel bands): dense 128 x 4, bottleneck dense 8, dense 128 x 4, each +
// ReLU, then a linear dense back to 640. BatchNorm folded into the biases; no softmax, the output is
// the reconstruction whose error scores the anomaly.
import type { Model } from '../graph.ts';
import type { Act } from './graph-builder.ts';
import { GraphBuilder } from './graph-builder.ts';

export const AD_INPUT_DIM = 640;

/** Units of the hidden dense layers, encoder then decoder. */
const HIDDEN: readonly number[] = [128, 128, 128, 128, 8, 128, 128, 128, 128];

export function buildMlperfAd(seed: string): Model {
  const b = new GraphBuilder(seed);
  // Log-mel energies in dB, mostly negative: an illustrative range [-90, 12] (scale 0.4, zero point 97).
  let x: Act = b.input('input', [1, AD_INPUT_DIM], { scale: 0.4, zeroPoint: 97 });
  HIDDEN.forEach((units, i) => {
    x = b.fullyConnected(x, { name: `dense_${i}`, units, activation: 'relu' });
  });
  // The reconstruction is linear (no activation): its range is symmetric about the centred outputs.
  x = b.fullyConnected(x, { name: `dense_${HIDDEN.length}`, units: AD_INPUT_DIM });
  return b.build('MLPerf Tiny AD reference FC autoencoder 640 -> 8 -> 640 int8 (mlcommons/tiny), seeded weights (mcusim zoo)', [x]);
}
