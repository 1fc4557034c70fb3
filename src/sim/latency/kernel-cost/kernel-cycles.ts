// Cycles of one op's kernel on a board: its work units (op-work.ts) priced by the core family's unit
// costs, plus the flash wait states of weights the caches do not hold (FlashReadTiming of the board
// profile), times the family's one constant, plus the engine's per-op overhead.
import type { FlashReadTiming, KernelLibrary, TargetProfile } from '../../targets/index.ts';
import type { Engine } from './engine.ts';
import { ENGINE_OP_CYCLES } from './engine.ts';
import type { FamilyConstant } from './family-constants.ts';
import { FAMILY_CONSTANTS } from './family-constants.ts';
import { UNIT_COSTS } from './unit-costs.ts';
import type { KernelWork, WeightStream, WorkUnit } from './work.ts';

export interface KernelCycles {
  /** Work units priced by the core's unit costs. */
  readonly computeCycles: number;
  /** Flash wait states on weight reads the caches miss. */
  readonly flashStallCycles: number;
  /** The engine's per-op overhead. */
  readonly engineCycles: number;
  /** constant x (compute + flash) + engine. */
  readonly cycles: number;
}

/** A cache holds a layer's weights between passes when they fill at most half of it (the other half
 * holds the activations and, on unified caches, the code). */
const CACHE_SHARE = 0.5;

/** Wait-state cycles of reading `w` from flash while `computeCycles` of work run over it. */
export function flashStall(w: WeightStream, computeCycles: number, flash: FlashReadTiming): number {
  if (w.bytes <= 0 || flash.waitStates <= 0) return 0;
  const cached = w.bytes <= flash.dataCacheBytes * CACHE_SHARE;
  const missedBytes = cached ? w.bytes : w.bytes * w.passes;
  const lines = missedBytes / flash.accessBytes;
  // With a sequential prefetch the next line is read while the current one is consumed: only the
  // wait states beyond the compute spent on a line stall the core.
  const computePerLine = (computeCycles / Math.max(1, w.bytes * w.passes)) * flash.accessBytes;
  const perLine = flash.dataPrefetch ? Math.max(0, flash.waitStates - computePerLine) : flash.waitStates;
  return lines * perLine;
}

export function familyConstant(target: TargetProfile, library: KernelLibrary): FamilyConstant {
  return FAMILY_CONSTANTS[target.core.family][library];
}

/** Cycles of `work` on `target` (constant from FAMILY_CONSTANTS unless `constant` is given, as the fit does). */
export function kernelCycles(work: KernelWork, target: TargetProfile, library: KernelLibrary, engine: Engine, constant?: number): KernelCycles {
  const costs = UNIT_COSTS[target.core.family];
  let computeCycles = 0;
  for (const [unit, n] of Object.entries(work.units)) computeCycles += (n ?? 0) * costs[unit as WorkUnit];
  const flashStallCycles = work.weights.reduce((a, w) => a + flashStall(w, computeCycles, target.flashTiming), 0);
  const k = constant ?? familyConstant(target, library).value;
  const engineCycles = ENGINE_OP_CYCLES[engine];
  return { computeCycles, flashStallCycles, engineCycles, cycles: k * (computeCycles + flashStallCycles) + engineCycles };
}
