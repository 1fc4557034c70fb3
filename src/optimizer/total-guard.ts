// The one rule every optimizer pass ends with (issue 12 item 3): a pass's result is kept only when
// it lowers what the pass minimizes, the whole arena on --arch for the runtime the model needs
// (planned + persistent + RAM beside the arena; stock TFLM for builtin-only graphs, mcusim's C
// runtime once custom ops or mcusim kernel variants are used) or, with the flag
// `objective=planned`, the planned part alone. A result that raises it is declined and the notes say
// so with both figures ("declined: total 85,024 -> 86,100 B (+1,076 B) on cortex-m ..."). Also the
// measure a byte target (`--target-bytes`) is compared on (the verdict: pipeline.ts).
import { UsageError } from '../ir/index.ts';
import type { Model } from '../ir/index.ts';
import { DEFAULT_TFLM_ARCH } from '../sim/index.ts';
import type { TflmArchName } from '../sim/index.ts';
import { candidateTotals, describeTotals, ramBytes } from './arena-totals.ts';
import type { ArenaTotals } from './arena-totals.ts';
import type { PassObjective, PassOptions, PassResult } from './pass.ts';

/** The figure a byte target is compared on: the whole arena, or the planned part under objective=planned. */
export type TargetMeasure = 'totalBytes' | 'plannedBytes';

/** The `objective` flag (default total); UsageError for anything else. */
export function objectiveOf(options: PassOptions): PassObjective {
  const v = options.flags.objective ?? 'total';
  if (v !== 'total' && v !== 'planned') throw new UsageError(`objective must be total or planned, got '${String(v)}'`);
  return v;
}

export function targetMeasureOf(objective: PassObjective): TargetMeasure {
  return objective === 'total' ? 'totalBytes' : 'plannedBytes';
}

/** The score a pass minimizes: RAM the board needs (arena + beside it), or the planned part. */
export function objectiveScore(t: ArenaTotals, objective: PassObjective): number {
  return objective === 'total' ? ramBytes(t) : t.plannedBytes;
}

const n = (x: number): string => x.toLocaleString('en-US');

/** "total 85,024 -> 86,100 B (+1,076 B) on cortex-m (planned ..., persistent ...)" (or the planned part). */
export function describeChange(before: ArenaTotals, after: ArenaTotals, objective: PassObjective, arch: TflmArchName): string {
  const what = objective === 'total' ? 'total' : 'planned';
  const a = objectiveScore(before, objective);
  const b = objectiveScore(after, objective);
  const d = b - a;
  return `${what} ${n(a)} -> ${n(b)} B (${d >= 0 ? '+' : '-'}${n(Math.abs(d))} B) on ${arch} (${describeTotals(before, after)})`;
}

export interface GuardOptions {
  /** Totals of the pass's input / result when the pass already has them (else candidateTotals). */
  readonly before?: ArenaTotals;
  readonly after?: ArenaTotals;
  /** Keep the result even when it does not lower the score (dmo / replacement `force`). */
  readonly force?: boolean;
  /**
   * The planned part must shrink too: a lower total from a change of runtime alone (custom ops
   * moving the graph to mcusim's C runtime and its smaller tail) is not the technique's gain.
   */
  readonly requirePlannedDrop?: boolean;
}

/**
 * The pass's result if it is applied and lowers the score (objectiveOf(options)) on options.arch;
 * otherwise the input model, unchanged, with the report marked not applied and a note giving both
 * figures. Every report leaving here carries `arena` (before and after, for the model returned).
 */
export function guardTotal(input: Model, result: PassResult, options: PassOptions, g: GuardOptions = {}): PassResult {
  const arch = options.arch ?? DEFAULT_TFLM_ARCH;
  const objective = objectiveOf(options);
  const before = g.before ?? candidateTotals(input, arch, options.registry, options.runtime);
  const r = result.report;
  if (!r.applied || result.model === input) {
    return { model: input, report: { ...r, applied: false, arena: { arch, objective, before, after: before } } };
  }
  const after = g.after ?? candidateTotals(result.model, arch, options.registry, options.runtime);
  const change = describeChange(before, after, objective, arch);
  const lower = objectiveScore(after, objective) < objectiveScore(before, objective);
  const plannedKept = g.requirePlannedDrop === true && after.plannedBytes >= before.plannedBytes;
  if ((lower && !plannedKept) || g.force === true) {
    const note = lower && !plannedKept ? `applied: ${change}` : `forced: ${change}`;
    options.log?.(`${r.pass}: ${change}`);
    return { model: result.model, report: { ...r, notes: [...r.notes, note], arena: { arch, objective, before, after } } };
  }
  return {
    model: input,
    report: {
      ...r,
      applied: false,
      peakBytesAfter: r.peakBytesBefore,
      notes: [...r.notes, `declined: ${change}${lower ? ': the planned part does not shrink (a change of runtime alone is no gain)' : ''}; the model is returned unchanged`],
      arena: { arch, objective, before, after: before },
    },
  };
}
