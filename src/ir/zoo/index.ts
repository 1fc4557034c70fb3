// The model zoo: deterministic, seeded int8 models built directly as IR (no files). The same
// name always yields identical bytes: every constant is drawn from a seed derived from the
// model's seed and the tensor's name.
import type { Model } from '../graph.ts';
import { UsageError } from '../errors.ts';
import { buildCifar10Cnn } from './cifar10-cnn.ts';
import { buildDsCnnKws, buildMlperfKws } from './ds-cnn-kws.ts';
import { buildMlperfAd } from './mlperf-ad.ts';
import { buildMlperfIc } from './mlperf-ic.ts';
import { buildMlperfVww } from './mlperf-vww.ts';
import { buildMobileNetV1 } from './mobilenet-v1.ts';
import { buildMobileNetV2 } from './mobilenet-v2.ts';
import { buildTinyUnet } from './tiny-unet.ts';

export type { Act, Pair, Conv2dSpec, DepthwiseConv2dSpec, TransposeConvSpec, FullyConnectedSpec, Pool2dSpec } from './graph-builder.ts';
export { GraphBuilder } from './graph-builder.ts';
export type { OutQuantSpec } from './weighted-layer.ts';
export { WEIGHT_SCHEME } from './weighted-layer.ts';
export type { ActQuant, ValueStats } from './value-stats.ts';
export { TINY_UNET_PARAMETERS } from './tiny-unet.ts';
export { makeDivisible } from './mobilenet-v2.ts';

export interface ZooModelInfo {
  readonly name: string;
  readonly description: string;
}

interface ZooEntry extends ZooModelInfo {
  readonly build: (seed: string) => Model;
}

const ZOO: readonly ZooEntry[] = [
  { name: 'tiny-unet', description: "TinySeg's Tiny U-Net segmentation net, 80x120x3 -> 80x120x1", build: buildTinyUnet },
  { name: 'mobilenet-v1-0.25-128', description: 'MobileNet v1, width 0.25, 128x128 input, 1001 classes', build: (s) => buildMobileNetV1(0.25, 128, s) },
  { name: 'mobilenet-v1-1.0-224', description: 'MobileNet v1, width 1.0, 224x224 input, 1001 classes', build: (s) => buildMobileNetV1(1.0, 224, s) },
  { name: 'mobilenet-v2-0.35-224', description: 'MobileNet v2, width 0.35, 224x224 input, 1001 classes', build: (s) => buildMobileNetV2(0.35, 224, s) },
  { name: 'mobilenet-v2-1.0-224', description: 'MobileNet v2, width 1.0, 224x224 input, 1001 classes', build: (s) => buildMobileNetV2(1.0, 224, s) },
  { name: 'cifar10-cnn', description: 'CIFAR-10 CNN of the CMSIS-NN replacement-strategy paper (Table II), 32x32x3 -> 10', build: buildCifar10Cnn },
  { name: 'ds-cnn-kws', description: 'MLPerf Tiny keyword-spotting DS-CNN (small), 49x10x1 MFCC -> 12', build: buildDsCnnKws },
  // The MLPerf Tiny benchmark's four reference models, op for op and shape for shape as the public int8 files.
  { name: 'mlperf-kws', description: 'MLPerf Tiny keyword spotting reference: DS-CNN, 49x10x1 MFCC -> 12 keywords', build: buildMlperfKws },
  { name: 'mlperf-vww', description: 'MLPerf Tiny visual wake words reference: MobileNet v1 0.25, 96x96x3 -> person / no person', build: buildMlperfVww },
  { name: 'mlperf-ic', description: 'MLPerf Tiny image classification reference: ResNet-8, CIFAR-10 32x32x3 -> 10', build: buildMlperfIc },
  { name: 'mlperf-ad', description: 'MLPerf Tiny anomaly detection reference: FC autoencoder, 640 log-mel -> 8 -> 640', build: buildMlperfAd },
];

export function listZooModels(): ZooModelInfo[] {
  return ZOO.map(({ name, description }) => ({ name, description }));
}

export function buildZooModel(name: string): Model {
  const entry = ZOO.find((e) => e.name === name);
  if (entry === undefined) {
    throw new UsageError(`unknown zoo model '${name}'; available: ${ZOO.map((e) => e.name).join(', ')}`);
  }
  return entry.build(`mcusim-zoo/${entry.name}/v1`);
}
