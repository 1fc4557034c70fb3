// Memory stalls of one op: the weights it walks (bytes, passes) and the flash wait states of weight
// reads the caches miss (FlashReadTiming of the board profile); and the family constant lookup.
import type { Graph } from '../../../ir/index.ts';
import type { CoreFeatures, FlashReadTiming, KernelLibrary, TargetProfile } from '../../targets/index.ts';
import type { FamilyConstant } from './family-constants.ts';
import { FAMILY_CONSTANTS, SIZE_OPTIMIZED_CONSTANTS } from './family-constants.ts';

/** Weights read from flash: `bytes` of constant data, walked `passes` times by the kernel. */
export interface WeightStream {
  readonly bytes: number;
  readonly passes: number;
}

/** A cache holds a layer's weights between passes when they fill at most half of it (the other half
 * holds the activations and, on unified caches, the code). */
const CACHE_SHARE = 0.5;

/**
 * Core cycles one flash access adds beyond the load's own cycle: 1 + waitStates bus clocks on the core's
 * bus; over AXI an address phase, 1 + waitStates clocks to the first beat and one clock per further beat;
 * each bus clock `busClockDivider` core cycles.
 */
export function flashAccessWaitCycles(flash: FlashReadTiming): number {
  const divider = flash.busClockDivider ?? 1;
  const beats = flash.busBytes === undefined ? 1 : Math.max(1, Math.ceil(flash.accessBytes / flash.busBytes));
  const busClocks = (flash.busBytes === undefined ? 0 : 1) + 1 + flash.waitStates + (beats - 1);
  return divider * busClocks - 1;
}

/** Wait-state cycles of reading `w` from flash while `computeCycles` of work run over it. */
export function flashStall(w: WeightStream, computeCycles: number, flash: FlashReadTiming): number {
  const wait = flashAccessWaitCycles(flash);
  if (w.bytes <= 0 || wait <= 0) return 0;
  const cached = w.bytes <= flash.dataCacheBytes * CACHE_SHARE;
  const missedBytes = cached ? w.bytes : w.bytes * w.passes;
  const lines = missedBytes / flash.accessBytes;
  // With a sequential prefetch the next line is read while the current one is consumed: only the
  // wait states beyond the compute spent on a line stall the core.
  const computePerLine = (computeCycles / Math.max(1, w.bytes * w.passes)) * flash.accessBytes;
  const perLine = flash.dataPrefetch ? Math.max(0, wait - computePerLine) : wait;
  return lines * perLine;
}

const constBytes = (graph: Graph, t: number | undefined): number => graph.tensors[t ?? -1]?.data?.length ?? 0;
const dim = (s: readonly number[] | undefined, i: number): number => s?.[i] ?? 1;

/**
 * How often the op's kernel walks its weights: CMSIS-NN's 1x1 stride-1 conv once (weights are the
 * outer loop), per output row for other 1x1 convs, per two (MVE: four) im2col pixels for the others;
 * depthwise per output pixel; fully connected per batch row; everything else once.
 */
export function opWeights(graph: Graph, opIndex: number, core: CoreFeatures): WeightStream[] {
  const op = graph.ops[opIndex];
  if (op === undefined) return [];
  const out = graph.tensors[op.outputs[0] ?? -1]?.shape;
  const pixels = dim(out, 0) * dim(out, 1) * dim(out, 2);
  switch (op.kind) {
    case 'conv2d':
    case 'fetchingConv2d': {
      const slot = op.kind === 'conv2d' ? 1 : op.inputs.length - 2;
      const f = graph.tensors[op.inputs[slot] ?? -1]?.shape;
      const o = op.options;
      const oneByOne = dim(f, 1) === 1 && dim(f, 2) === 1;
      const passes = oneByOne ? (o.strideH === 1 && o.strideW === 1 ? 1 : dim(out, 1)) : Math.ceil(pixels / (core.mve ? 4 : 2));
      return [{ bytes: constBytes(graph, op.inputs[slot]), passes }];
    }
    case 'depthwiseConv2d':
      return [{ bytes: constBytes(graph, op.inputs[1]), passes: pixels }];
    case 'fullyConnected': {
      const n = dim(graph.tensors[op.inputs[1] ?? -1]?.shape, 0);
      return [{ bytes: constBytes(graph, op.inputs[1]), passes: Math.max(1, Math.round((out ?? []).reduce((a, d) => a * d, 1) / n)) }];
    }
    case 'transposeConv':
      return [{ bytes: constBytes(graph, op.inputs[1]), passes: dim(graph.tensors[op.inputs[2] ?? -1]?.shape, 1) }];
    default:
      return [];
  }
}

/** The constant of the board's core family and build: a -Os board build (`target.build`) takes its own where the family has one. */
export function familyConstant(target: TargetProfile, library: KernelLibrary): FamilyConstant {
  const sizeOptimized = target.build?.optimization === '-Os' ? SIZE_OPTIMIZED_CONSTANTS[target.core.family] : undefined;
  return (sizeOptimized ?? FAMILY_CONSTANTS[target.core.family])[library];
}
