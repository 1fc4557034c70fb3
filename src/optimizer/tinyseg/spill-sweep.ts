// TinySeg Figure 14 (paper §6.2.2, partial spilling of §4.2.1 / Figure 7): runs the tinyseg pass with
// spillPercent = 0, 10, ..., 100 and reports, per point, the split actually made (whole channels), the
// TFLM-greedy peak the pass reports and the estimated latency with its Figure 13 breakdown. 0% is the
// pass with its spilling step skipped: the scratch step as the pass flags select, no Spill/Fetching,
// so nothing to fuse (the model as given if that does not lower the peak). Points that round to a
// split already measured reuse that measurement and name it (`sameAsPercent`) rather than merging.
// With a kernel registry the pass plans each point with that library's scratch and persistent data
// (carried by name in the context, so pooled points rebuild the same registry).
import type { Model } from '../../ir/index.ts';
import { InternalError, UsageError } from '../../ir/index.ts';
import type { KernelLibrary, LatencyBreakdown, StorageKind, TargetProfile } from '../../sim/index.ts';
import { DEFAULT_KERNEL_LIBRARY, DEFAULT_TARGET_NAME, getTarget } from '../../sim/index.ts';
import type { PayloadInputs } from '../model-latency.ts';
import { DEFAULT_PAYLOAD_INPUTS, estimateModelLatency } from '../model-latency.ts';
import type { PassOptions, PassResult } from '../pass.ts';
import type { CandidateEvaluator } from '../evaluator.ts';
import { kernelNamesOf, registryOfNames, serialEvaluator } from '../evaluator.ts';
import type { KernelNames } from '../evaluator.ts';
import type { KernelRegistry } from '../../kernels/index.ts';
import type { TinySegDetails } from './tinyseg-pass.ts';
import { runTinySeg } from './tinyseg-pass.ts';

export const DEFAULT_SWEEP_STEPS = 10;
export const MAX_SWEEP_STEPS = 100;

export interface SpillSweepOptions {
  readonly target?: TargetProfile;
  readonly library?: KernelLibrary;
  readonly storage?: StorageKind;
  readonly asyncErase?: boolean;
  readonly compress?: boolean;
  /** Inputs of the run whose tensors feed the codec with `compress` (absent: DEFAULT_PAYLOAD_INPUTS). */
  readonly payloadInputs?: PayloadInputs;
  /** Further tinyseg pass flags (e.g. scratchQuant: false); spillPercent is set per point. */
  readonly passFlags?: PassOptions['flags'];
  /** Equal steps from 0% to 100% (default 10: 0, 10, ..., 100). */
  readonly steps?: number;
  /** Called after each point, in order; the CLI prints progress from it. */
  readonly onProgress?: (row: SpillSweepRow, index: number, count: number) => void;
  /** Runs the points (default serialEvaluator, in order on this thread); the CLI injects a pooled one. */
  readonly evaluator?: CandidateEvaluator;
  /** The kernel library the pass plans for (default reference); also the latency's library when `library` is not given. */
  readonly registry?: KernelRegistry;
}

export interface SpillSweepRow {
  readonly requestedPercent: number;
  /** Name of the tensor the pass spilled from; null when it spilled nothing. */
  readonly victim: string | null;
  readonly spilledChannels: number;
  /** Channels of the victim (0 when nothing was spilled). */
  readonly victimChannels: number;
  /** 100 * spilledChannels / victimChannels: the split after rounding to whole channels. */
  readonly actualPercent: number;
  readonly spilledBytes: number;
  readonly peakBytes: number;
  readonly latencyMs: number;
  readonly breakdown: LatencyBreakdown;
  /** The first earlier point with the same split, whose measurement this row repeats; null if new. */
  readonly sameAsPercent: number | null;
}

export interface SpillSweepResult {
  readonly target: string;
  readonly library: KernelLibrary;
  readonly storage: StorageKind;
  readonly asyncErase: boolean;
  readonly compress: boolean;
  /** Inputs of the run whose bytes the codec compressed; null without `compress`. */
  readonly payloadInputs: PayloadInputs | null;
  /** TFLM-greedy peak of the model as given. */
  readonly originalPeakBytes: number;
  /** False when no point spilled anything (every row repeats the 0% row). */
  readonly spillingHelps: boolean;
  /** The pass's notes at the highest percentage when spilling does not help, else empty. */
  readonly notes: readonly string[];
  readonly rows: readonly SpillSweepRow[];
}

/** 0, 100/steps, ..., 100, to two decimals. */
export function sweepPercents(steps: number = DEFAULT_SWEEP_STEPS): number[] {
  if (!Number.isInteger(steps) || steps < 1 || steps > MAX_SWEEP_STEPS) {
    throw new UsageError(`steps must be an integer from 1 to ${MAX_SWEEP_STEPS}, got ${steps}`);
  }
  return Array.from({ length: steps + 1 }, (_, i) => Math.round((10000 * i) / steps) / 100);
}

interface Measured {
  readonly latencyMs: number;
  readonly breakdown: LatencyBreakdown;
}

/** What a sweep point evaluates in a worker: the model and every option but the progress callback. */
export interface SweepEvalContext {
  readonly model: Model;
  readonly passFlags: PassOptions['flags'];
  readonly target: TargetProfile;
  readonly library: KernelLibrary;
  readonly storage: StorageKind;
  readonly asyncErase: boolean;
  readonly compress: boolean;
  readonly payloadInputs: PayloadInputs | undefined;
  /** The kernel library the pass plans for, by name (absent: reference). */
  readonly kernels?: KernelNames;
}

/** The split the tinyseg pass makes at one percentage (evaluateSweepSplit). */
export interface SweepSplit {
  readonly spill: { readonly tensor: string; readonly channels: number; readonly ofChannels: number; readonly bytes: number } | null;
  readonly peakBytesBefore: number;
  readonly peakBytesAfter: number;
  readonly notes: readonly string[];
}

function tinysegAt(ctx: SweepEvalContext, percent: number): PassResult {
  const registry = registryOfNames(ctx.kernels);
  return runTinySeg(ctx.model, { flags: { ...ctx.passFlags, spillPercent: percent }, ...(registry === undefined ? {} : { registry }) });
}

/** Pure: the tinyseg pass at `percent`, as the split it made and the peaks. */
export function evaluateSweepSplit(ctx: SweepEvalContext, percent: number): SweepSplit {
  const result = tinysegAt(ctx, percent);
  // With spillPercent the pass makes at most one spill; its absence means the 0% model.
  const s = (result.report.details as TinySegDetails).spills[0];
  return {
    spill: s === undefined ? null : { tensor: s.tensor, channels: s.channels, ofChannels: s.ofChannels, bytes: s.bytes },
    peakBytesBefore: result.report.peakBytesBefore,
    peakBytesAfter: result.report.peakBytesAfter,
    notes: result.report.notes,
  };
}

interface Measured {
  readonly latencyMs: number;
  readonly breakdown: LatencyBreakdown;
}

/**
 * Pure: the latency model on the tinyseg result at `percent`, with spilled bytes from a real run
 * when compressing (as `mcusim latency --compress`).
 */
export function evaluateSweepLatency(ctx: SweepEvalContext, percent: number): Measured {
  const report = estimateModelLatency(tinysegAt(ctx, percent).model, {
    target: ctx.target,
    library: ctx.library,
    storage: ctx.storage,
    asyncErase: ctx.asyncErase,
    compress: ctx.compress,
    inputs: ctx.payloadInputs,
  });
  return { latencyMs: report.totalMs, breakdown: report.breakdown };
}

/**
 * One row per percentage of `sweepPercents(options.steps)`, in rising order. Two batches for the
 * evaluator (options.evaluator, default in order on this thread): the split at every percentage,
 * then the latency of each distinct split at its first percentage.
 */
export function sweepPartialSpill(model: Model, options: SpillSweepOptions = {}): SpillSweepResult {
  const target = options.target ?? getTarget(DEFAULT_TARGET_NAME);
  const percents = sweepPercents(options.steps);
  const evaluator = options.evaluator ?? serialEvaluator;
  const kernels = kernelNamesOf(options.registry);
  const library = options.library ?? options.registry?.library ?? DEFAULT_KERNEL_LIBRARY;
  const ctx: SweepEvalContext = {
    model,
    passFlags: options.passFlags ?? {},
    target,
    library,
    storage: options.storage ?? 'internal',
    asyncErase: options.asyncErase === true,
    compress: options.compress === true,
    payloadInputs: options.payloadInputs,
    ...(kernels === undefined ? {} : { kernels }),
  };
  const splits = evaluator.map('sweep-split', evaluateSweepSplit, ctx, percents);
  const keyOf = (s: SweepSplit): string => (s.spill === null ? 'none' : `${s.spill.tensor}:${s.spill.channels}`);
  const firstPercent = new Map<string, number>();
  splits.forEach((s, i) => {
    if (!firstPercent.has(keyOf(s))) firstPercent.set(keyOf(s), percents[i] ?? 0);
  });
  const measuredAt = [...firstPercent.values()];
  const measured = new Map(evaluator.map('sweep-latency', evaluateSweepLatency, ctx, measuredAt).map((m, i) => [measuredAt[i], m]));
  const rows: SpillSweepRow[] = [];
  let originalPeakBytes = 0;
  let lastNotes: readonly string[] = [];
  splits.forEach((split, index) => {
    const percent = percents[index] ?? 0;
    originalPeakBytes = split.peakBytesBefore;
    lastNotes = split.notes;
    const spill = split.spill;
    const first = firstPercent.get(keyOf(split)) ?? percent;
    const m = measured.get(first);
    if (m === undefined) throw new InternalError(`sweep: no latency for the split at ${first}%`);
    const row: SpillSweepRow = {
      requestedPercent: percent,
      victim: spill?.tensor ?? null,
      spilledChannels: spill?.channels ?? 0,
      victimChannels: spill?.ofChannels ?? 0,
      actualPercent: spill === null ? 0 : Math.round((10000 * spill.channels) / spill.ofChannels) / 100,
      spilledBytes: spill?.bytes ?? 0,
      peakBytes: split.peakBytesAfter,
      latencyMs: m.latencyMs,
      breakdown: m.breakdown,
      sameAsPercent: first === percent ? null : first,
    };
    rows.push(row);
    options.onProgress?.(row, index, percents.length);
  });
  const spillingHelps = rows.some((r) => r.spilledChannels > 0);
  return {
    target: target.name,
    library,
    storage: options.storage ?? 'internal',
    asyncErase: options.asyncErase === true,
    compress: options.compress === true,
    payloadInputs: options.compress === true ? options.payloadInputs ?? DEFAULT_PAYLOAD_INPUTS : null,
    originalPeakBytes,
    spillingHelps,
    notes: spillingHelps ? [] : lastNotes,
    rows,
  };
}
