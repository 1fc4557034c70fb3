// The page's Optimize (engine worker): `mcusim optimize` with the page's flags (cli-equivalents.ts),
// the chosen board's latency before and after (as `mcusim latency`), the plan picture after on the
// byte scale of the one before, and the file's bytes for the download link.
import type { Model } from '../ir/index.ts';
import { renderPlanSvg } from '../optimizer/index.ts';
import type { OptimizeFigures } from './cli-equivalents.ts';
import { inspectBuild, latencyOn, optimizeBuild } from './cli-equivalents.ts';
import type { Optimized, OptimizeRequest } from './protocol.ts';

/** Kinds of the ops only mcusim's generated TFLM kernels run (inspect's list). */
const MCUSIM_OP_KINDS: readonly string[] = ['spill', 'fetching', 'fetchingConv2d', 'merge'];

function targetText(f: OptimizeFigures): string | null {
  const t = f.report.target;
  if (t === undefined) return null;
  const what = t.measure === 'totalBytes' ? 'whole arena' : 'planned arena';
  return t.met ? `target ${t.bytes} B met: ${t.achievedBytes} B (${what})` : `target ${t.bytes} B missed by ${t.gapBytes} B: best ${t.achievedBytes} B (${what}); the file is the best model`;
}

export function fileStem(label: string): string {
  return label.replace(/^zoo:/, '').replace(/^.*[\\/]/, '').replace(/\.tflite$/i, '');
}

export interface OptimizeOutcome {
  readonly result: Optimized;
  readonly model: Model;
}

export function optimizeForPage(model: Model, label: string, req: OptimizeRequest, log: (line: string) => void): OptimizeOutcome {
  const f = optimizeBuild(model, label, req, req.build, log);
  const r = f.report;
  const board = req.build.board;
  const before = latencyOn(model, board, req.build);
  const after = latencyOn(f.model, board, req.build);
  const { requests, plan } = inspectBuild(f.model, label, req.build);
  const scaleBytes = Math.max(r.before.peakBytes, plan.peakBytes);
  const passes = r.passes.map((p) => p.pass).join('+');
  const other = r.runtimes === undefined ? null : Object.entries(r.runtimes).find(([name]) => name !== r.runtime);
  return {
    model: f.model,
    result: {
      flags: f.cliFlags,
      runtime: r.runtime,
      passes: r.passes.map((p) => ({ pass: p.pass, applied: p.applied, peakBytesBefore: p.peakBytesBefore, peakBytesAfter: p.peakBytesAfter, notes: p.notes })),
      before: { peakBytes: r.before.peakBytes, arenaBytes: r.before.arena.totalBytes, latencyMs: before.totalMs },
      after: { peakBytes: r.after.peakBytes, arenaBytes: r.after.arena.totalBytes, latencyMs: after.totalMs },
      otherRuntime: other === undefined || other === null ? null : { runtime: other[0], beforeBytes: other[1].before.totalBytes, afterBytes: other[1].after.totalBytes },
      board,
      planSvg: renderPlanSvg(requests, plan, { title: `${label} after ${passes}`, legend: false, idPrefix: 'after-', scaleBytes }),
      bytes: f.bytes,
      refused: r.refused ?? null,
      fileName: `${fileStem(label)}-${passes}.tflite`,
      target: targetText(f),
      customOps: f.model.graph.ops.flatMap((op, i) => (MCUSIM_OP_KINDS.includes(op.kind) ? [`op ${i} ${op.kind}`] : [])),
    },
  };
}
