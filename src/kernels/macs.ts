// Multiply-accumulate counts per op, for the latency model and the op tables. Only the
// inner-product ops multiply-accumulate: conv2d out*kh*kw*cin, depthwiseConv2d out*kh*kw,
// transposeConv in*kh*kw*cout (TFLM scatters every input element), fullyConnected out*in.
// Accumulating ops count one per tap: averagePool2d out*fh*fw, mean one per input element;
// add and mul one per output element. Data movement, compares and lookups count 0.
import { ModelError, assertNever, elementCount } from '../ir/index.ts';
import type { Graph, Op, Tensor } from '../ir/index.ts';

/** The tensor in `side` slot `slot` of `op`; a dangling index becomes a coded ModelError. */
function slotTensor(graph: Graph, op: Op, side: 'input' | 'output', slot: number): Tensor | null {
  const index = (side === 'input' ? op.inputs : op.outputs)[slot];
  if (index === undefined || index === -1) return null;
  const t = graph.tensors[index];
  if (t !== undefined) return t;
  const message = `${side} ${slot} names tensor ${index}, which does not exist`;
  throw new ModelError('E_MODEL_INVALID', `${op.kind}: ${message}`, [{ code: 'E_MODEL_INVALID', message, opKind: op.kind, tensorIndex: index }]);
}

function mustTensor(graph: Graph, op: Op, side: 'input' | 'output', slot: number): Tensor {
  const t = slotTensor(graph, op, side, slot);
  if (t !== null) return t;
  const message = `required ${side} ${slot} is missing`;
  throw new ModelError('E_MODEL_INVALID', `${op.kind}: ${message}`, [{ code: 'E_MODEL_INVALID', message, opKind: op.kind }]);
}

function dim(shape: readonly number[], i: number): number {
  return shape[i] ?? 1;
}

/** Multiply-accumulates `op` performs per inference, by the rule above. */
export function countMacs(op: Op, graph: Graph): number {
  const outElems = (): number => elementCount(mustTensor(graph, op, 'output', 0).shape);
  switch (op.kind) {
    case 'conv2d': {
      const f = mustTensor(graph, op, 'input', 1).shape; // [cout, kh, kw, cin]
      return outElems() * dim(f, 1) * dim(f, 2) * dim(f, 3);
    }
    case 'fetchingConv2d': {
      const f = mustTensor(graph, op, 'input', op.inputs.length - 2).shape; // filter after the concat inputs
      return outElems() * dim(f, 1) * dim(f, 2) * dim(f, 3);
    }
    case 'merge': {
      // One Fan-In partition of a tiled conv / FC: [partition, filter slice, bias?, acc?].
      const f = mustTensor(graph, op, 'input', 1).shape; // [cout, kh, kw, cin_part] or [cout, k_part]
      return outElems() * (elementCount(f) / dim(f, 0));
    }
    case 'depthwiseConv2d': {
      const f = mustTensor(graph, op, 'input', 1).shape; // [1, kh, kw, cout]
      return outElems() * dim(f, 1) * dim(f, 2);
    }
    case 'transposeConv': {
      const f = mustTensor(graph, op, 'input', 1).shape; // [cout, kh, kw, cin]
      const inElems = elementCount(mustTensor(graph, op, 'input', 2).shape);
      return inElems * dim(f, 1) * dim(f, 2) * dim(f, 0);
    }
    case 'fullyConnected': {
      const f = mustTensor(graph, op, 'input', 1).shape; // [out, in]
      return outElems() * dim(f, 1);
    }
    case 'averagePool2d':
      return outElems() * op.options.filterH * op.options.filterW;
    case 'mean':
      return elementCount(mustTensor(graph, op, 'input', 0).shape);
    // One squared input accumulated per element (sum of squares of each row).
    case 'l2Normalization':
      return elementCount(mustTensor(graph, op, 'input', 0).shape);
    case 'add':
    case 'mul':
      return outElems();
    case 'maxPool2d':
    case 'concatenation':
    case 'softmax':
    case 'pad':
    case 'reshape':
    case 'quantize':
    case 'dequantize':
    case 'split':
    case 'splitV':
    case 'stridedSlice':
    case 'logistic':
    case 'relu':
    case 'relu6':
    case 'leakyRelu':
    case 'transpose':
    case 'hardSwish':
    case 'logSoftmax':
    case 'tanh':
    case 'elu':
    case 'prelu':
    case 'resizeNearestNeighbor':
    case 'resizeBilinear':
    case 'spill':
    case 'fetching':
    case 'custom':
      return 0;
    default:
      return assertNever(op, 'op kind');
  }
}
