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
import { sharedPaths } from './paths-shared.ts';

/** The compiled code an op runs: TFLM's reference kernels, or TFLM + CMSIS-NN on one code path. */
export type CodePath = 'reference' | 'dsp' | 'mve' | 'c';

export interface OpBlocks {
  /** The kernel function the op reaches (e.g. 'arm_convolve_1x1_s8_fast'). */
  readonly path: string;
  readonly blocks: Blocks;
}

/**
 * memcpy calls TFLM's Eval makes around the kernel (RuntimeShape and dims struct copies), per op
 * kind, counted in the lab builds: priced as one average call each ('memcpy.glueCall').
 */
const GLUE_MEMCPY: Partial<Record<string, number>> = {
  add: 7, averagePool2d: 2, depthwiseConv2d: 4, fullyConnected: 1, maxPool2d: 2, transposeConv: 4,
  pad: 1, resizeBilinear: 6, resizeNearestNeighbor: 5, transpose: 8, logSoftmax: 2, dequantize: 2,
};

function glueMemcpyCalls(graph: Graph, opIndex: number): number {
  const op = graph.ops[opIndex];
  if (op === undefined) return 0;
  // ConcatenationEval copies each input's shape and dims pointer; Quantize copies shapes on its float path.
  if (op.kind === 'concatenation') return 1 + 2 * op.inputs.length;
  if (op.kind === 'quantize') return graph.tensors[op.inputs[0] ?? -1]?.dtype === 'float32' ? 2 : 0;
  return GLUE_MEMCPY[op.kind] ?? 0;
}

/** The blocks op `opIndex` executes on `code`. */
export function opBlocks(graph: Graph, opIndex: number, code: CodePath): OpBlocks {
  const op = graph.ops[opIndex];
  if (op === undefined) throw new InternalError(`no op ${opIndex}`);
  const b: Blocks = {};
  if (code === 'dsp' || code === 'c') {
    const path = cmsisScalarPaths(b, graph, opIndex, code === 'dsp') ?? sharedPaths(b, graph, opIndex, false);
    if (path !== null) {
      addBlock(b, 'memcpy.glueCall', glueMemcpyCalls(graph, opIndex));
      return { path, blocks: b };
    }
  }
  if (code === 'mve') {
    const path = cmsisMvePaths(b, graph, opIndex) ?? sharedPaths(b, graph, opIndex, true);
    if (path !== null) {
      addBlock(b, 'memcpy.glueCall', glueMemcpyCalls(graph, opIndex));
      return { path, blocks: b };
    }
  }
  return unsupported(graph, opIndex, `${op.kind} on the ${code} build`);
}
