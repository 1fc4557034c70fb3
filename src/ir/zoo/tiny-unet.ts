// TinySeg's Tiny U-Net (Jeong et al., LCTES 2024, Table 2; DESIGN.md section 7): 80x120x3 input,
// DoubleConv(8), Down(16/32/64) = 2x2 max pool + DoubleConv, Up(32/16/8) = 2x2 stride-2
// TransposeConv to half the channels, concat [skip, up], DoubleConv; 1x1 conv to 1 class.
// DoubleConv = two 3x3 SAME convs with ReLU, BatchNorm folded into the conv bias.
import type { Model } from '../graph.ts';
import type { Act } from './graph-builder.ts';
import { GraphBuilder } from './graph-builder.ts';

/**
 * Weights + biases of this graph. The paper's 109,725 counts the PyTorch model, whose 14
 * DoubleConv convs have no bias but a BatchNorm (gamma, beta) per channel: folding BN leaves one
 * bias per channel, so 109,725 = 109,373 - 352 (folded biases) + 704 (BN parameters).
 */
export const TINY_UNET_PARAMETERS = 109_373;

function doubleConv(b: GraphBuilder, x: Act, channels: number, name: string, skip: boolean): Act {
  const h = b.conv2d(x, { name: `${name}/conv1`, outChannels: channels, kernel: 3, activation: 'relu' });
  // A skip is concatenated with a linear TransposeConv output under one shared quantization,
  // so it gets a signed range (ReLU clamps at zero point 0) that the up branch also fits.
  return b.conv2d(h, { name: `${name}/conv2`, outChannels: channels, kernel: 3, activation: 'relu', outQuant: skip ? 'signed' : 'auto' });
}

function down(b: GraphBuilder, x: Act, channels: number, name: string, skip: boolean): Act {
  const p = b.maxPool2d(x, { name: `${name}/maxpool`, filter: 2, stride: 2, padding: 'valid' });
  return doubleConv(b, p, channels, name, skip);
}

function up(b: GraphBuilder, x: Act, skip: Act, channels: number, name: string): Act {
  // Same quantization as the skip: TFLM's CONCATENATION needs identical input/output qparams.
  const u = b.transposeConv(x, { name: `${name}/up`, outChannels: channels / 2, kernel: 2, stride: 2, padding: 'valid', outQuant: skip.quant });
  const cat = b.concatenation(`${name}/concat`, [skip, u]);
  return doubleConv(b, cat, channels, name, false);
}

export function buildTinyUnet(seed: string): Model {
  const b = new GraphBuilder(seed);
  // Images in [0, 1]: scale 1/255, zero point -128.
  const input = b.input('input', [1, 80, 120, 3], { scale: 1 / 255, zeroPoint: -128 });
  const x1 = doubleConv(b, input, 8, 'inc', true);
  const x2 = down(b, x1, 16, 'down1', true);
  const x3 = down(b, x2, 32, 'down2', true);
  const x4 = down(b, x3, 64, 'down3', false);
  let x = up(b, x4, x3, 32, 'up1');
  x = up(b, x, x2, 16, 'up2');
  x = up(b, x, x1, 8, 'up3');
  const out = b.conv2d(x, { name: 'outc', outChannels: 1, kernel: 1 });
  return b.build('Tiny U-Net (TinySeg) 80x120x3 -> 80x120x1 int8, seeded weights (mcusim zoo)', [out]);
}
