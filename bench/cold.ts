// Cold vs steady whole-model runs (WebAssembly kernels, the default; the JS kernels' steady time beside) and verify throughput with 1 and N jobs, each in fresh Node
// processes on the compiled dist/ (what users run): a model's first run in a process against its
// steady per-run time in the same process (median of the later runs), wall and CPU time; and
// `mcusim verify --jobs 1` vs `--jobs N` on the same DMO-optimized model (three back-to-back
// rounds, medians; one in quick mode), reports compared byte for byte, and beside them what the
// machine allows: N independent `--jobs 1` processes of 1/N of the seeds each, side by side (a
// `--jobs N` run as fast as those splits its work as well as separate processes could). Run after
// a build (bench/startup.ts builds). Ratios, never asserted in tests. Zoo models only (a bare clone
// runs it): MobileNet v1 0.25 has person_detect's architecture, MobileNet v2 1.0 224 that of
// TFLM's mobilenet_v2_quantized.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SPECIALIZE_AFTER_RUNS } from '../src/kernels/index.ts';

const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '..');
const BIN = join(ROOT, 'bin', 'mcusim.mjs');
export const TARGET_FIRST_OVER_STEADY: Readonly<Record<string, number>> = { 'zoo:mobilenet-v1-0.25-128': 4, 'zoo:mobilenet-v2-1.0-224': 2, 'zoo:tiny-unet': 2 };
export const TARGET_VERIFY_SPEEDUP = 1.6;

export interface ColdRow {
  readonly name: string;
  readonly status: 'ok' | 'skipped';
  readonly prepareMs?: number;
  readonly firstMs?: number;
  /** Median per-run time of the runs after the first (WebAssembly kernels, what runs by default). */
  readonly steadyMs?: number;
  /** The JS kernels' steady per-run time in the same process (specialized code, after SPECIALIZE_AFTER_RUNS runs). */
  readonly jsSteadyMs?: number;
  readonly ratio?: number;
  /** The same ratio in process CPU time (less sensitive to a loaded machine). */
  readonly cpuRatio?: number;
  readonly target: number;
}

export interface VerifyJobsResult {
  readonly model: string;
  readonly seeds: number;
  readonly jobs: number;
  /** Medians over the pairs. */
  readonly oneJobMs: number;
  readonly nJobsMs: number;
  readonly speedup: number;
  /** N `--jobs 1` processes of ceil(seeds / N) seeds each, started together, until the last ends. */
  readonly splitMs: number;
  /** Each round: `--jobs 1`, `--jobs N`, then the N processes, back to back (the host's speed drifts within minutes). */
  readonly pairs: readonly { readonly oneJobMs: number; readonly nJobsMs: number; readonly speedup: number; readonly splitMs: number }[];
  readonly identical: boolean;
}

// Runs in a child: load, prepare, then `runs` runs of seed-1 inputs on the default (WebAssembly)
// kernels; then, for comparison, the JS kernels until they run specialized code. One JSON line.
const CHILD = `
import { readFileSync } from 'node:fs';
const [spec, runs, jsRuns] = [process.argv[1], Number(process.argv[2]), Number(process.argv[4])];
const ir = await import(process.argv[3] + '/dist/ir/index.js');
const opt = await import(process.argv[3] + '/dist/optimizer/index.js');
const sim = await import(process.argv[3] + '/dist/sim/index.js');
const model = spec.startsWith('zoo:') ? ir.buildZooModel(spec.slice(4)) : ir.importTflite(new Uint8Array(readFileSync(spec)));
const t0 = performance.now();
const pm = opt.preparePlannedModel(model);
const prepareMs = performance.now() - t0;
const inputs = opt.randomInputs(pm.graph, 1);
const wall = [], cpu = [], jsWall = [];
for (let i = 0; i < runs; i++) {
  const c = process.cpuUsage(); const s = performance.now();
  pm.runtime.run(inputs);
  wall.push(performance.now() - s); const d = process.cpuUsage(c); cpu.push((d.user + d.system) / 1000);
}
const js = new sim.Runtime({ graph: pm.graph, tensorOffsets: pm.tensorOffsets, scratchOffsets: pm.scratchOffsets, arenaBytes: pm.arenaBytes, kernels: 'js' });
for (let i = 0; i < jsRuns; i++) { const s = performance.now(); js.run(inputs); jsWall.push(performance.now() - s); }
process.stdout.write(JSON.stringify({ prepareMs, wall, cpu, jsWall }));
`;

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? (s[s.length >> 1] as number) : ((s[s.length / 2 - 1] as number) + (s[s.length / 2] as number)) / 2;
};

export function coldCases(quick: boolean): readonly { name: string; spec: string }[] {
  const all = [
    { name: 'zoo:mobilenet-v1-0.25-128', spec: 'zoo:mobilenet-v1-0.25-128' },
    { name: 'zoo:mobilenet-v2-1.0-224', spec: 'zoo:mobilenet-v2-1.0-224' },
    { name: 'zoo:tiny-unet', spec: 'zoo:tiny-unet' },
  ];
  return quick ? all.filter((c) => c.name !== 'zoo:mobilenet-v2-1.0-224') : all;
}

export function benchCold(quick = false): ColdRow[] {
  return coldCases(quick).map(({ name, spec }) => {
    const target = TARGET_FIRST_OVER_STEADY[name] ?? NaN;
    process.stderr.write(`cold ${name} ...\n`);
    const runs = quick ? 6 : 10;
    const jsRuns = SPECIALIZE_AFTER_RUNS + (quick ? 3 : 5);
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', CHILD, spec, String(runs), ROOT, String(jsRuns)], { encoding: 'utf8', maxBuffer: 1 << 20 });
    const r = JSON.parse(out) as { prepareMs: number; wall: number[]; cpu: number[]; jsWall: number[] };
    const firstMs = r.wall[0] ?? NaN;
    const steadyMs = median(r.wall.slice(1));
    // JS steady = after the switch to specialized code (its first run, a cold compile, left out).
    const jsSteadyMs = median(r.jsWall.slice(SPECIALIZE_AFTER_RUNS + 1));
    const cpuRatio = (r.cpu[0] ?? NaN) / median(r.cpu.slice(1));
    return { name, status: 'ok', prepareMs: r.prepareMs, firstMs, steadyMs, jsSteadyMs, ratio: firstMs / steadyMs, cpuRatio, target };
  });
}

function wallMs(args: readonly string[]): { ms: number; stdout: string } {
  const t0 = process.hrtime.bigint();
  let stdout = '';
  try {
    stdout = execFileSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 64 << 20, stdio: ['ignore', 'pipe', 'ignore'] });
  } catch (e) {
    // verify exits 1 on a failed check: still a report to compare.
    stdout = String((e as { stdout?: unknown }).stdout ?? '');
  }
  return { ms: Number(process.hrtime.bigint() - t0) / 1e6, stdout };
}

/** Wall ms until every one of `runs` node processes (started together, output ignored) has exited;
 * rejects when one crashes (exit 1 is verify's failed check, a finished run as in wallMs). */
function concurrentWallMs(runs: readonly (readonly string[])[]): Promise<number> {
  const t0 = process.hrtime.bigint();
  return Promise.all(runs.map((args) => new Promise<void>((done, fail) => {
    spawn(process.execPath, args, { stdio: 'ignore' }).on('error', fail).on('exit', (code, signal) => {
      if (code === 0 || code === 1) done();
      else fail(new Error(`bench: \`node ${args.join(' ')}\` ended with ${signal ?? `exit ${code}`}`));
    });
  }))).then(() => Number(process.hrtime.bigint() - t0) / 1e6);
}

/** `verify --jobs 1` then `--jobs N` (N = cores) on `model` optimized with DMO, `seeds` seeds, then
 * N `--jobs 1` processes of a share of the seeds side by side. */
export async function benchVerifyJobs(quick = false): Promise<VerifyJobsResult> {
  const model = quick ? 'zoo:ds-cnn-kws' : 'zoo:mobilenet-v2-0.35-224';
  const seeds = quick ? 4 : 8;
  const jobs = Math.max(2, availableParallelism());
  const dir = mkdtempSync(join(tmpdir(), 'mcusim-bench-verify-'));
  try {
    const opt = join(dir, 'dmo.tflite');
    process.stderr.write(`verify ${model} --seeds ${seeds} --jobs 1 / ${jobs} ...\n`);
    execFileSync(process.execPath, [BIN, 'optimize', model, '--passes', 'dmo', '-o', opt], { stdio: 'ignore' });
    const pairs: VerifyJobsResult['pairs'][number][] = [];
    let identical = true;
    const verify = (n: number, j: number): string[] => [BIN, 'verify', model, opt, '--seeds', String(n), '--jobs', String(j), '--json'];
    for (let k = 0; k < (quick ? 1 : 3); k++) {
      const one = wallMs(verify(seeds, 1));
      const n = wallMs(verify(seeds, jobs));
      const splitMs = await concurrentWallMs(Array.from({ length: jobs }, () => verify(Math.ceil(seeds / jobs), 1)));
      identical &&= one.stdout !== '' && one.stdout === n.stdout;
      pairs.push({ oneJobMs: one.ms, nJobsMs: n.ms, speedup: one.ms / n.ms, splitMs });
    }
    return {
      model, seeds, jobs, pairs, identical,
      oneJobMs: median(pairs.map((p) => p.oneJobMs)), nJobsMs: median(pairs.map((p) => p.nJobsMs)), speedup: median(pairs.map((p) => p.speedup)),
      splitMs: median(pairs.map((p) => p.splitMs)),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const fix = (x: number | undefined, d = 1): string => (x === undefined || !Number.isFinite(x) ? '-' : x.toFixed(d));

export function coldMarkdown(rows: readonly ColdRow[], v: VerifyJobsResult): string {
  return [
    `## Cold first run vs steady run (fresh process each, compiled dist; load average ${loadavg().map((x) => x.toFixed(1)).join(' ')})`,
    '',
    '| model | prepare ms | first run ms | steady run ms | first/steady (wall) | first/steady (CPU) | target | JS kernels steady ms | JS / wasm steady |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows.map((r) => r.status === 'ok'
      ? `| ${r.name} | ${fix(r.prepareMs, 0)} | ${fix(r.firstMs, 0)} | ${fix(r.steadyMs, 1)} | ${fix(r.ratio)}x | ${fix(r.cpuRatio)}x | <= ${r.target}x | ${fix(r.jsSteadyMs, 1)} | ${fix((r.jsSteadyMs ?? NaN) / (r.steadyMs ?? NaN), 2)}x |`
      : `| ${r.name} | skipped (model file missing) | | | | | | | |`),
    '',
    `## verify throughput (${v.model} after --passes dmo, ${v.seeds} seeds; target --jobs 2 >= ${TARGET_VERIFY_SPEEDUP}x --jobs 1)`,
    '',
    `Medians of ${v.pairs.length} back-to-back round(s); each round's speedup: ${v.pairs.map((p) => `${fix(p.speedup, 2)}x`).join(', ')}.`,
    `The machine's own limit beside it: ${v.jobs} independent \`--jobs 1\` processes of ${Math.ceil(v.seeds / v.jobs)} seeds each, side by side, until the last ends`,
    `(each round's --jobs 1 run over them: ${v.pairs.map((p) => `${fix(p.oneJobMs / p.splitMs, 2)}x`).join(', ')}).`,
    '',
    '| --jobs 1 ms | --jobs ' + v.jobs + ' ms | speedup | seeds/s (1) | seeds/s (' + v.jobs + ') | ' + v.jobs + ' processes ms | --jobs ' + v.jobs + ' / processes | reports identical |',
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
    `| ${fix(v.oneJobMs, 0)} | ${fix(v.nJobsMs, 0)} | ${fix(v.speedup, 2)}x | ${fix(v.seeds / (v.oneJobMs / 1000), 2)} | ${fix(v.seeds / (v.nJobsMs / 1000), 2)} | ${fix(v.splitMs, 0)} | ${fix(v.nJobsMs / v.splitMs, 2)} | ${v.identical ? 'yes' : 'NO'} |`,
    '',
  ].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const quick = process.env.BENCH_QUICK === '1' || process.argv.includes('--quick');
  process.stdout.write(coldMarkdown(benchCold(quick), await benchVerifyJobs(quick)));
}
