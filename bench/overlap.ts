// Safe-overlap O_s computation time per method (DMO paper §III-B/C/D: trace, algorithmic minR/maxW,
// analytic closed form) for the largest op of each kind across the zoo models (largest by the
// bytes of its input + output buffers). Median of several runs; the analytic method is timed in
// batches because one call takes microseconds. The algorithmic method is timed without its per-op
// cache (the walk itself), beside the same reduction as a sink over the walk's event log
// (walkAddresses + algorithmicReduction, what safeOverlap ran before the reduction was folded into
// the walk), as a ratio. Writes bench/results/overlap.json and overlap.md
// and prints the table. Run alone (`node --import tsx bench/overlap.ts`) or from `npm run bench`.
import { mkdirSync, writeFileSync } from 'node:fs';
import type { Graph } from '../src/ir/index.ts';
import { buildZooModel, listZooModels } from '../src/ir/index.ts';
import { instantiateOp, prepareOp, walkAddresses } from '../src/kernels/index.ts';
import type { OverlapMethod } from '../src/optimizer/index.ts';
import { OVERLAP_METHODS, algorithmicReduction, clearAlgorithmicOverlapCache, layoutOp, overlapFromDiff, overlapScale, safeOverlap, safeOverlapReport, singleOpGraph } from '../src/optimizer/index.ts';

const RUNS = Number(process.env.BENCH_OVERLAP_RUNS ?? 5);
const ANALYTIC_BATCH = 200;

interface Candidate {
  readonly model: string;
  readonly graph: Graph;
  readonly opIndex: number;
  readonly kind: string;
  readonly inputBytes: number;
  readonly outputBytes: number;
}

interface MethodTiming {
  readonly os: number;
  /** Median time of one O_s computation, microseconds. */
  readonly medianUs: number;
}

interface OverlapRow {
  readonly kind: string;
  readonly model: string;
  readonly op: number;
  readonly input: string;
  readonly output: string;
  readonly inputBytes: number;
  readonly outputBytes: number;
  readonly methods: Readonly<Record<OverlapMethod, MethodTiming>>;
  /** The algorithmic reduction as a sink over the walk's event log. */
  readonly logSink: MethodTiming;
}

const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

/** The op of each kind with the largest input + output bytes over every zoo model. */
function largestOps(): Candidate[] {
  const best = new Map<string, Candidate>();
  for (const z of listZooModels()) {
    const graph = buildZooModel(z.name).graph;
    graph.ops.forEach((op, opIndex) => {
      let r;
      try {
        r = safeOverlapReport(graph, opIndex, { methods: [] });
      } catch {
        return; // ops without an input/output pair (none in the zoo today)
      }
      const prev = best.get(op.kind);
      if (prev === undefined || r.inputBytes + r.outputBytes > prev.inputBytes + prev.outputBytes) {
        best.set(op.kind, { model: `zoo:${z.name}`, graph, opIndex, kind: op.kind, inputBytes: r.inputBytes, outputBytes: r.outputBytes });
      }
    });
  }
  return [...best.values()].sort((a, b) => b.inputBytes + b.outputBytes - (a.inputBytes + a.outputBytes));
}

function timed(batch: number, f: () => number, before: () => void = () => undefined): MethodTiming {
  before();
  let os = f(); // warm-up
  const times: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    before();
    const t0 = performance.now();
    for (let k = 0; k < batch; k++) os = f();
    times.push(((performance.now() - t0) * 1000) / batch);
  }
  return { os, medianUs: median(times) };
}

function timeMethod(c: Candidate, method: OverlapMethod): MethodTiming {
  return timed(method === 'analytic' ? ANALYTIC_BATCH : 1, () => safeOverlap(c.graph, c.opIndex, { method }), method === 'algorithmic' ? clearAlgorithmicOverlapCache : undefined);
}

/** O_s from walkAddresses' event log through algorithmicReduction's sink (int8 element sizes). */
function timeLogSink(c: Candidate): MethodTiming {
  const l = layoutOp(singleOpGraph(c.graph, c.opIndex), null);
  const s = overlapScale(l);
  return timed(1, () => {
    const r = algorithmicReduction(s, l.input, l.output);
    walkAddresses(instantiateOp(l.graph, prepareOp(l.graph, 0), l.tensorOffsets, l.scratchOffsets[0] ?? []), r.sink);
    return overlapFromDiff(l, r.minDiff());
  });
}

function shape(g: Graph, t: number | undefined): string {
  return g.tensors[t ?? -1]?.shape.join('x') ?? '?';
}

function time(us: number): string {
  if (us < 1000) return `${us.toFixed(1)} us`;
  if (us < 1e6) return `${(us / 1000).toFixed(1)} ms`;
  return `${(us / 1e6).toFixed(2)} s`;
}

function markdown(rows: readonly OverlapRow[], env: Record<string, string>): string {
  return [
    '# Safe overlap O_s: computation time per method',
    '',
    Object.entries(env).map(([k, v]) => `${k}: ${v}`).join('  \n'),
    '',
    `Largest op of each kind across the zoo models (by input + output bytes, int8), median of ${RUNS} runs`,
    `(analytic: median of ${RUNS} batches of ${ANALYTIC_BATCH} calls). O_s in bytes; trace = algorithmic >= analytic.`,
    'Algorithmic: the walk with the reduction folded in (safeOverlap, uncached); "log + sink": the same',
    'reduction over the walk\'s event log; "fold gain" = log + sink time / algorithmic time.',
    '',
    '| kind | model | op | input -> output | in B | out B | O_s trace | O_s algorithmic | O_s analytic | trace time | algorithmic time | log + sink time | fold gain | analytic time |',
    '| --- | --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows.map((r) => {
      const m = r.methods;
      return `| ${r.kind} | ${r.model} | ${r.op} | ${r.input} -> ${r.output} | ${r.inputBytes} | ${r.outputBytes} | ${m.trace.os} | ${m.algorithmic.os} | ${m.analytic.os} | ${time(m.trace.medianUs)} | ${time(m.algorithmic.medianUs)} | ${time(r.logSink.medianUs)} | ${(r.logSink.medianUs / m.algorithmic.medianUs).toFixed(1)}x | ${time(m.analytic.medianUs)} |`;
    }),
    '',
  ].join('\n');
}

function main(): void {
  const env = { date: new Date().toISOString(), node: process.version, runs: String(RUNS) };
  const rows: OverlapRow[] = [];
  for (const c of largestOps()) {
    process.stderr.write(`overlap ${c.kind} (${c.model} op ${c.opIndex}) ...\n`);
    const op = c.graph.ops[c.opIndex];
    const methods = Object.fromEntries(OVERLAP_METHODS.map((m) => [m, timeMethod(c, m)])) as Record<OverlapMethod, MethodTiming>;
    const logSink = timeLogSink(c);
    if (logSink.os !== methods.algorithmic.os) throw new Error(`${c.kind}: O_s ${logSink.os} through the log and sink, ${methods.algorithmic.os} by the folded walk`);
    rows.push({
      kind: c.kind,
      model: c.model,
      op: c.opIndex,
      input: shape(c.graph, op?.inputs.find((t) => t >= 0 && c.graph.tensors[t]?.data === null)),
      output: shape(c.graph, op?.outputs[0]),
      inputBytes: c.inputBytes,
      outputBytes: c.outputBytes,
      methods,
      logSink,
    });
  }
  const md = markdown(rows, env);
  const dir = new URL('./results/', import.meta.url);
  mkdirSync(dir, { recursive: true });
  writeFileSync(new URL('overlap.json', dir), `${JSON.stringify({ ...env, rows }, null, 2)}\n`);
  writeFileSync(new URL('overlap.md', dir), md);
  process.stdout.write(md);
}

main();
