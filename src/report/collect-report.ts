// Gathers everything the HTML report shows for one model and one pass list: model summary, the
// plan before and after (TFLM greedy honouring an offline plan, as a board would run it), per-op
// safe overlap O_s (DMO §III-C/D), what each pass did, latency on the board with the two-core
// timeline (TinySeg §5.2), and the partial-spilling sweep when the passes include tinyseg
// (TinySeg Figure 14), the whole arena on the board's Cortex-M build (planned + TFLM's persistent
// tail, or mcusim's runtime for custom ops) and whether it fits the board. Verification runs in
// the caller (it owns the seeds and the progress). The kernel libraries section (kernel-libraries.ts)
// puts the reference and CMSIS-NN builds of the model side by side.
import type { KernelRegistry } from '../kernels/index.ts';
import type { Model } from '../ir/index.ts';
import { byteSize, exportTflite, readOfflinePlan } from '../ir/index.ts';
import { countMacs } from '../kernels/index.ts';
import type { BufferRequest, CandidateEvaluator, PassReport, Plan, SpillSweepResult } from '../optimizer/index.ts';
import {
  analyticSafeOverlap, computeModelBufferRequests, describePlanSource, estimateModelLatency, overlapCandidate, planGreedy, runPipeline,
  analyticApplies, safeOverlap, sweepPartialSpill,
} from '../optimizer/index.ts';
import type { KernelLibrary, LatencyReport, TargetProfile } from '../sim/index.ts';
import { CORTEX_M, DEFAULT_KERNEL_LIBRARY, boardFit, niclaVision, runtimeArena } from '../sim/index.ts';
import type { ArenaTotals, BoardFit } from './arena-totals.ts';
import { collectKernelLibraries } from './kernel-libraries.ts';
import type { KernelLibrariesSection } from './kernel-libraries.ts';

export interface ReportOptions {
  /** The model as the user named it (path or zoo:name). */
  readonly modelLabel: string;
  readonly passes: readonly string[];
  /** The board (latency target); default nicla-vision. */
  readonly target?: TargetProfile;
  readonly library?: KernelLibrary;
  /** The kernel library the passes plan for and the arena and O_s are computed with (default reference). */
  readonly registry?: KernelRegistry;
  /** Points of the spill sweep (tinyseg only); default 4 (0, 25, 50, 75, 100%). */
  readonly sweepSteps?: number;
  /** Whole-arena numbers and board fit replacing the computed ones (default: the board's Cortex-M build). */
  readonly arena?: { readonly before?: Omit<ArenaTotals, 'plannedBytes'>; readonly after?: Omit<ArenaTotals, 'plannedBytes'> };
  readonly fit?: { readonly before?: BoardFit; readonly after?: BoardFit };
  readonly log?: (line: string) => void;
  /** Evaluates the passes' candidates (tiling, auto) and the sweep's points: default on this
   * thread; the CLI's worker pool (`report --jobs`) gives the same results. */
  readonly evaluator?: CandidateEvaluator;
}

export interface ReportLayout {
  readonly requests: readonly BufferRequest[];
  readonly plan: Plan;
  /** "planner tflm-greedy" or "offline plan carried in the model ...". */
  readonly source: string;
}

export interface ModelSummary {
  readonly ops: number;
  readonly opKinds: readonly { readonly kind: string; readonly count: number }[];
  readonly tensors: number;
  readonly macs: number;
  readonly weightBytes: number;
  /** Size of the .tflite flatbuffer (what goes to flash). */
  readonly flatbufferBytes: number;
}

export interface OpOverlapRow {
  readonly op: number;
  readonly kind: string;
  readonly output: string;
  readonly outputBytes: number;
  readonly analyticBytes: number | null;
  readonly algorithmicBytes: number | null;
  /** DMO's rules let this op's input overlap its output (last reader, not a graph output, read once). */
  readonly usable: boolean;
}

export interface ReportData {
  /** The kernel library of the arena, O_s and plans, and its CPU (null: reference). */
  readonly kernels: string;
  readonly cpu: string | null;
  readonly modelLabel: string;
  readonly passes: readonly string[];
  readonly target: string;
  readonly original: Model;
  readonly optimized: Model;
  readonly summary: { readonly before: ModelSummary; readonly after: ModelSummary };
  readonly layout: { readonly before: ReportLayout; readonly after: ReportLayout };
  readonly arena: { readonly before: ArenaTotals; readonly after: ArenaTotals };
  readonly fit?: { readonly before?: BoardFit; readonly after?: BoardFit };
  readonly passReports: readonly PassReport[];
  readonly overlaps: readonly OpOverlapRow[];
  readonly latency: { readonly before: LatencyReport; readonly after: LatencyReport };
  readonly sweep: SpillSweepResult | null;
  /** The model as given on the reference and the CMSIS-NN build, side by side. */
  readonly kernelLibraries: KernelLibrariesSection;
}

function summarize(model: Model): ModelSummary {
  const g = model.graph;
  const kinds = new Map<string, number>();
  for (const op of g.ops) {
    const k = op.kind === 'custom' ? `custom:${op.customCode}` : op.kind;
    kinds.set(k, (kinds.get(k) ?? 0) + 1);
  }
  return {
    ops: g.ops.length,
    opKinds: [...kinds.entries()].map(([kind, count]) => ({ kind, count })).sort((a, b) => b.count - a.count || a.kind.localeCompare(b.kind)),
    tensors: g.tensors.length,
    macs: g.ops.reduce((s, op) => s + countMacs(op, g), 0),
    weightBytes: g.tensors.reduce((s, t) => s + (t.data === null ? 0 : t.data.length), 0),
    flatbufferBytes: exportTflite(model).length,
  };
}

function layoutOf(model: Model, registry?: KernelRegistry): ReportLayout {
  const requests = computeModelBufferRequests(model, registry);
  const plan = planGreedy(requests);
  return { requests, plan, source: describePlanSource(requests, plan.planner) };
}

/** O_s of every op by the analytic bound and the exact algorithmic walk (null where a method does not apply). */
function opOverlaps(model: Model, requests: readonly BufferRequest[], registry?: KernelRegistry): OpOverlapRow[] {
  const g = model.graph;
  const attempt = (f: () => number): number | null => {
    try {
      return f();
    } catch {
      return null;
    }
  };
  return g.ops.flatMap((op, i) => {
    if (op.kind === 'custom') return [];
    const out = g.tensors[op.outputs[0] ?? -1];
    if (out === undefined) return [];
    return [{
      op: i,
      kind: op.kind,
      output: `${out.shape.join('x')}`,
      outputBytes: byteSize(out.dtype, out.shape),
      analyticBytes: analyticApplies(op, registry) ? attempt(() => analyticSafeOverlap(op, g)) : null,
      algorithmicBytes: attempt(() => safeOverlap(g, i, { method: 'algorithmic', ...(registry === undefined ? {} : { registry }) })),
      usable: overlapCandidate(g, i, requests) !== null,
    }];
  });
}

/** The whole arena of `model` with the report's plan on a Cortex-M build, and whether it fits `target`. */
function wholeArenaOf(model: Model, layout: ReportLayout, target: TargetProfile, registry?: KernelRegistry): { readonly totals: ArenaTotals; readonly fit: BoardFit } {
  // TFLM's arena (what users deploy; mcusim's generated kernels for the ops stock TFLM lacks): TFLM plans the file itself.
  const tflmPlan = planGreedy(layout.requests).peakBytes;
  const r = runtimeArena(model.graph, { plannedBytes: tflmPlan, bufferCount: layout.requests.length }, CORTEX_M, 'tflm', { offlineOffsets: readOfflinePlan(model), ...(registry !== undefined ? { registry } : {}) });
  const totals = { runtime: r.runtime, kernels: r.kernels, cpu: r.cpu, plannedBytes: layout.plan.peakBytes, persistentBytes: r.persistentBytes, totalBytes: r.totalBytes, declareBytes: r.declareBytes, outsideArenaBytes: r.outsideArenaBytes };
  return { totals, fit: boardFit(model.graph, r, target) };
}

export function collectReport(model: Model, opts: ReportOptions): ReportData {
  const log = opts.log ?? (() => undefined);
  const target = opts.target ?? niclaVision;
  const library = opts.library ?? opts.registry?.library ?? DEFAULT_KERNEL_LIBRARY;
  const reg = opts.registry;
  log(`report: running passes ${opts.passes.join(',')}`);
  const result = runPipeline(model, opts.passes, { flags: {}, log, ...(opts.evaluator !== undefined ? { evaluator: opts.evaluator } : {}), ...(reg === undefined ? {} : { registry: reg }) });
  const before = layoutOf(model, reg);
  const after = layoutOf(result.model, reg);
  log('report: safe overlap O_s per op');
  const overlaps = opOverlaps(model, before.requests, reg);
  log('report: reference and cmsis-nn side by side');
  const chosenOs: (number | null)[] = model.graph.ops.map(() => null);
  for (const o of overlaps) chosenOs[o.op] = o.algorithmicBytes;
  // A leading dmo pass ran on the model as given for the chosen library (runPipeline: default arch cortex-m).
  const leadingDmo = opts.passes[0] === 'dmo' ? result.reports[0] : undefined;
  const kernelLibraries = collectKernelLibraries(model, target, reg, chosenOs, leadingDmo);
  const whole = { before: wholeArenaOf(model, before, target, reg), after: wholeArenaOf(result.model, after, target, reg) };
  log(`report: latency on ${target.name}`);
  const latencyOf = (m: Model): LatencyReport => estimateModelLatency(m, { target, library, storage: 'internal', asyncErase: true, compress: false });
  const latency = { before: latencyOf(model), after: latencyOf(result.model) };
  let sweep: SpillSweepResult | null = null;
  if (opts.passes.includes('tinyseg')) {
    const steps = opts.sweepSteps ?? 4;
    sweep = sweepPartialSpill(model, {
      target, library, storage: 'internal', asyncErase: true, steps,
      onProgress: (row, i, n) => log(`report: spill sweep ${i + 1}/${n} (${row.requestedPercent}%)`),
      ...(opts.evaluator !== undefined ? { evaluator: opts.evaluator } : {}),
      ...(reg === undefined ? {} : { registry: reg }),
    });
  }
  return {
    kernels: reg?.library ?? 'reference',
    cpu: reg?.cpu ?? null,
    modelLabel: opts.modelLabel,
    passes: opts.passes,
    target: target.name,
    original: model,
    optimized: result.model,
    summary: { before: summarize(model), after: summarize(result.model) },
    layout: { before, after },
    arena: {
      before: { ...whole.before.totals, ...opts.arena?.before, plannedBytes: before.plan.peakBytes },
      after: { ...whole.after.totals, ...opts.arena?.after, plannedBytes: after.plan.peakBytes },
    },
    fit: { before: whole.before.fit, after: whole.after.fit, ...opts.fit },
    passReports: result.reports,
    overlaps,
    latency,
    sweep,
    kernelLibraries,
  };
}
