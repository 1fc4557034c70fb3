// Compute cycles of one op on the main core (DESIGN.md §3 "Cost model", issue 54): the instructions
// the op executes in the board's TFLM build (instructions/: block counts from the kernel's loop bounds
// priced by measured block costs, per instruction class), turned into cycles by the core's pipeline
// (targets/core-timing.ts), plus flash wait states on weights the caches do not hold, times the core
// family's one fitted constant. An op the instruction model does not cover is priced from its spec's
// loop nest and marked `estimated`; nothing is silently zero.
import type { Graph, Op } from '../../ir/index.ts';
import { InternalError, McusimError } from '../../ir/index.ts';
import type { KernelLibrary, TargetProfile, TimedClass } from '../targets/index.ts';
import { CORE_TIMING, classCycles } from '../targets/index.ts';
import { costInstance, countCostCached } from './cost-counts.ts';
import type { ClassCounts, InstructionBuild } from './instructions/index.ts';
import { INTERPRETER_MIX, instructionBuild, opInstructions } from './instructions/index.ts';
import type { Engine } from './kernel-cost/index.ts';
import { AOT_OP_INSTRUCTIONS, familyConstant, flashStall, opWeights } from './kernel-cost/index.ts';

export interface OpCompute {
  /** The kernel's code path (e.g. 'arm_convolve_1x1_s8_fast'). */
  readonly path: string;
  readonly macs: number;
  /** Instructions of the op's window: its kernel and TFLM's per-op glue (AOT: the kernel and one call). */
  readonly instructions: number;
  readonly classes: ClassCounts;
  /** True when no measured instruction model covers the op (priced from its spec's loop nest). */
  readonly estimated: boolean;
  /** The build whose measured costs priced the op, or why none did. */
  readonly build: string;
  /** Instructions priced by the core's cycles per class. */
  readonly computeCycles: number;
  /** Flash wait states on weight reads the caches miss. */
  readonly flashStallCycles: number;
  /** constant x (compute + flash). */
  readonly cycles: number;
}

/** MACs of an op's nest (countCost on the reference spec); 0 for ops it cannot count. */
export function opMacs(graph: Graph, opIndex: number): number {
  const op = graph.ops[opIndex];
  if (op === undefined || op.kind === 'spill' || op.kind === 'custom') return 0;
  try { return countCostCached(costInstance(graph, opIndex)).macs; } catch { return 0; }
}

/**
 * No measured model: instructions from the spec's nest (per byte loaded / stored, per MAC, per
 * primitive call, plus a call's glue), figures of the measured reference kernels' element loops.
 */
function estimateFromNest(graph: Graph, opIndex: number): { instructions: number; classes: ClassCounts } {
  const op = graph.ops[opIndex];
  if (op?.kind === 'spill') return { instructions: 0, classes: {} };
  const c = countCostCached(costInstance(graph, opIndex));
  const prims = Object.values(c.primitiveCalls).reduce((a, b) => a + b, 0);
  const loads = c.arenaLoadBytes + c.constLoadBytes + c.storageLoadBytes;
  const classes: ClassCounts = {
    alu: 3 * loads + 2 * c.arenaStoreBytes + 2 * c.macs + 12 * prims + 200,
    mul: c.macs,
    load: loads,
    store: c.arenaStoreBytes,
    condBack: loads,
    jump: 20,
  };
  return { instructions: Object.values(classes).reduce((a, b) => a + (b ?? 0), 0), classes };
}

const NONE: ClassCounts = {};

function opPricing(graph: Graph, opIndex: number, build: InstructionBuild | null, engine: Engine): { path: string; instructions: number; classes: ClassCounts; estimated: boolean } {
  const op = graph.ops[opIndex] as Op;
  if (op.kind === 'spill') return { path: 'spill (storage: timed by the storage model)', instructions: 0, classes: NONE, estimated: false };
  if (build !== null) {
    try {
      const r = opInstructions(graph, opIndex, build, engine === 'tflm');
      return { ...r, instructions: r.instructions + (engine === 'aot' ? AOT_OP_INSTRUCTIONS : 0), estimated: false };
    } catch (e) {
      if (!(e instanceof McusimError) || e.code !== 'E_MODEL_UNSUPPORTED_OP') throw e;
    }
  }
  const est = estimateFromNest(graph, opIndex);
  return { path: `${op.kind}: no measured instruction model (estimated from the spec's loop nest)`, ...est, estimated: true };
}

/** Cycles of op `opIndex` for `library` under `engine` (`constant` overrides the family's, for the fit). */
export function opComputeCycles(graph: Graph, opIndex: number, target: TargetProfile, library: KernelLibrary, engine: Engine = 'tflm', constant?: number): OpCompute {
  const op = graph.ops[opIndex];
  if (op === undefined) throw new InternalError(`no op ${opIndex}`);
  if (op.kind === 'custom') {
    throw new McusimError('E_MODEL_UNSUPPORTED_OP', `op ${opIndex}: custom op '${op.customCode}' has no latency model`);
  }
  const choice = instructionBuild(target.core, library);
  const priced = opPricing(graph, opIndex, choice.build, engine);
  const timing = CORE_TIMING[target.core.family];
  const computeCycles = classCycles(priced.classes as Partial<Record<TimedClass, number>>, timing);
  const flashStallCycles = opWeights(graph, opIndex, target.core).reduce((a, w) => a + flashStall(w, computeCycles, target.flashTiming), 0);
  const k = constant ?? familyConstant(target, library).value;
  return {
    path: priced.path, macs: opMacs(graph, opIndex), instructions: priced.instructions, classes: priced.classes, estimated: priced.estimated,
    build: choice.build === null ? choice.note : `${choice.build.name}${choice.note === 'measured build' ? '' : ` (${choice.note})`}`,
    computeCycles, flashStallCycles, cycles: k * (computeCycles + flashStallCycles),
  };
}

/** The interpreter's own instructions and cycles for one Invoke of `graph` (0 for ahead-of-time engines). */
export function interpreterCost(graph: Graph, target: TargetProfile, library: KernelLibrary, engine: Engine, constant?: number): { instructions: number; cycles: number } {
  const build = instructionBuild(target.core, library).build;
  if (engine !== 'tflm' || build === null) return { instructions: 0, cycles: 0 };
  const instructions = build.interpreter.invoke + build.interpreter.perOp * graph.ops.length;
  const mix = Object.fromEntries(Object.entries(INTERPRETER_MIX).map(([c, share]) => [c, (share ?? 0) * instructions]));
  const k = constant ?? familyConstant(target, library).value;
  return { instructions, cycles: k * classCycles(mix, CORE_TIMING[target.core.family]) };
}
