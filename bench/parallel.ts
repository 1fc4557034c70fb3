// `node --import tsx bench/parallel.ts [--quick]` (and part of `npm run bench`): the tiling search, `auto` and the TinySeg
// spill sweep with the library's serial evaluator against the CLI's pooled one (worker threads,
// src/cli/worker-pool.ts, N = available cores), on the same models; results compared as JSON
// (they must be identical), wall-time speedup as a ratio. Time budgets are set high enough that no
// search is cut short, so both runs do the same work. Needs dist/ (the pool's workers run it).
import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { openEvaluatorPool } from '../src/cli/worker-pool.ts';
import { buildZooModel, importTflite } from '../src/ir/index.ts';
import type { Model } from '../src/ir/index.ts';
import type { CandidateEvaluator } from '../src/optimizer/index.ts';
import { autoPass, serialEvaluator, sweepPartialSpill, tilingPass } from '../src/optimizer/index.ts';

export interface ParallelRow {
  readonly name: string;
  readonly jobs: number;
  readonly serialMs: number;
  readonly pooledMs: number;
  readonly speedup: number;
  readonly identical: boolean;
}

const BIG_BUDGET_MS = 3_600_000;
const personDetect = (): Model => importTflite(new Uint8Array(readFileSync(new URL('../../shared/oracle/models/person_detect.tflite', import.meta.url))));

interface Case {
  readonly name: string;
  readonly quick: boolean;
  readonly load: () => Model;
  readonly run: (m: Model, evaluator: CandidateEvaluator) => unknown;
}

export const PARALLEL_CASES: readonly Case[] = [
  { name: 'person_detect --passes tiling', quick: false, load: personDetect, run: (m, evaluator) => tilingPass.run(m, { flags: { 'time-budget-ms': BIG_BUDGET_MS }, evaluator }).report },
  { name: 'person_detect --passes auto', quick: false, load: personDetect, run: (m, evaluator) => autoPass.run(m, { flags: { 'auto-budget-ms': BIG_BUDGET_MS }, evaluator }).report },
  { name: 'sweep zoo:tiny-unet', quick: true, load: () => buildZooModel('tiny-unet'), run: (m, evaluator) => sweepPartialSpill(m, { evaluator }) },
];

function timed(f: () => unknown): { readonly ms: number; readonly json: string } {
  const t0 = performance.now();
  const json = JSON.stringify(f());
  return { ms: performance.now() - t0, json };
}

/** Serial, then pooled with `jobs` threads (workers started inside the timed run, as in the CLI). */
export function benchParallel(quick: boolean, jobs = availableParallelism()): ParallelRow[] {
  const rows: ParallelRow[] = [];
  for (const c of PARALLEL_CASES.filter((x) => !quick || x.quick)) {
    process.stderr.write(`parallel ${c.name} ...\n`);
    const model = c.load();
    const serial = timed(() => c.run(model, serialEvaluator));
    const pool = openEvaluatorPool(jobs);
    try {
      const pooled = timed(() => c.run(model, pool.evaluator));
      rows.push({ name: c.name, jobs, serialMs: serial.ms, pooledMs: pooled.ms, speedup: serial.ms / pooled.ms, identical: serial.json === pooled.json });
    } finally {
      void pool.close();
    }
  }
  return rows;
}

export function parallelMarkdown(rows: readonly ParallelRow[]): string {
  return [
    '## Parallel candidate evaluation (serial evaluator vs worker pool, issue 15)',
    '',
    '| search | jobs | serial ms | pooled ms | speedup | identical |',
    '| --- | ---: | ---: | ---: | ---: | --- |',
    ...rows.map((r) => `| ${r.name} | ${r.jobs} | ${r.serialMs.toFixed(0)} | ${r.pooledMs.toFixed(0)} | ${r.speedup.toFixed(2)}x | ${r.identical ? 'yes' : 'NO'} |`),
    '',
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const jobs = Number(process.env.BENCH_JOBS ?? availableParallelism());
  process.stdout.write(`load average at start: ${loadavg().map((x) => x.toFixed(1)).join(' ')}\n\n`);
  process.stdout.write(parallelMarkdown(benchParallel(process.argv.includes('--quick'), jobs)));
}
