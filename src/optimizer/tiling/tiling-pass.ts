// The `fdt`, `ffmt` and `tiling` passes: the automated tiling exploration of the fused tiling
// paper (§4, Fig. 3). Schedule + layout the graph, take the critical buffers largest first, propose
// paths (tiling-paths.ts), apply each candidate (fdt-transform.ts / ffmt-transform.ts), evaluate it
// by memory-aware scheduling and tflm-greedy layout, keep the best if it shrinks the layout, and
// iterate until no critical buffer yields a smaller layout or the time budget runs out. The result
// is laid out by the exact planner (kept as an offline plan when it beats greedy). Reports savings
// and MAC overheads per applied configuration, as the paper's Table 2.
import { McusimError, UsageError, withOfflinePlan } from '../../ir/index.ts';
import type { Graph, Model } from '../../ir/index.ts';
import { computeBufferRequests, computeModelBufferRequests, planExact, planGreedy } from '../planners/index.ts';
import { applyFdt } from './fdt-transform.ts';
import { applyFfmt } from './ffmt-transform.ts';
import type { OptimizerPass, PassOptions, PassResult } from '../pass.ts';
import { scheduleAndReorder } from '../schedule/index.ts';
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
  readonly timedOut: boolean;
}

export interface TilingSearchOptions {
  readonly timeBudgetMs?: number;
  /**
   * Budget of the memory-aware scheduler, run on each step's best candidate (candidates themselves
   * are laid out in the transform's partition-major order; 0 disables scheduling).
   */
  readonly scheduleBudgetMs?: number;
  /** Stop once the layout is at most this many bytes (`mcusim optimize --target`). */
  readonly targetBytes?: number;
  readonly log?: (line: string) => void;
}

export const DEFAULT_TILING_BUDGET_MS = 20_000;
const DEFAULT_SCHEDULE_BUDGET_MS = 100;

/** Layout size of a graph as the search sees it: best of its order and the scheduled order (greedy layout). */
export function evaluateGraph(graph: Graph, scheduleBudgetMs = DEFAULT_SCHEDULE_BUDGET_MS): { readonly graph: Graph; readonly peakBytes: number } {
  const peak = planGreedy(computeBufferRequests(graph)).peakBytes;
  if (scheduleBudgetMs <= 0) return { graph, peakBytes: peak };
  const s = scheduleAndReorder(graph, { timeBudgetMs: scheduleBudgetMs });
  const sPeak = planGreedy(computeBufferRequests(s.graph)).peakBytes;
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

/** Figure 3's loop for the given methods. */
export function searchTiling(input: Model, methods: readonly TilingMethod[], options: TilingSearchOptions = {}): TilingSearchResult {
  const deadline = performance.now() + (options.timeBudgetMs ?? DEFAULT_TILING_BUDGET_MS);
  const sb = options.scheduleBudgetMs ?? DEFAULT_SCHEDULE_BUDGET_MS;
  const peakBytesBefore = planGreedy(computeModelBufferRequests(input)).peakBytes;
  const macsBefore = graphMacs(input.graph);
  let model = input;
  let peak = peakBytesBefore;
  let evaluated = 0;
  let timedOut = false;
  const applied: AppliedTiling[] = [];
  search: for (;;) {
    if (options.targetBytes !== undefined && peak <= options.targetBytes) break;
    const requests = computeModelBufferRequests(model);
    const crit = criticalTensors(model.graph, requests, planGreedy(requests));
    for (const t of crit) {
      const cands: TilingCandidate[] = [
        ...(methods.includes('fdt') ? proposeFdt(model.graph, t).map((path) => ({ method: 'fdt' as const, path })) : []),
        ...(methods.includes('ffmt') ? proposeFfmt(model.graph, t).map((path) => ({ method: 'ffmt' as const, path })) : []),
      ];
      let best: { model: Model; peak: number; macs: number; c: TilingCandidate } | null = null;
      for (const c of cands) {
        if (performance.now() > deadline) {
          timedOut = true;
          break;
        }
        let tiled: Model;
        try {
          tiled = applyCandidate(model, c);
        } catch (e) {
          if (e instanceof McusimError && e.code === 'E_PLAN_INFEASIBLE') continue;
          throw e;
        }
        evaluated++;
        const ev = evaluateGraph(tiled.graph, 0);
        const macs = graphMacs(ev.graph);
        if (best === null || ev.peakBytes < best.peak || (ev.peakBytes === best.peak && macs < best.macs)) {
          best = { model: tiled, peak: ev.peakBytes, macs, c };
        }
      }
      if (best !== null) {
        const ev = evaluateGraph(best.model.graph, sb);
        best = { ...best, model: { ...best.model, graph: ev.graph }, peak: ev.peakBytes };
      }
      if (best !== null && best.peak < peak) {
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
        options.log?.(`${entry.description}: ${peak} -> ${best.peak} B`);
        applied.push(entry);
        model = best.model;
        peak = best.peak;
        continue search;
      }
      if (timedOut) break search;
    }
    break;
  }
  return { methods, model, peakBytesBefore, peakBytesAfter: peak, macsBefore, macsAfter: graphMacs(model.graph), applied, candidatesEvaluated: evaluated, timedOut };
}

/** Lays the tiled model out with the exact planner; kept as an offline plan when it beats greedy. */
function finalLayout(r: TilingSearchResult, budgetMs: number): { model: Model; peakBytes: number; proven: boolean } {
  if (r.applied.length === 0) return { model: r.model, peakBytes: r.peakBytesAfter, proven: false };
  const requests = computeModelBufferRequests(r.model);
  const greedy = planGreedy(requests).peakBytes;
  const exact = planExact(requests, { timeBudgetMs: budgetMs });
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
  };
}

function budgetOf(options: PassOptions): number {
  const v = options.flags['time-budget-ms'] ?? options.flags.timeBudgetMs ?? DEFAULT_TILING_BUDGET_MS;
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`time-budget-ms must be a positive number, got '${String(v)}'`);
  return n;
}

function notesOf(r: TilingSearchResult): string[] {
  const row = tilingTableRow(r);
  return [
    ...r.applied.map((a) => `${a.description} (critical ${a.criticalTensor}): ${a.peakBytesBefore} -> ${a.peakBytesAfter} B, MACs ${a.macsBefore} -> ${a.macsAfter}`),
    `${row.method}: ${r.peakBytesBefore} -> ${r.peakBytesAfter} B (-${row.savingPct}%), MAC overhead ${row.macOverheadPct}%, ${r.candidatesEvaluated} candidates${r.timedOut ? ' (time budget reached)' : ''}`,
  ];
}

function runTiling(name: string, methods: readonly (readonly TilingMethod[])[], model: Model, options: PassOptions): PassResult {
  const budget = budgetOf(options);
  const searches = methods.map((m) =>
    searchTiling(model, m, {
      timeBudgetMs: (budget * 0.85) / methods.length,
      ...(options.targetBytes !== undefined ? { targetBytes: options.targetBytes } : {}),
      ...(options.log ? { log: options.log } : {}),
    }),
  );
  const best = searches.reduce((a, b) => (b.peakBytesAfter < a.peakBytesAfter || (b.peakBytesAfter === a.peakBytesAfter && b.macsAfter < a.macsAfter) ? b : a));
  const layout = finalLayout(best, budget * 0.15);
  return {
    model: layout.model,
    report: {
      pass: name,
      peakBytesBefore: best.peakBytesBefore,
      peakBytesAfter: layout.peakBytes,
      applied: best.applied.length > 0,
      notes: [...searches.flatMap(notesOf), ...(searches.length > 1 ? [`chosen: ${best.methods.join('+')}`] : [])],
      details: {
        chosen: best.methods.join('+'),
        table: searches.map(tilingTableRow),
        applied: best.applied.map(({ candidate, ...rest }) => ({ ...rest, path: candidate.path })),
        layout: { peakBytes: layout.peakBytes, exactProven: layout.proven },
      },
    },
  };
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
