// Ops a TFLM + CMSIS-NN build runs with TFLM's own kernels (reference_ops and kernels/*.cc: mean,
// quantize, dequantize, resize, concatenation, reshape, log softmax) or with CMSIS-NN's arm_pad_s8 /
// arm_transpose_s8 for int8; TinySeg's Fetching is priced as the concatenation copy it performs.
import type { Graph } from '../../../ir/index.ts';
import { nearestIndices, prepareOp, quantizeMultiplier } from '../../../kernels/index.ts';
import type { Blocks } from './blocks.ts';
import { addBlock } from './blocks.ts';
import { concatenationBlocks, copyBlocks, logSoftmaxBlocks, meanBlocks, padBlocks, quantizeBlocks, resizeBilinearBlocks, resizeNearestBlocks, transposeBlocks } from './reference-counts.ts';
import { constInts, elements, num, scaleOf, shapeOf, unsupported } from './op-shapes.ts';
import { expandDimsBlocks, gatherBlocks, packBlocks, preluBlocks, squeezeBlocks } from './reference-small.ts';

/** Ops that run TFLM's own kernels (no CMSIS-NN variant) or CMSIS-NN's pad / transpose for int8. */
export function sharedPaths(b: Blocks, graph: Graph, opIndex: number, mve: boolean): string | null {
  const op = graph.ops[opIndex];
  if (op === undefined) return null;
  const input = shapeOf(graph, op.inputs[0]);
  const output = shapeOf(graph, op.outputs[0]);
  const inType = graph.tensors[op.inputs[0] ?? -1]?.dtype;
  const outType = graph.tensors[op.outputs[0] ?? -1]?.dtype;
  addBlock(b, `glue.${op.kind}`, 1);
  switch (op.kind) {
    case 'pad': {
      const p = constInts(graph, op.inputs[1]);
      const rank = input.length;
      const pad4 = (i: number, side: 0 | 1): number => (i < 4 - rank ? 0 : p[2 * (i - (4 - rank)) + side] ?? 0);
      const in4 = [...Array(4 - rank).fill(1), ...input];
      padBlocks(b, in4, [0, 1, 2, 3].map((i) => pad4(i, 0)), [0, 1, 2, 3].map((i) => pad4(i, 1)), mve);
      return 'arm_pad_s8';
    }
    case 'mean': {
      const axes = constInts(graph, op.inputs[1]);
      const q = quantizeMultiplier(scaleOf(graph, op.inputs[0]) / scaleOf(graph, op.outputs[0]));
      // QuantizedMeanOrSum folds 1 / (elements per output) into the multiplier: shift - floor(log2 n).
      const perOut = input.reduce((a, d) => a * d, 1) / Math.max(1, output.reduce((a, d) => a * d, 1));
      const fold = Math.min(Math.floor(Math.log2(perOut)), 32, 31 + q.shift);
      meanBlocks(b, input, axes, output.reduce((a, d) => a * d, 1), q.shift - fold);
      return 'reference Mean (QuantizedMeanOrSum)';
    }
    case 'quantize': {
      const n = output.reduce((a, d) => a * d, 1);
      if (inType === 'float32') { quantizeBlocks(b, 'affine', n, 0); return 'reference AffineQuantize'; }
      const same = scaleOf(graph, op.inputs[0]) === scaleOf(graph, op.outputs[0]);
      const zpDiff = (graph.tensors[op.inputs[0] ?? -1]?.quant?.zeroPoint[0] ?? 0) - (graph.tensors[op.outputs[0] ?? -1]?.quant?.zeroPoint[0] ?? 0);
      if (same && inType === 'uint8' && outType === 'int8' && zpDiff === 128) { quantizeBlocks(b, 'xor', n, 0); return 'reference Requantize (xor 0x80)'; }
      quantizeBlocks(b, 'requant', n, quantizeMultiplier(scaleOf(graph, op.inputs[0]) / scaleOf(graph, op.outputs[0])).shift);
      return 'reference Requantize';
    }
    case 'dequantize':
      quantizeBlocks(b, 'dequant', output.reduce((a, d) => a * d, 1), 0);
      return 'reference Dequantize';
    case 'resizeBilinear':
      resizeBilinearBlocks(b, output[0] ?? 1, output[1] ?? 1, output[2] ?? 1, output[3] ?? 1);
      return 'reference ResizeBilinearInteger';
    case 'resizeNearestNeighbor': {
      const o = op.options;
      const ys = nearestIndices(input[1] ?? 1, output[1] ?? 1, o.alignCorners, o.halfPixelCenters);
      const xs = nearestIndices(input[2] ?? 1, output[2] ?? 1, o.alignCorners, o.halfPixelCenters);
      resizeNearestBlocks(b, input, ys, xs, o.alignCorners ? 'align' : o.halfPixelCenters ? 'half' : 'plain');
      return 'reference ResizeNearestNeighbor';
    }
    case 'concatenation': {
      const axis = op.options.axis < 0 ? op.options.axis + output.length : op.options.axis;
      concatenationBlocks(b, op.inputs.map((t) => shapeOf(graph, t)), axis);
      addBlock(b, 'glue.concatenation.input', op.inputs.length);
      return 'reference Concatenation';
    }
    case 'transpose':
      transposeBlocks(b, input, constInts(graph, op.inputs[1]), mve);
      return 'arm_transpose_s8';
    case 'reshape':
      copyBlocks(b, 'EvalReshapeReference', output.reduce((a, d) => a * d, 1));
      return 'reference Reshape (copy)';
    case 'fetching': {
      // TinySeg's Fetching concatenates the fetched slot with its inputs along `axis` (the device read is
      // timed by the storage model): priced as the concatenation copy of the output.
      delete b['glue.fetching'];
      addBlock(b, 'glue.concatenation', 1);
      const axis = op.options.axis < 0 ? op.options.axis + output.length : op.options.axis;
      const parts = [...op.inputs.map((t) => shapeOf(graph, t)), shapeOf(graph, op.options.victim)];
      concatenationBlocks(b, parts, axis);
      addBlock(b, 'glue.concatenation.input', parts.length);
      return 'TinySeg Fetching as reference Concatenation (copy)';
    }
    case 'logSoftmax':
      logSoftmaxBlocks(b, output.slice(0, -1).reduce((a, d) => a * d, 1), output[output.length - 1] ?? 1);
      return 'reference LogSoftmax';
    case 'relu':
    case 'relu6':
    case 'leakyRelu':
    case 'logistic':
    case 'tanh':
    case 'hardSwish':
    case 'sub':
    case 'mul':
    case 'add':
    case 'maximum':
    case 'minimum':
    case 'squaredDifference': {
      // TFLM's element loops (and their 4-D broadcast variants): a fixed call cost and one pass per output element.
      const n = output.reduce((a, d) => a * d, 1);
      const bcast = op.inputs.length > 1 && shapeOf(graph, op.inputs[0]).join('x') !== shapeOf(graph, op.inputs[1]).join('x');
      const key = `glue.${op.kind}${bcast ? '.bcast' : ''}`;
      addBlock(b, `${key}.call`, 1);
      addBlock(b, `${key}.elem`, n);
      if (bcast) addBlock(b, `${key}.row`, output.slice(0, -1).reduce((a, d) => a * d, 1));
      return `reference ${op.kind}${bcast ? ' (broadcast)' : ''}`;
    }
    case 'gather':
    case 'pack':
    case 'unpack':
    case 'squeeze':
    case 'expandDims':
    case 'prelu':
      return smallOpPath(b, graph, opIndex);
    case 'stridedSlice':
    case 'split': {
      const outs = op.outputs.map((t) => shapeOf(graph, t));
      addBlock(b, `glue.${op.kind}.out`, outs.length);
      addBlock(b, `glue.${op.kind}.elem`, outs.reduce((a, o) => a + o.reduce((x, d) => x * d, 1), 0));
      addBlock(b, `glue.${op.kind}.row`, outs.reduce((a, o) => a + o.slice(0, -1).reduce((x, d) => x * d, 1), 0));
      return `reference ${op.kind}`;
    }
    default:
      delete b[`glue.${op.kind}`];
      return null;
  }
}

/** TFLM's gather / pack / unpack / squeeze / expand_dims / PReLU kernels (int8 data; others unmeasured). */
function smallOpPath(b: Blocks, graph: Graph, opIndex: number): string {
  const op = graph.ops[opIndex];
  if (op === undefined) return unsupported(graph, opIndex, 'a missing op');
  const dtype = graph.tensors[op.inputs[0] ?? -1]?.dtype;
  if (dtype !== 'int8') return unsupported(graph, opIndex, `${op.kind} of ${dtype ?? 'unknown'} data (measured on int8)`);
  const input = shapeOf(graph, op.inputs[0]);
  const output = shapeOf(graph, op.outputs[0]);
  switch (op.kind) {
    case 'gather': {
      const rank = input.length;
      const axis = op.options.axis < 0 ? op.options.axis + rank : op.options.axis;
      const coordShape = shapeOf(graph, op.inputs[1]);
      const constant = (graph.tensors[op.inputs[1] ?? -1]?.data ?? null) !== null;
      const batchDims = op.options.batchDims < 0 ? op.options.batchDims + coordShape.length : op.options.batchDims;
      if (!gatherBlocks(b, input, axis, batchDims, coordShape, constant ? constInts(graph, op.inputs[1]) : null)) {
        return unsupported(graph, opIndex, 'gather of rows not a multiple of 4 bytes at runtime indices (memcpy alignment unknown)');
      }
      return 'reference Gather (memcpy per index)';
    }
    case 'pack':
    case 'unpack': {
      const packed = op.kind === 'pack' ? output : input;
      const slice = op.kind === 'pack' ? input : output;
      const axis = op.options.axis < 0 ? op.options.axis + packed.length : op.options.axis;
      packBlocks(b, op.kind, packed, axis, op.kind === 'pack' ? op.inputs.length : op.outputs.length, slice.length);
      return `reference ${op.kind === 'pack' ? 'Pack' : 'Unpack'} (byte loops)`;
    }
    case 'squeeze':
      squeezeBlocks(b, input.length, output.length, elements(graph, op.inputs[0]));
      return 'reference Squeeze (memcpy)';
    case 'expandDims':
      expandDimsBlocks(b, input.length, elements(graph, op.inputs[0]));
      return 'reference ExpandDims (byte loop)';
    case 'prelu': {
      const s = prepareOp(graph, opIndex).prepared.scalars;
      const alpha = graph.tensors[op.inputs[1] ?? -1];
      const alphaZp = alpha?.quant?.zeroPoint[0] ?? 0;
      const alphas = alpha?.data === null || alpha?.data === undefined ? null : Array.from(new Int8Array(alpha.data.buffer, alpha.data.byteOffset, alpha.data.byteLength));
      const positive = alphas === null || alphas.length === 0 ? null : alphas.filter((v) => v > alphaZp).length / alphas.length;
      preluBlocks(b, input, shapeOf(graph, op.inputs[1]), output, num(s, 'shift1'), num(s, 'shift2'), positive);
      return 'reference BroadcastPrelu4DSlow';
    }
    default:
      return unsupported(graph, opIndex, op.kind);
  }
}
