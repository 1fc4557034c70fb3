// Test helper: a hand-built TinySeg variant of zoo:tiny-unet, as the paper's optimizer produces it
// (§6.2.1): tensor 3 of Figure 3(b) = the first DoubleConv output (80x120x8, 76,800 B) is spilled
// right after it is produced and fetched back into the decoder's last concatenation (Fetching),
// optionally fused with the following Conv2D (FetchingConv2D).
import type { Graph, Op } from '../../src/ir/index.ts';
import { buildZooModel } from '../../src/ir/index.ts';

export const SKIP_TENSOR = 6;
const PRODUCER = 1;
const CONCAT = 20;

export function originalTinyUnet(): Graph {
  return buildZooModel('tiny-unet').graph;
}

export function spilledTinyUnet(fused: boolean): Graph {
  const g = originalTinyUnet();
  const concat = g.ops[CONCAT];
  const conv = g.ops[CONCAT + 1];
  if (concat?.kind !== 'concatenation' || concat.inputs[0] !== SKIP_TENSOR || conv?.kind !== 'conv2d') {
    throw new Error('zoo:tiny-unet changed shape: update the hand-built variant');
  }
  const up = concat.inputs[1] ?? -1;
  const spill: Op = { kind: 'spill', inputs: [SKIP_TENSOR], outputs: [], options: { id: 0 } };
  const fetch = { victim: 0, nth: 0, axis: 3 };
  const tail: Op[] = fused
    ? [{ kind: 'fetchingConv2d', inputs: [up, ...conv.inputs.slice(1)], outputs: conv.outputs, options: { ...conv.options, ...fetch } }]
    : [{ kind: 'fetching', inputs: [up], outputs: concat.outputs, options: fetch }, conv];
  const ops = [...g.ops.slice(0, PRODUCER + 1), spill, ...g.ops.slice(PRODUCER + 1, CONCAT), ...tail, ...g.ops.slice(CONCAT + 2)];
  return { ...g, ops };
}
