// The optimizer pass interface: a pass turns a Model into a new Model (e.g. one carrying an
// OfflineMemoryAllocation plan via withOfflinePlan) and reports peak bytes before and after.
// Passes are chained by runPipeline (pipeline.ts); the CLI `mcusim optimize` drives them. Every
// pass ends with guardTotal (total-guard.ts): kept only when it lowers the whole arena.
import type { KernelRegistry } from '../kernels/index.ts';
import type { Model } from '../ir/index.ts';
import type { TflmArchName } from '../sim/index.ts';
import type { ArenaRuntimeTarget, ArenaTotals } from './arena-totals.ts';

/** What passes minimize: the whole arena (default) or the planned part alone (flag objective=planned). */
export type PassObjective = 'total' | 'planned';

/** The whole arena before and after a pass, for the model it returned (total-guard.ts). */
export interface PassArena {
  readonly arch: TflmArchName;
  readonly objective: PassObjective;
  readonly before: ArenaTotals;
  readonly after: ArenaTotals;
}
import type { CandidateEvaluator } from './evaluator.ts';

export interface PassOptions {
  readonly targetBytes?: number;
  readonly storage?: 'internal' | 'external' | 'remote';
  readonly flags: Readonly<Record<string, string | number | boolean>>;
  /** The TFLM build whose whole arena (planned + persistent) passes minimize (default cortex-m). */
  readonly arch?: TflmArchName;
  /** Whose arena on `arch` passes score: mcusim's (default) or TFLM with the `codegen --tflm` kernels. */
  readonly runtime?: ArenaRuntimeTarget;
  readonly log?: (line: string) => void;
  /** Evaluates search candidates (tiling, auto); absent: serialEvaluator. The CLI injects a pooled one. */
  readonly evaluator?: CandidateEvaluator;
  /** The kernel library planned for (its scratch requests, persistent data and, in dmo and
   * replacement, its access order's O_s; default reference). */
  readonly registry?: KernelRegistry;
}

export interface PassReport {
  readonly pass: string;
  readonly peakBytesBefore: number;
  readonly peakBytesAfter: number;
  readonly applied: boolean;
  readonly notes: readonly string[];
  readonly details?: unknown;
  /** Whole arena before / after on options.arch; set by guardTotal (every pass but auto). */
  readonly arena?: PassArena;
  /** Why a byte target was missed, when the pass knows (auto: "no pipeline meets the target ..."). */
  readonly targetNote?: string;
}

export interface PassResult {
  readonly model: Model;
  readonly report: PassReport;
}

export interface OptimizerPass {
  readonly name: string;
  readonly description: string;
  run(model: Model, options: PassOptions): PassResult;
}
