// `npm run bench`: kernel throughput (WebAssembly kernels vs gcc -O2 build of the emitted C, measured in
// the same run), the traced executor's slowdown, whole-model times and CLI startup vs node. Writes
// bench/results/latest.json and latest.md and prints the markdown. Targets (issue): kernels >=
// 0.5x C, tracing <= 5x fast. Reported as ratios, never asserted in tests.
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import type { LayerResult } from './layers.ts';
import { LAYER_CASES, benchLayer } from './layers.ts';
import type { ModelResult } from './models.ts';
import { MODEL_CASES, benchModel } from './models.ts';
import { benchStartup, startupMarkdown } from './startup.ts';
import { benchCold, benchVerifyJobs, coldMarkdown } from './cold.ts';
import type { ParallelRow } from './parallel.ts';
import { benchParallel, parallelMarkdown } from './parallel.ts';

const TARGET_JS_OVER_C = 0.5;
const TARGET_TRACED_SLOWDOWN = 5;
/** `npm run bench:quick` (BENCH_QUICK=1): shorter timings, no mobilenet_v2 cold run, verify on a small model, no planner/overlap tables. */
const QUICK = process.env.BENCH_QUICK === '1' || process.argv.includes('--quick');
const LAYER_TIME_MS = Number(process.env.BENCH_TIME_MS ?? (QUICK ? 300 : 1000));
const MODEL_TIME_MS = 2 * LAYER_TIME_MS;

const mmacs = (x: number): string => (x / 1e6).toFixed(1);
const fix = (x: number | undefined, d = 2): string => (x === undefined || !Number.isFinite(x) ? '-' : x.toFixed(d));

function markdown(layers: readonly LayerResult[], models: readonly ModelResult[], env: Record<string, string>): string {
  const lines = [
    '# mcusim benchmarks',
    '',
    Object.entries(env).map(([k, v]) => `${k}: ${v}`).join('  \n'),
    '',
    `## Kernels (int8): WebAssembly kernels vs gcc -O2 C (target mcusim >= ${TARGET_JS_OVER_C}x C, traced <= ${TARGET_TRACED_SLOWDOWN}x)`,
    '',
    '| layer | input | MACs | mcusim (wasm) MMAC/s | C MMAC/s | mcusim/C | traced slowdown | C = mcusim bytes |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |',
    ...layers.map((l) => `| ${l.name} | ${l.input} | ${l.macs} | ${mmacs(l.jsMacPerS)} | ${mmacs(l.cMacPerS)} | ${fix(l.jsOverC)} | ${fix(l.tracedSlowdown, 1)}x | ${l.checksumsMatch ? 'yes' : 'NO'} |`),
    '',
    '## Whole models (tflm-greedy plan, seeded random input)',
    '',
    'Traced: every arena access logged to a sink that does nothing; checked: logged into the memory tracer (what `verify` runs).',
    '',
    '| model | status | ops | MACs | events | peak B | fast ms | traced ms | traced slowdown | checked ms | checked slowdown | tracer ns per event (checked - traced) | mcusim MMAC/s |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...models.map((m) =>
      m.status === 'ok'
        ? `| ${m.name} | ok | ${m.ops} | ${m.macs} | ${m.traceEvents} | ${m.peakBytes} | ${fix(m.fastMs, 1)} | ${fix(m.tracedMs, 1)} | ${fix(m.tracedSlowdown, 1)}x | ${fix(m.checkedMs, 1)} | ${fix(m.checkedSlowdown, 1)}x | ${fix((((m.checkedMs ?? NaN) - (m.tracedMs ?? NaN)) * 1e6) / (m.traceEvents ?? NaN), 1)} | ${mmacs((m.macs ?? 0) / ((m.fastMs ?? NaN) / 1000))} |`
        : `| ${m.name} | skipped: ${m.reason ?? ''} | | | | | | | | | | | |`,
    ),
    '',
  ];
  return lines.join('\n');
}

async function main(): Promise<void> {
  const env = {
    date: new Date().toISOString(),
    mode: QUICK ? 'quick' : 'full',
    'load average at start': loadavg().map((x) => x.toFixed(1)).join(' '),
    node: process.version,
    cpu: `${cpus()[0]?.model ?? 'unknown'} (${cpus().length} cores)`,
  };
  const layers: LayerResult[] = [];
  for (const c of LAYER_CASES) {
    process.stderr.write(`layer ${c.name} ...\n`);
    layers.push(await benchLayer(c, LAYER_TIME_MS));
  }
  const models: ModelResult[] = [];
  for (const c of MODEL_CASES) {
    process.stderr.write(`model ${c.name} ...\n`);
    models.push(await benchModel(c, MODEL_TIME_MS));
  }
  process.stderr.write('startup ...\n');
  const startup = benchStartup(QUICK ? 3 : 5);
  const cold = benchCold(QUICK);
  const verifyJobs = await benchVerifyJobs(QUICK);
  // Serial vs pooled searches (tiling, auto, sweep): minutes, so the full run only.
  const parallel: ParallelRow[] = QUICK ? [] : benchParallel(false);
  const convs = layers.filter((l) => l.kind === 'conv2d' || l.kind === 'depthwiseConv2d');
  const tracedAll = [...layers.map((l) => l.tracedSlowdown), ...models.flatMap((m) => (m.tracedSlowdown === undefined ? [] : [m.tracedSlowdown]))];
  const summary = {
    minJsOverC: Math.min(...convs.map((l) => l.jsOverC)),
    maxTracedSlowdown: Math.max(...tracedAll),
    jsConvTargetMet: convs.every((l) => l.jsOverC >= TARGET_JS_OVER_C),
    tracingTargetMet: tracedAll.every((s) => s <= TARGET_TRACED_SLOWDOWN),
    checksumsMatch: layers.every((l) => l.checksumsMatch),
  };
  const md = `${markdown(layers, models, env)}\n${startupMarkdown(startup)}\n${coldMarkdown(cold, verifyJobs)}\n${QUICK ? '' : `${parallelMarkdown(parallel)}\n`}Summary: min mcusim/C over conv2d and depthwise layers (WebAssembly kernels) ${fix(summary.minJsOverC)} (target >= ${TARGET_JS_OVER_C}: ${summary.jsConvTargetMet ? 'met' : 'NOT met'}); max traced slowdown ${fix(summary.maxTracedSlowdown, 1)}x (target <= ${TARGET_TRACED_SLOWDOWN}x: ${summary.tracingTargetMet ? 'met' : 'NOT met'}).\n`;
  const dir = new URL('./results/', import.meta.url);
  mkdirSync(dir, { recursive: true });
  const doc = { ...env, targets: { jsOverC: TARGET_JS_OVER_C, tracedSlowdown: TARGET_TRACED_SLOWDOWN }, summary, layers, models, startup, cold, verifyJobs, parallel };
  const name = QUICK ? 'quick' : 'latest';
  writeFileSync(new URL(`${name}.json`, dir), `${JSON.stringify(doc, null, 2)}\n`);
  writeFileSync(new URL(`${name}.md`, dir), md);
  process.stdout.write(md);
}

await main();
if (!QUICK) {
  await import('./planner.ts');
  await import('./overlap.ts');
}
