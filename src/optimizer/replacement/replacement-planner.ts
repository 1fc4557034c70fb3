// The replacement strategy of Sakr et al. ("Memory-Efficient CMSIS-NN with Replacement
// Strategy", §IV, Table I, eq 1): one total buffer; a pooling output is written in place of
// (at or below the start of) its dying input; any other op's output goes beside its still-live
// input. Buffers are placed in execution order at the lowest address; graph inputs last.
import type { OpKind } from '../../ir/index.ts';
import { lowestFit, indexPairs, verifyPlanWithOverlaps, planExtentBytes } from '../planners/index.ts';
import type { SafeOverlapPair, BufferRequest, Plan } from '../planners/index.ts';

/** One op of the graph, in execution order, with its data buffers as request ids. */
export interface ReplacementOp {
  readonly kind: OpKind;
  readonly inputIds: readonly number[];
  readonly outputIds: readonly number[];
}

export interface ReplacementOptions {
  readonly alignmentBytes?: number;
  /** Ops whose output may replace their input; the paper names pooling only. */
  readonly inPlaceKinds?: readonly OpKind[];
  /** The in-place overlaps to use instead of O_s = output size (e.g. the exact O_s of each pooling op). */
  readonly overlaps?: readonly SafeOverlapPair[];
}

export interface ReplacementFootprint {
  /** Paper eq 1: max over ops of needed_buff_size, graph inputs excluded (Table III "proposed"). */
  readonly totalBufferBytes: number;
  /** CMSIS-NN's count: the sum of the convolution outputs (Table III "CMSIS-NN"). */
  readonly cmsisBaselineBytes: number;
}

export const POOLING_KINDS: readonly OpKind[] = ['maxPool2d', 'averagePool2d'];
const CONVOLUTIONS: readonly OpKind[] = ['conv2d', 'depthwiseConv2d'];

/** In-place pairs: the single output of an in-place op over its single input, if that input dies there. */
function inPlacePairs(requests: readonly BufferRequest[], ops: readonly ReplacementOp[], kinds: readonly OpKind[]): SafeOverlapPair[] {
  const pairs: SafeOverlapPair[] = [];
  for (const op of ops) {
    const [inputId] = op.inputIds;
    const [outputId] = op.outputIds;
    if (!kinds.includes(op.kind) || op.inputIds.length !== 1 || op.outputIds.length !== 1) continue;
    if (inputId === undefined || outputId === undefined) continue;
    const input = requests[inputId];
    const output = requests[outputId];
    if (!input || !output || input.lastStep > output.firstStep) continue;
    // O_s = output size: the input may start at the output's start or above.
    pairs.push({ inputId, outputId, safeOverlapBytes: output.sizeBytes });
  }
  return pairs;
}

export function planReplacement(requests: readonly BufferRequest[], ops: readonly ReplacementOp[], options: ReplacementOptions = {}): Plan {
  const alignment = options.alignmentBytes ?? 16;
  const overlaps = options.overlaps ?? inPlacePairs(requests, ops, options.inPlaceKinds ?? POOLING_KINDS);
  const pairs = indexPairs(requests, overlaps);
  const produced = new Set(ops.flatMap((op) => op.outputIds));
  const offsets = requests.map((r) => r.offlineOffsetBytes ?? -1);
  const byStep = (x: BufferRequest, y: BufferRequest): number => x.firstStep - y.firstStep || x.id - y.id;
  const online = requests.filter((r) => r.offlineOffsetBytes === null);
  const order = [...online.filter((r) => produced.has(r.id)).sort(byStep), ...online.filter((r) => !produced.has(r.id)).sort(byStep)];
  for (const r of order) offsets[r.id] = lowestFit(r, requests, offsets, pairs, alignment);
  const plan: Plan = { planner: 'replacement', offsets, peakBytes: planExtentBytes(requests, offsets) };
  verifyPlanWithOverlaps(requests, plan, overlaps);
  return plan;
}

/** The paper's own accounting of the activation memory, for Table III. */
export function replacementFootprint(requests: readonly BufferRequest[], ops: readonly ReplacementOp[]): ReplacementFootprint {
  const produced = new Set(ops.flatMap((op) => op.outputIds));
  const size = (ids: readonly number[], onlyProduced: boolean): number =>
    ids.reduce((s, id) => s + (onlyProduced && !produced.has(id) ? 0 : (requests[id]?.sizeBytes ?? 0)), 0);
  let total = 0;
  let cmsis = 0;
  for (const op of ops) {
    const input = size(op.inputIds, true);
    const output = size(op.outputIds, false);
    // Table I: pooling needs the current layer's maps only; anything else needs both.
    total = Math.max(total, POOLING_KINDS.includes(op.kind) ? Math.max(input, output) : input + output);
    if (CONVOLUTIONS.includes(op.kind)) cmsis += output;
  }
  return { totalBufferBytes: total, cmsisBaselineBytes: cmsis };
}
