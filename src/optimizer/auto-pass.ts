// The `auto` pass (`mcusim optimize --passes auto --target BYTES`, issue 6): tries the single
// passes (dmo, replacement, tiling, tinyseg) and the combinations that make sense (X,dmo: a graph
// transform, then DMO's overlapped layout of the result), keeps those whose whole arena on --arch
// meets the target (planned + persistent tail, issue 12; the planned part under objective=planned)
// and picks the one with the least estimated latency (estimateLatency, src/sim; spill traffic on
// --storage). The tiling searches inside take the caller's candidate evaluator (worker threads from
// the CLI). Without a target, or when none meets it ("no pipeline meets the target"), the lowest
// whole arena wins (the lowest planned part under objective=planned), and no pipeline whose whole
// arena exceeds the original's is ever chosen, whatever the objective. Bounded by work (every
// pipeline runs; the tiling searches inside stop on their candidate budget), so one command gives
// the same file on every machine; an explicit time-budget-ms flag boxes it in wall-clock time
// instead, and then pipelines left when it runs out are reported as skipped. Shared prefixes run once. Every pipeline runs
// and is scored for the caller's kernel library and runtime (PassOptions.registry, .runtime): its
// scratch, persistent data and, in dmo and replacement, its access order's O_s.
import type { Model } from '../ir/index.ts';
import { McusimError, UsageError } from '../ir/index.ts';
import { DEFAULT_TARGET_NAME, estimateLatency, getTarget } from '../sim/index.ts';
import { DEFAULT_TFLM_ARCH } from '../sim/index.ts';
import { candidateTotals, ramBytes } from './arena-totals.ts';
import type { ArenaTotals } from './arena-totals.ts';
import { objectiveOf, objectiveScore, targetMeasureOf } from './total-guard.ts';
import type { TargetMeasure } from './total-guard.ts';
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
  /** The figure the target is compared on (whole arena, or planned part under objective=planned). */
  readonly targetMeasure: TargetMeasure;
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
  readonly totals: ArenaTotals;
  readonly latencyMs: number;
}

const label = (names: readonly string[]): string => (names.length === 0 ? 'none' : names.join(','));

/** An explicit wall-clock budget (flags auto-budget-ms / time-budget-ms), or none. */
function budgetOf(options: PassOptions): number | undefined {
  const v = options.flags['auto-budget-ms'] ?? options.flags['time-budget-ms'];
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`auto time budget must be a positive number of ms, got '${String(v)}'`);
  return n;
}

/** Better of two evaluated pipelines under `target` on `measure`, scored by `score` (see the header). */
function better(a: Evaluated, b: Evaluated, target: number | undefined, measure: TargetMeasure, score: (e: Evaluated) => number): Evaluated {
  if (target !== undefined) {
    const am = a.totals[measure] <= target;
    const bm = b.totals[measure] <= target;
    if (am !== bm) return am ? a : b;
    if (am) return b.latencyMs < a.latencyMs || (b.latencyMs === a.latencyMs && score(b) < score(a)) ? b : a;
  }
  return score(b) < score(a) || (score(b) === score(a) && b.latencyMs < a.latencyMs) ? b : a;
}

export function runAuto(model: Model, options: PassOptions): PassResult {
  const budget = budgetOf(options);
  const deadline = budget === undefined ? Infinity : performance.now() + budget;
  const target = options.targetBytes;
  const storage = options.storage ?? 'internal';
  const latencyTarget = getTarget(typeof options.flags['latency-target'] === 'string' ? options.flags['latency-target'] : DEFAULT_TARGET_NAME);
  const latencyOf = (m: Model): number => estimateLatency(m.graph, { target: latencyTarget, storage }).totalMs;
  const registry = options.registry;
  const before = currentPeakBytes(model, registry);
  const arch = options.arch ?? DEFAULT_TFLM_ARCH;
  const objective = objectiveOf(options);
  const measure = targetMeasureOf(objective);
  const score = (e: Evaluated): number => objectiveScore(e.totals, objective);
  const totalsBefore = candidateTotals(model, arch, registry, options.runtime);
  const totalBefore = ramBytes(totalsBefore);
  const meets = (t: ArenaTotals): boolean => target !== undefined && t[measure] <= target;
  // Results by pipeline label, so X,dmo reuses X's model.
  const unchanged: Evaluated = { names: [], model, reports: [], peakBytes: before, totalBytes: totalBefore, totals: totalsBefore, latencyMs: latencyOf(model) };
  const done = new Map<string, Evaluated | null>([['none', unchanged]]);
  const candidates: AutoCandidate[] = [];
  let timedOut = false;
  let best: Evaluated | null = null;
  for (const names of AUTO_PIPELINES) {
    const key = label(names);
    let ev = done.get(key);
    if (ev === undefined) {
      const remaining = deadline - performance.now();
      const prefix = done.get(label(names.slice(0, -1)));
      if (remaining <= 0 || prefix === undefined) {
        timedOut ||= remaining <= 0;
        candidates.push({ passes: key, status: 'skipped', peakBytes: null, totalBytes: null, latencyMs: null, meetsTarget: false, error: remaining <= 0 ? 'time budget reached' : 'prefix not run' });
        continue;
      }
      if (prefix === null) {
        candidates.push({ passes: key, status: 'skipped', peakBytes: null, totalBytes: null, latencyMs: null, meetsTarget: false, error: `${label(names.slice(0, -1))} failed` });
        continue;
      }
      const last = names[names.length - 1] ?? '';
      const pass = AUTO_PASSES[last];
      if (pass === undefined) throw new UsageError(`auto: unknown pass '${last}'`);
      // Under a wall-clock budget, tiling searches get half of what is left; the other passes are fast.
      const flags = budget === undefined ? options.flags : { ...options.flags, 'time-budget-ms': Math.max(1, Math.floor(remaining / 2)) };
      const sub: PassOptions = {
        flags, storage, arch, ...(target !== undefined ? { targetBytes: target } : {}), ...(options.evaluator !== undefined ? { evaluator: options.evaluator } : {}),
        ...(registry !== undefined ? { registry } : {}), ...(options.runtime !== undefined ? { runtime: options.runtime } : {}),
      };
      try {
        options.log?.(`auto: trying ${key}`);
        const r = pass.run(prefix.model, sub);
        const totals = candidateTotals(r.model, arch, registry, options.runtime);
        ev = { names, model: r.model, reports: [...prefix.reports, r.report], peakBytes: currentPeakBytes(r.model, registry), totalBytes: ramBytes(totals), totals, latencyMs: latencyOf(r.model) };
      } catch (e) {
        if (!(e instanceof McusimError) || e.code === 'E_INTERNAL') throw e;
        done.set(key, null);
        candidates.push({ passes: key, status: 'failed', peakBytes: null, totalBytes: null, latencyMs: null, meetsTarget: false, error: `${e.code}: ${e.message}` });
        continue;
      }
      done.set(key, ev);
    }
    if (ev === null) continue;
    candidates.push({ passes: key, status: 'ok', peakBytes: ev.peakBytes, totalBytes: ev.totalBytes, latencyMs: ev.latencyMs, meetsTarget: meets(ev.totals) });
    // Never a model that needs more RAM than the original, whatever its peak, latency or objective.
    if (ev.totalBytes > totalBefore) continue;
    best = best === null ? ev : better(best, ev, target, measure, score);
  }
  const chosen = best ?? unchanged;
  const targetMet = meets(chosen.totals);
  const what = measure === 'totalBytes' ? `whole arena (${arch})` : 'planned part';
  const missed = `no pipeline meets the target ${target ?? 0} B on the ${what}; lowest ${objective === 'total' ? 'whole arena' : 'planned part'} ${objectiveScore(chosen.totals, objective)} B (peak ${chosen.peakBytes} B, total ${chosen.totalBytes} B) by ${label(chosen.names)}`;
  const fmt = (c: AutoCandidate): string =>
    c.status === 'ok'
      ? `${c.passes}: peak ${c.peakBytes} B, total ${c.totalBytes} B${(c.totalBytes ?? 0) > totalBefore ? ' (exceeds the original: never chosen)' : ''}, latency ${c.latencyMs?.toFixed(2)} ms${target !== undefined ? `, target ${c.meetsTarget ? 'met' : 'missed'}` : ''}`
      : `${c.passes}: ${c.status} (${c.error ?? ''})`;
  const notes = [
    ...candidates.map(fmt),
    target === undefined
      ? `no --target: chose the lowest whole arena on ${arch}, ${label(chosen.names)} (peak ${chosen.peakBytes} B, total ${chosen.totalBytes} B)`
      : targetMet
        ? `chose ${label(chosen.names)}: least latency (${chosen.latencyMs.toFixed(2)} ms) of those meeting ${target} B on the ${what}`
        : missed,
    ...(timedOut ? [`cut by the time budget of ${budget ?? 0} ms: some pipelines were skipped (another machine may choose another)`] : []),
  ];
  const details: AutoDetails = { targetBytes: target ?? null, targetMeasure: measure, storage, latencyTarget: latencyTarget.name, chosen: label(chosen.names), targetMet, candidates, reports: chosen.reports, timedOut };
  options.log?.(`auto: chose ${label(chosen.names)} (${chosen.peakBytes} B)`);
  return {
    model: chosen.model,
    report: {
      pass: 'auto', peakBytesBefore: before, peakBytesAfter: chosen.peakBytes, applied: chosen.names.length > 0, notes, details,
      arena: { arch, objective, before: totalsBefore, after: chosen.totals },
      ...(target !== undefined && !targetMet ? { targetNote: missed } : {}),
    },
  };
}

export const autoPass: OptimizerPass = {
  name: 'auto',
  description: 'try dmo, replacement, tinyseg, tiling and X,dmo; keep those meeting the byte target, pick the least latency (else the lowest whole arena)',
  run: runAuto,
};
