// The `auto` pass (`mcusim optimize --passes auto --target BYTES`, issue 6): tries the single
// passes (dmo, replacement, tiling, tinyseg) and the combinations that make sense (X,dmo: a graph
// transform, then DMO's overlapped layout of the result), keeps those whose peak meets the target
// and picks the one with the least estimated latency (estimateLatency, src/sim; spill traffic on
// --storage). Without a target, or when none meets it, the lowest whole arena wins (planned +
// persistent tail for --arch, issue 12), and no pipeline whose whole arena exceeds the original's is
// ever chosen. Time-boxed: pipelines left when the budget runs out are reported as skipped. Shared
// prefixes run once.
import type { Model } from '../ir/index.ts';
import { McusimError, UsageError } from '../ir/index.ts';
import { DEFAULT_TARGET_NAME, estimateLatency, getTarget } from '../sim/index.ts';
import { DEFAULT_TFLM_ARCH } from '../sim/index.ts';
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

export function runAuto(model: Model, options: PassOptions): PassResult {
  const budget = budgetOf(options);
  const deadline = performance.now() + budget;
  const target = options.targetBytes;
  const storage = options.storage ?? 'internal';
  const latencyTarget = getTarget(typeof options.flags['latency-target'] === 'string' ? options.flags['latency-target'] : DEFAULT_TARGET_NAME);
  const latencyOf = (m: Model): number => estimateLatency(m.graph, { target: latencyTarget, storage }).totalMs;
  const before = currentPeakBytes(model);
  const arch = options.arch ?? DEFAULT_TFLM_ARCH;
  const totalOf = (m: Model): number => ramBytes(candidateTotals(m, arch));
  const totalBefore = totalOf(model);
  // Results by pipeline label, so X,dmo reuses X's model.
  const done = new Map<string, Evaluated | null>([['none', { names: [], model, reports: [], peakBytes: before, totalBytes: totalBefore, latencyMs: latencyOf(model) }]]);
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
      // Tiling searches get half of what is left; the other passes are fast.
      const flags = { ...options.flags, 'time-budget-ms': Math.max(1, Math.floor(remaining / 2)) };
      const sub: PassOptions = { flags, storage, arch, ...(target !== undefined ? { targetBytes: target } : {}) };
      try {
        options.log?.(`auto: trying ${key}`);
        const r = pass.run(prefix.model, sub);
        ev = { names, model: r.model, reports: [...prefix.reports, r.report], peakBytes: currentPeakBytes(r.model), totalBytes: totalOf(r.model), latencyMs: latencyOf(r.model) };
      } catch (e) {
        if (!(e instanceof McusimError) || e.code === 'E_INTERNAL') throw e;
        done.set(key, null);
        candidates.push({ passes: key, status: 'failed', peakBytes: null, totalBytes: null, latencyMs: null, meetsTarget: false, error: `${e.code}: ${e.message}` });
        continue;
      }
      done.set(key, ev);
    }
    if (ev === null) continue;
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
