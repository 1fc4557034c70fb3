// The `auto` pass (`mcusim optimize --passes auto --target BYTES`, issue 6): tries the single
// passes (dmo, replacement, tiling, tinyseg) and the combinations that make sense (X,dmo: a graph
// transform, then DMO's overlapped layout of the result), keeps those whose peak meets the target
// and picks the one with the least estimated latency (estimateLatency, src/sim; spill traffic on
// --storage). Without a target, or when none meets it, the lowest whole arena wins (planned +
// persistent tail for --arch, issue 12), and no pipeline whose whole arena exceeds the original's is
// ever chosen. Time-boxed: pipelines left when the budget runs out are reported as skipped. Shared
// prefixes run once. Pipelines run in waves by length, each wave one batch for the injected
// evaluator (evaluator.ts; the CLI's runs them in worker threads); evaluateAutoPipeline is pure.
import type { Model } from '../ir/index.ts';
import { InternalError, McusimError, UsageError } from '../ir/index.ts';
import { DEFAULT_TARGET_NAME, estimateLatency, getTarget } from '../sim/index.ts';
import { DEFAULT_TFLM_ARCH } from '../sim/index.ts';
import type { TflmArchName } from '../sim/index.ts';
import { serialEvaluator } from './evaluator.ts';
import { candidateTotals, ramBytes } from './arena-totals.ts';
import { currentPeakBytes, dmoPass } from './dmo/index.ts';
import type { OptimizerPass, PassOptions, PassReport, PassResult } from './pass.ts';
import { replacementPass } from './replacement/index.ts';
import { fdtPass, ffmtPass, tilingPass } from './tiling/index.ts';
import { tinysegPass } from './tinyseg/index.ts';

/** The pipelines `auto` tries, cheapest first ([] = the model unchanged). */
export const AUTO_PIPELINES: readonly (readonly string[])[] = [
  [],
  ['dmo'],
  ['replacement'],
  ['tinyseg'],
  ['tinyseg', 'dmo'],
  ['tiling'],
  ['tiling', 'dmo'],
];

const AUTO_PASSES: Readonly<Record<string, OptimizerPass>> = { dmo: dmoPass, replacement: replacementPass, tinyseg: tinysegPass, tiling: tilingPass, fdt: fdtPass, ffmt: ffmtPass };

export const DEFAULT_AUTO_BUDGET_MS = 60_000;

export interface AutoCandidate {
  /** Comma-joined pass names; 'none' for the unchanged model. */
  readonly passes: string;
  readonly status: 'ok' | 'failed' | 'skipped';
  readonly peakBytes: number | null;
  /** Whole arena (planned + persistent + outside) for the pass options' arch. */
  readonly totalBytes: number | null;
  readonly latencyMs: number | null;
  readonly meetsTarget: boolean;
  readonly error?: string;
}

export interface AutoDetails {
  readonly targetBytes: number | null;
  readonly storage: string;
  readonly latencyTarget: string;
  readonly chosen: string;
  readonly targetMet: boolean;
  readonly candidates: readonly AutoCandidate[];
  /** The reports of the chosen pipeline's passes. */
  readonly reports: readonly PassReport[];
  readonly timedOut: boolean;
}

interface Evaluated {
  readonly names: readonly string[];
  readonly model: Model;
  readonly reports: readonly PassReport[];
  readonly peakBytes: number;
  readonly totalBytes: number;
  readonly latencyMs: number;
}

const label = (names: readonly string[]): string => (names.length === 0 ? 'none' : names.join(','));

function budgetOf(options: PassOptions): number {
  const v = options.flags['auto-budget-ms'] ?? options.flags['time-budget-ms'] ?? DEFAULT_AUTO_BUDGET_MS;
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`auto time budget must be a positive number of ms, got '${String(v)}'`);
  return n;
}

/** Better of two evaluated pipelines under `target` (see the header). */
function better(a: Evaluated, b: Evaluated, target: number | undefined): Evaluated {
  if (target !== undefined) {
    const am = a.peakBytes <= target;
    const bm = b.peakBytes <= target;
    if (am !== bm) return am ? a : b;
    if (am) return b.latencyMs < a.latencyMs || (b.latencyMs === a.latencyMs && b.totalBytes < a.totalBytes) ? b : a;
  }
  return b.totalBytes < a.totalBytes || (b.totalBytes === a.totalBytes && b.latencyMs < a.latencyMs) ? b : a;
}

/** What every auto pipeline shares: the option fields a pass sees (no log, no evaluator). */
export interface AutoEvalContext {
  readonly flags: PassOptions['flags'];
  readonly storage: NonNullable<PassOptions['storage']>;
  readonly arch: TflmArchName;
  readonly targetBytes: number | null;
  readonly latencyTarget: string;
}

/** One pipeline to evaluate: its last pass on the prefix's model, with its share of the budget. */
export interface AutoEvalItem {
  readonly names: readonly string[];
  readonly prefixModel: Model;
  readonly budgetMs: number;
}

/** A pipeline's outcome: its model and measures, or the coded error its last pass refused with. */
export type AutoEvalResult =
  | { readonly status: 'ok'; readonly model: Model; readonly report: PassReport; readonly peakBytes: number; readonly totalBytes: number; readonly latencyMs: number; readonly log: readonly string[] }
  | { readonly status: 'failed'; readonly error: string; readonly log: readonly string[] };

const latencyOfModel = (m: Model, ctx: AutoEvalContext): number => estimateLatency(m.graph, { target: getTarget(ctx.latencyTarget), storage: ctx.storage }).totalMs;

/**
 * Pure: the last pass of `item.names` on the prefix's model, measured (peak, whole arena, latency).
 * A coded refusal (not E_INTERNAL) is a 'failed' result; anything else is thrown. The pass's log
 * lines come back with it, for the caller to print in pipeline order.
 */
export function evaluateAutoPipeline(ctx: AutoEvalContext, item: AutoEvalItem): AutoEvalResult {
  const last = item.names[item.names.length - 1] ?? '';
  const pass = AUTO_PASSES[last];
  if (pass === undefined) throw new UsageError(`auto: unknown pass '${last}'`);
  const log: string[] = [];
  const flags = { ...ctx.flags, 'time-budget-ms': item.budgetMs };
  const sub: PassOptions = { flags, storage: ctx.storage, arch: ctx.arch, log: (line) => void log.push(line), ...(ctx.targetBytes !== null ? { targetBytes: ctx.targetBytes } : {}) };
  try {
    const r = pass.run(item.prefixModel, sub);
    return { status: 'ok', model: r.model, report: r.report, peakBytes: currentPeakBytes(r.model), totalBytes: ramBytes(candidateTotals(r.model, ctx.arch)), latencyMs: latencyOfModel(r.model, ctx), log };
  } catch (e) {
    if (!(e instanceof McusimError) || e.code === 'E_INTERNAL') throw e;
    return { status: 'failed', error: `${e.code}: ${e.message}`, log };
  }
}

export function runAuto(model: Model, options: PassOptions): PassResult {
  const budget = budgetOf(options);
  const deadline = performance.now() + budget;
  const target = options.targetBytes;
  const storage = options.storage ?? 'internal';
  const latencyTarget = getTarget(typeof options.flags['latency-target'] === 'string' ? options.flags['latency-target'] : DEFAULT_TARGET_NAME);
  const before = currentPeakBytes(model);
  const arch = options.arch ?? DEFAULT_TFLM_ARCH;
  const totalBefore = ramBytes(candidateTotals(model, arch));
  const ctx: AutoEvalContext = { flags: options.flags, storage, arch, targetBytes: target ?? null, latencyTarget: latencyTarget.name };
  const evaluator = options.evaluator ?? serialEvaluator;
  // Results by pipeline label, so X,dmo reuses X's model.
  const done = new Map<string, Evaluated | null>([['none', { names: [], model, reports: [], peakBytes: before, totalBytes: totalBefore, latencyMs: latencyOfModel(model, ctx) }]]);
  const outcome = new Map<string, AutoCandidate>();
  let timedOut = false;
  // Waves by pipeline length: a wave's pipelines have their prefixes done and are evaluated as one
  // batch, each given half of the budget left when the wave starts (tiling searches; the rest are fast).
  const maxLength = Math.max(...AUTO_PIPELINES.map((n) => n.length));
  for (let length = 1; length <= maxLength; length++) {
    const wave = AUTO_PIPELINES.filter((n) => n.length === length && !done.has(label(n)));
    const remaining = deadline - performance.now();
    const items: AutoEvalItem[] = [];
    for (const names of wave) {
      const key = label(names);
      const prefix = done.get(label(names.slice(0, -1)));
      if (remaining <= 0 || prefix === undefined) {
        timedOut ||= remaining <= 0;
        outcome.set(key, { passes: key, status: 'skipped', peakBytes: null, totalBytes: null, latencyMs: null, meetsTarget: false, error: remaining <= 0 ? 'time budget reached' : 'prefix not run' });
      } else if (prefix === null) {
        outcome.set(key, { passes: key, status: 'skipped', peakBytes: null, totalBytes: null, latencyMs: null, meetsTarget: false, error: `${label(names.slice(0, -1))} failed` });
      } else {
        items.push({ names, prefixModel: prefix.model, budgetMs: Math.max(1, Math.floor(remaining / 2)) });
      }
    }
    items.forEach((it) => options.log?.(`auto: trying ${label(it.names)}`));
    const results = evaluator.map('auto', evaluateAutoPipeline, ctx, items);
    items.forEach((it, i) => {
      const r = results[i];
      const key = label(it.names);
      if (r === undefined) throw new InternalError(`auto: no result for ${key}`);
      r.log.forEach((line) => options.log?.(line));
      if (r.status === 'failed') {
        done.set(key, null);
        outcome.set(key, { passes: key, status: 'failed', peakBytes: null, totalBytes: null, latencyMs: null, meetsTarget: false, error: r.error });
        return;
      }
      const prefixReports = done.get(label(it.names.slice(0, -1)))?.reports ?? [];
      done.set(key, { names: it.names, model: r.model, reports: [...prefixReports, r.report], peakBytes: r.peakBytes, totalBytes: r.totalBytes, latencyMs: r.latencyMs });
    });
  }
  // The report and the choice in AUTO_PIPELINES order, whatever order the waves ran in.
  const candidates: AutoCandidate[] = [];
  let best: Evaluated | null = null;
  for (const names of AUTO_PIPELINES) {
    const key = label(names);
    const ev = done.get(key);
    const o = outcome.get(key);
    if (o !== undefined) {
      candidates.push(o);
      continue;
    }
    if (ev === undefined || ev === null) continue;
    candidates.push({ passes: key, status: 'ok', peakBytes: ev.peakBytes, totalBytes: ev.totalBytes, latencyMs: ev.latencyMs, meetsTarget: target !== undefined && ev.peakBytes <= target });
    // Never a model that needs more RAM than the original, whatever its peak or latency.
    if (ev.totalBytes > totalBefore) continue;
    best = best === null ? ev : better(best, ev, target);
  }
  const chosen = best ?? { names: [], model, reports: [], peakBytes: before, totalBytes: totalBefore, latencyMs: 0 };
  const targetMet = target !== undefined && chosen.peakBytes <= target;
  const fmt = (c: AutoCandidate): string =>
    c.status === 'ok'
      ? `${c.passes}: peak ${c.peakBytes} B, total ${c.totalBytes} B${(c.totalBytes ?? 0) > totalBefore ? ' (exceeds the original: never chosen)' : ''}, latency ${c.latencyMs?.toFixed(2)} ms${target !== undefined ? `, target ${c.meetsTarget ? 'met' : 'missed'}` : ''}`
      : `${c.passes}: ${c.status} (${c.error ?? ''})`;
  const notes = [
    ...candidates.map(fmt),
    target === undefined
      ? `no --target: chose the lowest whole arena on ${arch}, ${label(chosen.names)} (peak ${chosen.peakBytes} B, total ${chosen.totalBytes} B)`
      : targetMet
        ? `chose ${label(chosen.names)}: least latency (${chosen.latencyMs.toFixed(2)} ms) of those meeting ${target} B`
        : `no pipeline meets the target ${target} B; lowest whole arena ${chosen.totalBytes} B (peak ${chosen.peakBytes} B) by ${label(chosen.names)}`,
    ...(timedOut ? [`time budget ${budget} ms reached: some pipelines were skipped`] : []),
  ];
  const details: AutoDetails = { targetBytes: target ?? null, storage, latencyTarget: latencyTarget.name, chosen: label(chosen.names), targetMet, candidates, reports: chosen.reports, timedOut };
  options.log?.(`auto: chose ${label(chosen.names)} (${chosen.peakBytes} B)`);
  return {
    model: chosen.model,
    report: { pass: 'auto', peakBytesBefore: before, peakBytesAfter: chosen.peakBytes, applied: chosen.names.length > 0, notes, details },
  };
}

export const autoPass: OptimizerPass = {
  name: 'auto',
  description: 'try dmo, replacement, tinyseg, tiling and X,dmo; keep those meeting --target, pick the least latency (else the lowest peak)',
  run: runAuto,
};
