// The `fdt`, `ffmt` and `tiling` passes: the automated tiling exploration of the fused tiling
// paper (§4, Fig. 3). Schedule + layout the graph, take the critical buffers largest first, propose
// paths (tiling-paths.ts), apply each candidate (fdt-transform.ts / ffmt-transform.ts), evaluate it
// by memory-aware scheduling and tflm-greedy layout, keep the best if it shrinks the layout, and
// iterate until no critical buffer yields a smaller layout or the time budget runs out (checked per
// critical buffer: its candidates are one batch for the injected evaluator, evaluator.ts, which
// the CLI runs in worker threads; evaluateTilingCandidate is the pure per-candidate score). The result
// is laid out by the exact planner (kept as an offline plan when it beats greedy). Reports savings
// and MAC overheads per applied configuration, as the paper's Table 2. Candidates are scored on the
// whole arena for --arch (planned + TFLM's persistent tail, issue 12: every tensor and op a tiling
// adds costs persistent bytes); a tiling that raises the total is declined, saying why (guardTotal,
// the rule every pass ends with). The flag `objective=planned` scores the planned part alone (the
// paper's objective; transform studies); a byte target is compared on the same measure. Every
// candidate is planned with the chosen kernel library's scratch requests and persistent data
// (PassOptions.registry, carried by name in the evaluation context: issue 46 item 5).
import { McusimError, UsageError, readOfflinePlan, withOfflinePlan } from '../../ir/index.ts';
import type { Graph, Model } from '../../ir/index.ts';
import { computeBufferRequests, computeModelBufferRequests, planExact, planGreedy } from '../planners/index.ts';
import { applyFdt } from './fdt-transform.ts';
import { applyFfmt } from './ffmt-transform.ts';
import type { OptimizerPass, PassObjective, PassOptions, PassResult } from '../pass.ts';
import { candidateTotals, describeTotals, graphArena, totalsOfReport } from '../arena-totals.ts';
import { guardTotal, objectiveOf, objectiveScore, targetMeasureOf } from '../total-guard.ts';
import type { ArenaRuntimeTarget, ArenaTotals } from '../arena-totals.ts';
import { DEFAULT_TFLM_ARCH } from '../../sim/index.ts';
import type { TflmArchName } from '../../sim/index.ts';
import { scheduleAndReorder } from '../schedule/index.ts';
import type { CandidateEvaluator } from '../evaluator.ts';
import { kernelNamesOf, registryOfNames, serialEvaluator } from '../evaluator.ts';
import type { KernelNames } from '../evaluator.ts';
import type { KernelRegistry } from '../../kernels/index.ts';
import { criticalTensors, graphMacs, proposeFdt, proposeFfmt } from './tiling-paths.ts';
import type { TilingCandidate } from './tiling-paths.ts';

export type TilingMethod = 'fdt' | 'ffmt';

export interface AppliedTiling {
  readonly method: TilingMethod;
  /** Human description: ops, partitions / grid. */
  readonly description: string;
  readonly candidate: TilingCandidate;
  readonly criticalTensor: string;
  readonly peakBytesBefore: number;
  readonly peakBytesAfter: number;
  readonly macsBefore: number;
  readonly macsAfter: number;
}

export interface TilingSearchResult {
  readonly methods: readonly TilingMethod[];
  readonly model: Model;
  readonly peakBytesBefore: number;
  readonly peakBytesAfter: number;
  readonly macsBefore: number;
  readonly macsAfter: number;
  readonly applied: readonly AppliedTiling[];
  readonly candidatesEvaluated: number;
  /** An explicit wall-clock budget cut the search (the result then depends on the machine). */
  readonly timedOut: boolean;
  /** What stopped the search before it ran out of candidates: the candidate budget, the clock, or nothing. */
  readonly cut: 'candidates' | 'time' | null;
  /** Whole arena of the input and of the result (objective `total`: what the search minimized). */
  readonly totalsBefore: ArenaTotals;
  readonly totalsAfter: ArenaTotals;
  /**
   * When the search stopped: the candidate of its last round with the smallest planned part that
   * lowered the planned bytes but not the total (why no further tiling was applied), if any.
   */
  readonly declined: { readonly description: string; readonly after: ArenaTotals } | null;
}

/** What the search minimizes: the whole arena (default) or the planned part alone. */
export type TilingObjective = PassObjective;

export interface TilingSearchOptions {
  /** Candidates the search may score (default DEFAULT_TILING_CANDIDATES): work, not time, so one
   * command gives the same file on every machine. */
  readonly maxCandidates?: number;
  /** A wall-clock budget besides (none by default): a search it cuts depends on the machine. */
  readonly timeBudgetMs?: number;
  /**
   * DP states of the memory-aware scheduler, run on each step's best candidate (candidates themselves
   * are laid out in the transform's partition-major order; 0 disables scheduling).
   */
  readonly scheduleStates?: number;
  /** Stop once the objective's measure (total, or planned) is at most this many bytes (`--target-bytes`). */
  readonly targetBytes?: number;
  readonly log?: (line: string) => void;
  /** The TFLM build whose persistent tail is scored (default cortex-m). */
  readonly arch?: TflmArchName;
  /** Whose arena on `arch` is scored (PassOptions.runtime). */
  readonly runtime?: ArenaRuntimeTarget;
  /** Default 'total'. */
  readonly objective?: TilingObjective;
  /** Scores each step's candidates (default serialEvaluator, in order on this thread). */
  readonly evaluator?: CandidateEvaluator;
  /** The kernel library whose scratch and persistent data are planned (default reference). */
  readonly kernels?: KernelNames;
}

/** Candidates one tiling search scores at most (per method set); real models use a few hundred. */
export const DEFAULT_TILING_CANDIDATES = 5000;
/** DP states of the memory-aware scheduler run on each step's best candidate (0 disables it). */
const DEFAULT_SCHEDULE_STATES = 50_000;

/** Layout size of a graph as the search sees it: best of its order and the scheduled order (greedy layout). */
export function evaluateGraph(graph: Graph, scheduleStates = DEFAULT_SCHEDULE_STATES, registry?: KernelRegistry): { readonly graph: Graph; readonly peakBytes: number } {
  const reg = registry === undefined ? {} : { registry };
  const peak = planGreedy(computeBufferRequests(graph, reg)).peakBytes;
  if (scheduleStates <= 0) return { graph, peakBytes: peak };
  const s = scheduleAndReorder(graph, { maxStates: scheduleStates });
  const sPeak = planGreedy(computeBufferRequests(s.graph, reg)).peakBytes;
  return sPeak < peak ? { graph: s.graph, peakBytes: sPeak } : { graph, peakBytes: peak };
}

function describe(graph: Graph, c: TilingCandidate): string {
  const name = (i: number): string => `${i}:${graph.ops[i]?.kind ?? '?'}`;
  if (c.method === 'fdt') {
    const p = c.path;
    return `FDT N=${p.partitions}: fan-out ${name(p.fanOut)}${p.part.map((i) => ` -> ${name(i)}`).join('')} -> ${p.fanIn === null ? 'concat' : `fan-in ${name(p.fanIn)} + merge`}`;
  }
  return `FFMT ${c.path.gridH}x${c.path.gridW}: split -> ${c.path.ops.map(name).join(' -> ')} -> concat`;
}

function applyCandidate(model: Model, c: TilingCandidate): Model {
  return c.method === 'fdt' ? applyFdt(model, c.path) : applyFfmt(model, c.path);
}

/** What one tiling candidate scores (evaluateTilingCandidate): infeasible, or its greedy layout. */
export type TilingScore =
  | { readonly status: 'infeasible' }
  | { readonly status: 'ok'; readonly peakBytes: number; readonly totals: ArenaTotals; readonly macs: number };

/** The model a search step tiles and the arch whose whole arena is scored. */
export interface TilingEvalContext {
  readonly model: Model;
  readonly arch: TflmArchName;
  readonly runtime?: ArenaRuntimeTarget;
  /** The kernel library planned for, by name (a registry does not cross to a worker thread). */
  readonly kernels?: KernelNames;
}

/**
 * One candidate of a search step, pure: applied to the step's model and laid out in the
 * transform's order by tflm-greedy (no scheduling). An infeasible tiling is a score, not an error.
 */
export function evaluateTilingCandidate(ctx: TilingEvalContext, c: TilingCandidate): TilingScore {
  let tiled: Model;
  try {
    tiled = applyCandidate(ctx.model, c);
  } catch (e) {
    if (e instanceof McusimError && e.code === 'E_PLAN_INFEASIBLE') return { status: 'infeasible' };
    throw e;
  }
  const registry = registryOfNames(ctx.kernels);
  const ev = evaluateGraph(tiled.graph, 0, registry);
  return { status: 'ok', peakBytes: ev.peakBytes, totals: totalsOf(ev.graph, ev.peakBytes, tiled, ctx.arch, ctx.runtime, registry), macs: graphMacs(ev.graph) };
}

/** Figure 3's loop for the given methods. */
export function searchTiling(input: Model, methods: readonly TilingMethod[], options: TilingSearchOptions = {}): TilingSearchResult {
  const deadline = options.timeBudgetMs === undefined ? Infinity : performance.now() + options.timeBudgetMs;
  const maxCandidates = options.maxCandidates ?? DEFAULT_TILING_CANDIDATES;
  const sb = options.scheduleStates ?? DEFAULT_SCHEDULE_STATES;
  const arch = options.arch ?? DEFAULT_TFLM_ARCH;
  const objective = options.objective ?? 'total';
  const evaluator = options.evaluator ?? serialEvaluator;
  const registry = registryOfNames(options.kernels);
  const totalsBefore = candidateTotals(input, arch, registry, options.runtime);
  const peakBytesBefore = totalsBefore.plannedBytes;
  const macsBefore = graphMacs(input.graph);
  const scoreOf = (t: ArenaTotals): number => objectiveScore(t, objective);
  const measure = targetMeasureOf(objective);
  let model = input;
  let peak = peakBytesBefore;
  let totals = totalsBefore;
  let declined: TilingSearchResult['declined'] = null;
  let evaluated = 0;
  let scored = 0;
  let timedOut = false;
  let cut: TilingSearchResult['cut'] = null;
  const applied: AppliedTiling[] = [];
  search: for (;;) {
    if (options.targetBytes !== undefined && totals[measure] <= options.targetBytes) break;
    const requests = computeModelBufferRequests(model, registry);
    const crit = criticalTensors(model.graph, requests, planGreedy(requests));
    declined = null;
    const ctx: TilingEvalContext = { model, arch, ...(options.runtime ? { runtime: options.runtime } : {}), ...(options.kernels ? { kernels: options.kernels } : {}) };
    for (const t of crit) {
      const cands: TilingCandidate[] = [
        ...(methods.includes('fdt') ? proposeFdt(model.graph, t).map((path) => ({ method: 'fdt' as const, path })) : []),
        ...(methods.includes('ffmt') ? proposeFfmt(model.graph, t).map((path) => ({ method: 'ffmt' as const, path })) : []),
      ];
      let best: { model: Model; peak: number; totals: ArenaTotals; macs: number; c: TilingCandidate } | null = null;
      // The budgets are checked per critical tensor: its candidates are one batch for the evaluator.
      if (cands.length > 0 && scored + cands.length > maxCandidates) {
        cut = 'candidates';
        break;
      }
      if (cands.length > 0 && performance.now() > deadline) {
        timedOut = true;
        cut = 'time';
        break;
      }
      scored += cands.length;
      const scores = evaluator.map('tiling', evaluateTilingCandidate, ctx, cands);
      let bestIndex = -1;
      cands.forEach((c, i) => {
        const sc = scores[i];
        if (sc === undefined || sc.status === 'infeasible') return;
        evaluated++;
        const t2 = sc.totals;
        // A tiling must shrink the plan itself: a lower total from a change of runtime alone (a
        // custom op moving the graph to mcusim's runtime and its smaller tail) is not a tiling gain.
        if (objective === 'total' && t2.plannedBytes >= peak) return;
        const bs = bestIndex < 0 ? undefined : scores[bestIndex];
        if (bs === undefined || bs.status !== 'ok' || scoreOf(t2) < scoreOf(bs.totals) || (scoreOf(t2) === scoreOf(bs.totals) && sc.macs < bs.macs)) bestIndex = i;
        if (objective === 'total' && t2.plannedBytes < peak && scoreOf(t2) >= scoreOf(totals) && (declined === null || t2.plannedBytes < declined.after.plannedBytes)) {
          declined = { description: describe(model.graph, c), after: t2 };
        }
      });
      const bc = cands[bestIndex];
      const bsc = scores[bestIndex];
      if (bc !== undefined && bsc !== undefined && bsc.status === 'ok') {
        // Candidates are scored as descriptions; the winner is applied again here (deterministic).
        best = { model: applyCandidate(model, bc), peak: bsc.peakBytes, totals: bsc.totals, macs: bsc.macs, c: bc };
      }
      if (best !== null) {
        const ev = evaluateGraph(best.model.graph, sb, registry);
        best = { ...best, model: { ...best.model, graph: ev.graph }, peak: ev.peakBytes, totals: totalsOf(ev.graph, ev.peakBytes, best.model, arch, options.runtime, registry) };
      }
      if (best !== null && scoreOf(best.totals) < scoreOf(totals)) {
        const entry: AppliedTiling = {
          method: best.c.method,
          description: describe(model.graph, best.c),
          candidate: best.c,
          criticalTensor: model.graph.tensors[t]?.name ?? String(t),
          peakBytesBefore: peak,
          peakBytesAfter: best.peak,
          macsBefore: graphMacs(model.graph),
          macsAfter: best.macs,
        };
        options.log?.(`${entry.description}: ${describeTotals(totals, best.totals)}`);
        applied.push(entry);
        model = best.model;
        peak = best.peak;
        totals = best.totals;
        continue search;
      }
      if (cut !== null) break search;
    }
    break;
  }
  return {
    methods, model, peakBytesBefore, peakBytesAfter: peak, macsBefore, macsAfter: graphMacs(model.graph), applied,
    candidatesEvaluated: evaluated, timedOut, cut, totalsBefore, totalsAfter: totals, declined,
  };
}

/** Totals of a candidate whose (possibly reordered) graph plans to `plannedBytes`. */
function totalsOf(graph: Graph, plannedBytes: number, model: Model, arch: TflmArchName, runtime?: ArenaRuntimeTarget, registry?: KernelRegistry): ArenaTotals {
  const bufferCount = computeBufferRequests(graph, registry === undefined ? {} : { registry }).length;
  return totalsOfReport(graphArena(graph, { plannedBytes, bufferCount }, arch, readOfflinePlan(model), registry, runtime));
}

/** Lays the tiled model out with the exact planner; kept as an offline plan when it beats greedy. */
function finalLayout(r: TilingSearchResult, budgetMs: number | undefined, registry?: KernelRegistry): { model: Model; peakBytes: number; proven: boolean } {
  if (r.applied.length === 0) return { model: r.model, peakBytes: r.peakBytesAfter, proven: false };
  const requests = computeModelBufferRequests(r.model, registry);
  const greedy = planGreedy(requests).peakBytes;
  const exact = planExact(requests, budgetMs === undefined ? {} : { timeBudgetMs: budgetMs });
  if (exact.peakBytes >= greedy) return { model: r.model, peakBytes: greedy, proven: exact.proven };
  const offsets = r.model.graph.tensors.map(() => -1);
  requests.forEach((q, i) => {
    if (q.tensor !== null) offsets[q.tensor] = exact.offsets[i] ?? -1;
  });
  return { model: withOfflinePlan(r.model, offsets), peakBytes: exact.peakBytes, proven: exact.proven };
}

const pct = (a: number, b: number): number => (b === 0 ? 0 : Math.round(((a - b) / b) * 1000) / 10);

/** One Table-2 row of a search. */
export function tilingTableRow(r: TilingSearchResult): Record<string, number | string> {
  return {
    method: r.methods.join('+'),
    peakBytesBefore: r.peakBytesBefore,
    peakBytesAfter: r.peakBytesAfter,
    savingPct: -pct(r.peakBytesAfter, r.peakBytesBefore),
    macsBefore: r.macsBefore,
    macsAfter: r.macsAfter,
    macOverheadPct: pct(r.macsAfter, r.macsBefore),
    configs: r.applied.length,
    totalBytesBefore: r.totalsBefore.totalBytes,
    totalBytesAfter: r.totalsAfter.totalBytes,
  };
}

/** An explicit wall-clock budget (flag time-budget-ms), or none. */
function budgetOf(options: PassOptions): number | undefined {
  const v = options.flags['time-budget-ms'] ?? options.flags.timeBudgetMs;
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`time-budget-ms must be a positive number, got '${String(v)}'`);
  return n;
}

/** The candidate budget (flag max-candidates, default DEFAULT_TILING_CANDIDATES). */
function candidatesOf(options: PassOptions): number {
  const v = options.flags['max-candidates'] ?? DEFAULT_TILING_CANDIDATES;
  const n = Number(v);
  if (!Number.isSafeInteger(n) || n <= 0) throw new UsageError(`max-candidates must be a positive integer, got '${String(v)}'`);
  return n;
}

function notesOf(r: TilingSearchResult, objective: TilingObjective): string[] {
  const row = tilingTableRow(r);
  const what = objective === 'total' ? 'the whole arena (planned + persistent)' : 'the planned peak';
  const why = r.declined === null ? [] : [`${row.method}: declined ${r.declined.description}: ${describeTotals(r.totalsAfter, r.declined.after).replace(', persistent', ' but persistent')}`];
  return [
    ...r.applied.map((a) => `${a.description} (critical ${a.criticalTensor}): ${a.peakBytesBefore} -> ${a.peakBytesAfter} B, MACs ${a.macsBefore} -> ${a.macsAfter}`),
    `${row.method}: ${r.peakBytesBefore} -> ${r.peakBytesAfter} B (-${row.savingPct}%), ${describeTotals(r.totalsBefore, r.totalsAfter)}, MAC overhead ${row.macOverheadPct}%, ${r.candidatesEvaluated} candidates${r.cut === 'time' ? ' (cut by --time-budget-ms: another machine may find another result)' : r.cut === 'candidates' ? ` (candidate budget reached: max-candidates)` : ''}`,
    ...why,
    ...(r.applied.length === 0 ? [`${row.method}: declined: none of the ${r.candidatesEvaluated} tiling candidates lowers ${what}; the model is returned unchanged`] : []),
  ];
}

function runTiling(name: string, methods: readonly (readonly TilingMethod[])[], model: Model, options: PassOptions): PassResult {
  const budget = budgetOf(options);
  const maxCandidates = candidatesOf(options);
  const arch = options.arch ?? DEFAULT_TFLM_ARCH;
  const objective = objectiveOf(options);
  const score = (t: ArenaTotals): number => objectiveScore(t, objective);
  const kernels = kernelNamesOf(options.registry);
  const searches = methods.map((m) =>
    searchTiling(model, m, {
      arch,
      ...(options.runtime ? { runtime: options.runtime } : {}),
      objective,
      maxCandidates,
      ...(budget !== undefined ? { timeBudgetMs: (budget * 0.85) / methods.length } : {}),
      ...(options.targetBytes !== undefined ? { targetBytes: options.targetBytes } : {}),
      ...(options.log ? { log: options.log } : {}),
      ...(options.evaluator ? { evaluator: options.evaluator } : {}),
      ...(kernels ? { kernels } : {}),
    }),
  );
  const best = searches.reduce((a, b) => {
    const sa = score(a.totalsAfter);
    const sb = score(b.totalsAfter);
    return sb < sa || (sb === sa && b.macsAfter < a.macsAfter) ? b : a;
  });
  const layout = finalLayout(best, budget === undefined ? undefined : budget * 0.15, options.registry);
  const after = best.applied.length > 0 ? candidateTotals(layout.model, arch, options.registry, options.runtime) : best.totalsBefore;
  const notes = [...searches.flatMap((r) => notesOf(r, objective)), ...(searches.length > 1 ? [`chosen: ${best.methods.join('+')}`] : [])];
  const details = {
    arch,
    objective,
    totalsBefore: best.totalsBefore,
    totalsAfter: after,
    chosen: best.methods.join('+'),
    table: searches.map(tilingTableRow),
    applied: best.applied.map(({ candidate, ...rest }) => ({ ...rest, path: candidate.path })),
    layout: { peakBytes: layout.peakBytes, exactProven: layout.proven },
  };
  const result: PassResult = {
    model: layout.model,
    report: { pass: name, peakBytesBefore: best.peakBytesBefore, peakBytesAfter: layout.peakBytes, applied: best.applied.length > 0, notes, details },
  };
  // The last word: a result that raises what the pass minimizes is never applied.
  const guarded = guardTotal(model, result, options, { before: best.totalsBefore, after });
  if (guarded.report.applied || !result.report.applied) return guarded;
  return { ...guarded, report: { ...guarded.report, details: { ...details, totalsAfter: best.totalsBefore } } };
}

export const fdtPass: OptimizerPass = {
  name: 'fdt',
  description: 'fused depthwise tiling: channel partitions from a Fan-Out conv through partition-local ops to a Merge or Concat (FDT paper)',
  run: (model, options) => runTiling('fdt', [['fdt']], model, options),
};

export const ffmtPass: OptimizerPass = {
  name: 'ffmt',
  description: 'fused feature-map tiling: spatial tiles with halos between an explicit Split and Concat',
  run: (model, options) => runTiling('ffmt', [['ffmt']], model, options),
};

export const tilingPass: OptimizerPass = {
  name: 'tiling',
  description: 'FDT and FFMT path discovery side by side (and combined); keeps the smallest layout',
  run: (model, options) => runTiling('tiling', [['fdt'], ['ffmt'], ['fdt', 'ffmt']], model, options),
};
