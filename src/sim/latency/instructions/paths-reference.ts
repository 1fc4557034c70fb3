// The ops TFLM's reference build (`--kernels reference`) runs with kernels other than the CMSIS-NN build's:
// conv, depthwise, fully connected, add, mul, pools, softmax, transpose conv, pad and transpose through
// reference_ops / reference_integer_ops; every other op runs the same TFLM kernel as in the CMSIS-NN
// build (paths-shared.ts). mcusim's own conv-like ops are priced as the reference kernel of their geometry.
import type { Graph } from '../../../ir/index.ts';
import type { Prepared } from '../../../kernels/index.ts';
import { prepareOp } from '../../../kernels/index.ts';
import type { Blocks } from './blocks.ts';
import { addBlock } from './blocks.ts';
import { constInts, convShape, elements, leftShiftsOf, num, poolShape, sameShape, shapeOf } from './op-shapes.ts';
import { refConvBlocks, refPadBlocks, refTransposeBlocks, refDepthwiseBlocks, refElementwiseBlocks, refFullyConnectedBlocks, refPoolBlocks, refSoftmaxBlocks, refTransposeConvBlocks } from './reference-kernels.ts';

export function referencePaths(b: Blocks, graph: Graph, opIndex: number): string | null {
  const op = graph.ops[opIndex];
  if (op === undefined) return null;
  const prepared = (): Prepared => prepareOp(graph, opIndex).prepared;
  switch (op.kind) {
    case 'conv2d':
    case 'fetchingConv2d': {
      const p = prepared();
      addBlock(b, 'glue.conv2d', 1);
      refConvBlocks(b, convShape(p.scalars, p.arrays));
      return `${op.kind === 'fetchingConv2d' ? 'TinySeg FetchingConv2D as ' : ''}reference ConvPerChannel`;
    }
    case 'merge': {
      const p = prepared();
      if ((p.flags?.['conv'] ?? 0) === 1) {
        addBlock(b, 'glue.conv2d', 1);
        refConvBlocks(b, convShape(p.scalars, p.arrays));
        return 'FDT Merge as reference ConvPerChannel';
      }
      addBlock(b, 'glue.fullyConnected', 1);
      refFullyConnectedBlocks(b, num(p.scalars, 'batches'), num(p.scalars, 'accum'), num(p.scalars, 'outD'), leftShiftsOf(p.arrays));
      return 'FDT Merge as reference FullyConnected';
    }
    case 'depthwiseConv2d': {
      const p = prepared();
      addBlock(b, 'glue.depthwiseConv2d', 1);
      refDepthwiseBlocks(b, convShape(p.scalars, p.arrays), num(p.scalars, 'depthMult'));
      return 'reference DepthwiseConvPerChannel';
    }
    case 'fullyConnected': {
      const p = prepared();
      const [n = 1, k = 1] = shapeOf(graph, op.inputs[1]);
      addBlock(b, 'glue.fullyConnected', 1);
      refFullyConnectedBlocks(b, Math.max(1, Math.round(elements(graph, op.outputs[0]) / n)), k, n, leftShiftsOf(p.arrays));
      return 'reference FullyConnected';
    }
    case 'add':
    case 'mul': {
      if (!sameShape(graph, op.inputs[0], op.inputs[1])) return null;
      const s = prepared().scalars;
      addBlock(b, `glue.${op.kind}`, 1);
      refElementwiseBlocks(b, op.kind, elements(graph, op.outputs[0]), op.kind === 'mul' ? num(s, 'shift') : 0);
      return `reference ${op.kind}`;
    }
    case 'maxPool2d':
    case 'averagePool2d':
      addBlock(b, `glue.${op.kind}`, 1);
      refPoolBlocks(b, op.kind === 'maxPool2d' ? 'MaxPool' : 'AverageEval', poolShape(prepared().scalars));
      return `reference ${op.kind === 'maxPool2d' ? 'MaxPool' : 'AveragePool'}`;
    case 'softmax': {
      const s = prepared().scalars;
      addBlock(b, 'glue.softmax', 1);
      refSoftmaxBlocks(b, num(s, 'outer'), num(s, 'depth'));
      return 'reference Softmax';
    }
    case 'transposeConv': {
      const p = prepared();
      addBlock(b, 'glue.transposeConv', 1);
      refTransposeConvBlocks(b, convShape({ ...p.scalars, dilH: 1, dilW: 1 }, p.arrays));
      return 'reference TransposeConv';
    }
    case 'pad': {
      const input = shapeOf(graph, op.inputs[0]);
      const p = constInts(graph, op.inputs[1]);
      addBlock(b, 'glue.pad', 1);
      refPadBlocks(b, input, [...input.map((_, i) => p[2 * i] ?? 0), ...input.map((_, i) => p[2 * i + 1] ?? 0)]);
      return 'reference Pad';
    }
    case 'transpose':
      addBlock(b, 'glue.transpose', 1);
      refTransposeBlocks(b, shapeOf(graph, op.outputs[0]));
      return 'reference Transpose';
    default:
      return null;
  }
}
