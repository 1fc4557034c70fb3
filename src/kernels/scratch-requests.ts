// Scratch buffers that TFLM's reference kernels request in Prepare (RequestScratchBufferInArena),
// in request order, in bytes. A stop-gap table until the kernel specs carry their own requests.
// Mirrors transpose_conv.cc Prepare/CalculateOpData and reduce_common.cc PrepareMeanOrSumHelper
// (after tflite-micro PR #3281, which moved MEAN's index arrays from the stack to the arena).
// Every other kind in the IR requests nothing from the reference kernels (int4 filters only).
import { ModelError, elementCount } from '../ir/index.ts';
import type { BuiltinKind, Graph, Op, OpOf, Tensor } from '../ir/index.ts';

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

type ScratchRule<K extends BuiltinKind> = (op: OpOf<K>, graph: Graph) => number[];
type ScratchTable = { readonly [K in BuiltinKind]?: ScratchRule<K> };

const INT32_BYTES = 4;
const INT64_BYTES = 8;

const SCRATCH_RULES: ScratchTable = {
  // int8: one int32 accumulator per output element; int16 (16x8): int64 accumulators, then an
  // int64 copy of an int16 bias. Inputs: [output_shape, filter, input, bias?].
  transposeConv: (op, graph) => {
    const input = mustTensor(graph, op, 'input', 2);
    const outElems = elementCount(mustTensor(graph, op, 'output', 0).shape);
    if (input.dtype === 'int8') return [outElems * INT32_BYTES];
    if (input.dtype === 'int16') {
      const bias = slotTensor(graph, op, 'input', 3);
      const biasCopy = bias !== null && bias.dtype === 'int16' ? [elementCount(bias.shape) * INT64_BYTES] : [];
      return [outElems * INT64_BYTES, ...biasCopy];
    }
    return [];
  },
  // int8/int16: int32 temp sums per output element; then (all types) the temp index array
  // (one int per input dimension) and the resolved axes (one int per axis element).
  mean: (op, graph) => {
    const input = mustTensor(graph, op, 'input', 0);
    const axis = mustTensor(graph, op, 'input', 1);
    const output = mustTensor(graph, op, 'output', 0);
    const sums = input.dtype === 'int8' || input.dtype === 'int16' ? [elementCount(output.shape) * INT32_BYTES] : [];
    return [...sums, input.shape.length * INT32_BYTES, elementCount(axis.shape) * INT32_BYTES];
  },
};

/** Bytes of each scratch buffer `op` requests, in TFLM's request order (empty for most ops). */
export function scratchRequests(op: Op, graph: Graph): number[] {
  if (op.kind === 'custom') return [];
  // The table is keyed by kind, so the rule found takes exactly this op's type.
  const rule = SCRATCH_RULES[op.kind] as ((op: Op, graph: Graph) => number[]) | undefined;
  return rule === undefined ? [] : rule(op, graph);
}
