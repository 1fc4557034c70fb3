// The page's look at one model for one build (engine worker): inspect's summary, op table and
// verified plan with its picture, the latency on the chosen board per op, and one row per board
// (fit from inspect's board check, latency as `mcusim latency --board NAME`). Every figure comes
// from the library through cli-equivalents.ts, with the CLI's arguments.
import type { Model } from '../ir/index.ts';
import { renderPlanSvg } from '../optimizer/index.ts';
import type { LatencyReport } from '../sim/index.ts';
import { boardFit, getTarget, heaviestOp, listTargets } from '../sim/index.ts';
import { inspectBuild, latencyOn } from './cli-equivalents.ts';
import type { Analysis, BoardLatency, BoardRow, Build } from './protocol.ts';

const shapeText = (s: readonly number[] | null): string => (s === null ? '-' : s.join('x'));

export function boardLatency(r: LatencyReport): BoardLatency {
  return {
    board: r.board, library: r.library, engine: r.engine, core: r.core.family, clockMhz: r.core.clockHz / 1e6, totalMs: r.totalMs,
    instructions: r.instructions,
    ops: r.ops.map((o) => ({ index: o.index, kind: o.kind, path: o.path, macs: o.macs, instructions: o.instructions, cycles: o.cycles, ms: o.ms, share: o.share })),
  };
}

export function analyzeModel(model: Model, label: string, build: Build): Analysis {
  const { report, requests, plan } = inspectBuild(model, label, build);
  const latency = latencyOn(model, build.board, build);
  const boards: BoardRow[] = listTargets().map((name) => {
    const target = getTarget(name);
    const { board: _board, weightsBytes: _weights, ...fit } = boardFit(model.graph, report.arena, target);
    const r = name === build.board ? latency : latencyOn(model, name, build);
    return { ...fit, board: name, core: target.core.family, clockMhz: target.mainCore.clockHz / 1e6, latencyMs: r.totalMs, heaviestOp: heaviestOp(r) };
  });
  const opLatency = new Map(latency.ops.map((o) => [o.index, o]));
  const fit = report.fit;
  const t = report.tensors;
  return {
    label,
    kernels: report.kernels,
    cpu: report.cpu,
    summary: {
      ops: report.ops.length, tensors: t.length, macs: report.totalMacs,
      weightsBytes: fit?.weightsBytes ?? t.filter((x) => x.constant).reduce((s, x) => s + x.bytes, 0),
      plannedBytes: report.plan.peakBytes, lowerBoundBytes: report.plan.lowerBoundBytes,
      arenaBytes: report.arena.totalBytes, persistentBytes: report.arena.persistentBytes,
      arch: report.arena.arch, runtime: report.arena.runtime,
    },
    ops: report.ops.map((o) => ({
      index: o.index, kind: o.kind, inputShapes: o.inputShapes.map(shapeText).join(', '), outputShapes: o.outputShapes.map(shapeText).join(', '),
      macs: o.macs, ms: opLatency.get(o.index)?.ms ?? 0, path: opLatency.get(o.index)?.path ?? '',
    })),
    buffers: report.plan.buffers.map((b) => ({ tensor: b.tensor, name: b.name, offset: b.offset, size: b.size, first: b.first, last: b.last })),
    planSvg: renderPlanSvg(requests, plan, { title: `${label} (${plan.planner}, ${report.kernels} kernels)`, legend: false, idPrefix: 'before-' }),
    latency: boardLatency(latency),
    boards,
    warning: plan.libraryHazard ?? null,
  };
}
