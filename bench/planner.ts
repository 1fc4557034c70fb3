// Exact layout planner (FDT paper §4.2) per model: tflm-greedy peak, exact peak, live-bytes
// lower bound, whether optimality was proven, and the planner's time (median of a few runs);
// plus the memory-aware schedule's live-bytes peak against the model's own op order (§4.1).
// Writes bench/results/planner.json and planner.md. Run alone (`node --import tsx
// bench/planner.ts`) or from `npm run bench`. TFLM's example models are read from the oracle
// folder (MCUSIM_DATA, default ../shared/oracle); without it, the zoo models alone, and it says so.
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Model } from '../src/ir/index.ts';
import { buildZooModel, importTflite, listZooModels } from '../src/ir/index.ts';
import { buildMemoryModel, computeModelBufferRequests, planExact, planGreedy, scheduleGraph, schedulePeakBytes, verifyPlan } from '../src/optimizer/index.ts';

const RUNS = 5;
const TIME_BUDGET_MS = Number(process.env.BENCH_EXACT_BUDGET_MS ?? 2000);
const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '..');
const oracleDir = join(process.env.MCUSIM_DATA ?? resolve(ROOT, '..', 'shared', 'oracle'), 'models');

interface PlannerRow {
  readonly name: string;
  readonly buffers: number;
  readonly greedyBytes: number;
  readonly exactBytes: number;
  readonly lowerBoundBytes: number;
  readonly proven: boolean;
  readonly nodes: number;
  readonly exactMs: number;
  readonly scheduleMethod: string;
  readonly originalOrderBytes: number;
  readonly scheduledBytes: number;
  readonly scheduleMs: number;
}

function models(): [string, () => Model][] {
  const list: [string, () => Model][] = [];
  if (existsSync(oracleDir)) {
    for (const f of readdirSync(oracleDir).filter((x) => x.endsWith('.tflite')).sort()) {
      list.push([f.slice(0, -'.tflite'.length), () => importTflite(new Uint8Array(readFileSync(join(oracleDir, f))))]);
    }
  } else {
    process.stderr.write(`planner: no oracle models in ${oracleDir} (set MCUSIM_DATA to the oracle folder): zoo models only\n`);
  }
  for (const z of listZooModels()) list.push([`zoo:${z.name}`, () => buildZooModel(z.name)]);
  return list;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

function benchOne(name: string, model: Model): PlannerRow {
  const requests = computeModelBufferRequests(model);
  const greedy = planGreedy(requests);
  const times: number[] = [];
  let plan = planExact(requests, { timeBudgetMs: TIME_BUDGET_MS });
  for (let r = 0; r < RUNS; r++) {
    const t0 = performance.now();
    plan = planExact(requests, { timeBudgetMs: TIME_BUDGET_MS });
    times.push(performance.now() - t0);
  }
  verifyPlan(requests, plan);
  const t0 = performance.now();
  const schedule = scheduleGraph(model.graph, { timeBudgetMs: TIME_BUDGET_MS });
  const scheduleMs = performance.now() - t0;
  const original = schedulePeakBytes(buildMemoryModel(model.graph), model.graph.ops.map((_, i) => i));
  return {
    name,
    buffers: requests.length,
    greedyBytes: greedy.peakBytes,
    exactBytes: plan.peakBytes,
    lowerBoundBytes: plan.lowerBoundBytes,
    proven: plan.proven,
    nodes: plan.nodes,
    exactMs: median(times),
    scheduleMethod: schedule.method,
    originalOrderBytes: original,
    scheduledBytes: schedule.peakBytes,
    scheduleMs,
  };
}

function markdown(rows: readonly PlannerRow[]): string {
  const pct = (a: number, b: number): string => (b === 0 ? '-' : `${(((a - b) / b) * 100).toFixed(1)}%`);
  return [
    `## Exact layout planner vs tflm-greedy (budget ${TIME_BUDGET_MS} ms, median of ${RUNS} runs)`,
    '',
    '| model | buffers | greedy B | exact B | vs greedy | lower bound B | proven | nodes | exact ms | schedule | model order B | scheduled B | schedule ms |',
    '| --- | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | --- | ---: | ---: | ---: |',
    ...rows.map(
      (r) =>
        `| ${r.name} | ${r.buffers} | ${r.greedyBytes} | ${r.exactBytes} | ${pct(r.exactBytes, r.greedyBytes)} | ${r.lowerBoundBytes} | ${r.proven ? 'yes' : 'no'} | ${r.nodes} | ${r.exactMs.toFixed(2)} | ${r.scheduleMethod} | ${r.originalOrderBytes} | ${r.scheduledBytes} | ${r.scheduleMs.toFixed(1)} |`,
    ),
    '',
  ].join('\n');
}

export function benchPlanners(): { rows: PlannerRow[]; md: string } {
  const rows: PlannerRow[] = [];
  for (const [name, load] of models()) {
    process.stderr.write(`planner ${name} ...\n`);
    rows.push(benchOne(name, load()));
  }
  return { rows, md: markdown(rows) };
}

const { rows, md } = benchPlanners();
const dir = new URL('./results/', import.meta.url);
mkdirSync(dir, { recursive: true });
writeFileSync(new URL('planner.json', dir), `${JSON.stringify({ date: new Date().toISOString(), timeBudgetMs: TIME_BUDGET_MS, rows }, null, 2)}\n`);
writeFileSync(new URL('planner.md', dir), md);
process.stdout.write(md);
