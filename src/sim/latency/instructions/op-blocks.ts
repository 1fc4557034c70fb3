// Which compiled code one op runs in a TFLM build, and how often each of its blocks executes: the
// kernel library (reference / cmsis-nn) and CMSIS-NN's code path (DSP, MVE, plain C, picked by the
// CPU as the build's ARM_MATH_DSP / ARM_MATH_MVEI do) choose the functions (paths-*.ts); the op's
// shapes and parameters give the loop trip counts. An op kind or path without a counter is an error
// naming it, never a guess.
import type { Graph } from '../../../ir/index.ts';
import { InternalError } from '../../../ir/index.ts';
import type { Blocks } from './blocks.ts';
import { addBlock } from './blocks.ts';
import { unsupported } from './op-shapes.ts';
import { cmsisMvePaths, cmsisScalarPaths } from './paths-cmsis.ts';
import { referencePaths } from './paths-reference.ts';
import { sharedPaths } from './paths-shared.ts';

/** The compiled code an op runs: TFLM's reference kernels, or TFLM + CMSIS-NN on one code path. */
export type CodePath = 'reference' | 'dsp' | 'mve' | 'c';

export interface OpBlocks {
  /** The kernel function the op reaches (e.g. 'arm_convolve_1x1_s8_fast'). */
  readonly path: string;
  readonly blocks: Blocks;
}

/**
 * memcpy / memset calls TFLM's Eval makes around the kernel (RuntimeShape and dims copies, broadcast
 * parameter set-up), per op kind, counted in the lab builds (the same C++ in the DSP and MVE builds;
 * the reference build's kernels copy more): priced as one average call each.
 */
const GLUE_CALLS_CMSIS: Partial<Record<string, readonly [number, number]>> = {
  add: [7, 0], mul: [7, 1], sub: [7, 1], averagePool2d: [2, 0], maxPool2d: [2, 0], depthwiseConv2d: [4, 0], fullyConnected: [1, 0],
  transposeConv: [4, 0], pad: [1, 0], resizeBilinear: [6, 0], resizeNearestNeighbor: [5, 0], transpose: [8, 0], logSoftmax: [2, 0],
  dequantize: [2, 0], relu: [2, 0], relu6: [2, 0], leakyRelu: [2, 0], tanh: [2, 0], hardSwish: [2, 0], maximum: [6, 0], minimum: [6, 0],
  squaredDifference: [1, 0], prelu: [6, 0],
};
const GLUE_CALLS_REFERENCE: Partial<Record<string, readonly [number, number]>> = {
  ...GLUE_CALLS_CMSIS, conv2d: [4, 0], fetchingConv2d: [4, 0], fullyConnected: [4, 0], add: [7, 1], softmax: [2, 0], pad: [6, 0], transpose: [2, 0],
  maximum: [3, 0], minimum: [3, 0],
};

/** The Armv6-M build (plain C) copies one more struct in Pad and clears one in Transpose (no unaligned
 * accesses: gcc calls memcpy / memset where the Armv7-M build moves words). */
const GLUE_CALLS_C: Partial<Record<string, readonly [number, number]>> = { ...GLUE_CALLS_CMSIS, pad: [2, 0], transpose: [8, 1] };

function glueCalls(graph: Graph, opIndex: number, code: CodePath): readonly [number, number] {
  const op = graph.ops[opIndex];
  if (op === undefined) return [0, 0];
  // ConcatenationEval copies each input's shape and dims pointer; Quantize copies shapes on its float path;
  // a broadcast binary op sets up three more shapes.
  if (op.kind === 'concatenation') return [1 + 2 * op.inputs.length, 0];
  if (op.kind === 'quantize') return [graph.tensors[op.inputs[0] ?? -1]?.dtype === 'float32' ? 2 : 0, 0];
  const table = code === 'reference' ? GLUE_CALLS_REFERENCE : code === 'c' ? GLUE_CALLS_C : GLUE_CALLS_CMSIS;
  const [mc, ms] = table[op.kind] ?? [0, 0];
  const bcast = ['add', 'mul', 'sub'].includes(op.kind) && (graph.tensors[op.inputs[0] ?? -1]?.shape ?? []).join('x') !== (graph.tensors[op.inputs[1] ?? -1]?.shape ?? []).join('x');
  return [mc + (bcast ? 3 : 0), ms];
}

function withGlueCalls(b: Blocks, graph: Graph, opIndex: number, code: CodePath): void {
  const [mc, ms] = glueCalls(graph, opIndex, code);
  addBlock(b, 'memcpy.glueCall', mc);
  addBlock(b, 'memcpy_c.glueCall', mc);
  addBlock(b, 'memset.glueCall', ms);
}

/** The blocks op `opIndex` executes on `code`. */
export function opBlocks(graph: Graph, opIndex: number, code: CodePath): OpBlocks {
  const op = graph.ops[opIndex];
  if (op === undefined) throw new InternalError(`no op ${opIndex}`);
  const b: Blocks = {};
  if (code === 'dsp' || code === 'c') {
    const path = cmsisScalarPaths(b, graph, opIndex, code === 'dsp') ?? sharedPaths(b, graph, opIndex, false);
    if (path !== null) {
      withGlueCalls(b, graph, opIndex, code);
      return { path, blocks: b };
    }
  }
  if (code === 'reference') {
    const path = referencePaths(b, graph, opIndex) ?? sharedPaths(b, graph, opIndex, false);
    if (path !== null) {
      withGlueCalls(b, graph, opIndex, code);
      return { path, blocks: b };
    }
  }
  if (code === 'mve') {
    const path = cmsisMvePaths(b, graph, opIndex) ?? sharedPaths(b, graph, opIndex, true);
    if (path !== null) {
      withGlueCalls(b, graph, opIndex, code);
      return { path, blocks: b };
    }
  }
  return unsupported(graph, opIndex, `${op.kind} on the ${code} build`);
}
