// `mcusim optimize MODEL -o OUT.tflite --passes LIST [--target-bytes BYTES] [--storage ...] [--json]`:
// runs the named optimizer passes (runPipeline) and writes the result; a memory plan travels as
// OfflineMemoryAllocation metadata, so TFLM and `mcusim run/verify` use it (DESIGN.md §9).
// A missed --target-bytes still writes the best model but exits 1 with the gap on stderr.
// `--target BYTES` is the old spelling of --target-bytes (a hidden alias).
// --jobs N: tiling and auto candidates are evaluated in worker threads (worker-pool.ts).
// The searches (tiling, auto) are bounded by work: --max-candidates N (tiling's candidate budget), so
// one command writes the same bytes on every machine and at every --jobs. --time-budget-ms MS adds
// a wall-clock limit; a search it cuts short depends on the machine, and the output says so.
// --kernels / --cpu: the library planned for (dmo and replacement use its access order's O_s; every
// pass and search candidate scores its scratch and persistent data, in worker threads too).
import type { Command } from 'commander';
import { UsageError, exportTflite } from '../../ir/index.ts';
import type { BufferRequest, PassOptions, PassReport, Plan, TargetResult } from '../../optimizer/index.ts';
import { computeModelBufferRequests, describePlanSource, getPass, passNames, planGreedy, renderPlanSvg } from '../../optimizer/index.ts';
import { optimizeWithReport } from '../../api/index.ts';
import type { ArenaComparison, OptimizeReport } from '../../api/index.ts';
import type { Model } from '../../ir/index.ts';
import type { KernelRegistry } from '../../kernels/index.ts';
import { ARENA_RUNTIMES, DEFAULT_ARENA_RUNTIME, DEFAULT_TFLM_ARCH, TFLM_ARCH_NAMES, getTflmArch } from '../../sim/index.ts';
import type { ArenaRuntime } from '../../sim/index.ts';
import { addHiddenOption, aliased, checkOutputFile, progressLog, refuseFlag } from '../cli-options.ts';
import { bytesAndKb, describeRuntime, renderTable } from '../format.ts';
import { loadRunnableModel } from '../load-model.ts';
import { writeOutputFile } from '../output-file.ts';
import { openEvaluatorPool, parseJobs } from '../worker-pool.ts';
import { addKernelOptions, kernelsForFile } from '../kernel-options.ts';
import type { KernelCliOptions } from '../kernel-options.ts';

interface OptimizeOptions extends KernelCliOptions {
  readonly output?: string;
  readonly passes?: string;
  readonly targetBytes?: string;
  /** Old spelling of --target-bytes. */
  readonly target?: string;
  readonly storage?: string;
  readonly json?: boolean;
  readonly svgBefore?: string;
  readonly svgAfter?: string;
  /** Commander's `--no-scratch-quant` / `--no-scratch-free` set these to false. */
  readonly scratchQuant?: boolean;
  readonly scratchFree?: boolean;
  readonly spillPercent?: string;
  readonly arch?: string;
  readonly runtime?: string;
  readonly quiet?: boolean;
  readonly jobs?: string;
  readonly timeBudgetMs?: string;
  readonly maxCandidates?: string;
}

function parseTarget(s: string | undefined): number | undefined {
  if (s === undefined) return undefined;
  const n = Number(s);
  if (!Number.isSafeInteger(n) || n <= 0) throw new UsageError(`--target-bytes must be a positive byte count, got '${s}'`);
  return n;
}

const grouped = (n: number): string => n.toLocaleString('en-US');

/** "target 60,000 B missed by 2,596 B: best 62,596 B (whole arena)". */
export function describeMissedTarget(t: TargetResult): string {
  const what = t.measure === 'totalBytes' ? 'whole arena' : 'planned arena';
  // auto's miss travels as the target's note (runPipeline takes it from the pass's targetNote).
  const auto = t.note?.startsWith('no pipeline meets the target') === true ? 'auto: no pipeline meets the target; ' : '';
  return `${auto}target ${grouped(t.bytes)} B missed by ${grouped(t.gapBytes)} B: best ${grouped(t.achievedBytes)} B (${what})`;
}

/** Flags that only some passes read: a usage error naming the flag when no chosen pass does. */
function checkPassFlags(names: readonly string[], opts: OptimizeOptions): void {
  const has = (...p: string[]): boolean => names.some((n) => p.includes(n));
  const tinysegFlags = [['--spill-percent', opts.spillPercent !== undefined], ['--no-scratch-quant', opts.scratchQuant === false], ['--no-scratch-free', opts.scratchFree === false]] as const;
  for (const [flag, on] of tinysegFlags) {
    if (on && !has('tinyseg', 'auto')) refuseFlag(flag, `only the tinyseg pass (or auto, which tries it) reads it; --passes is ${names.join(',')}`);
  }
  if (opts.maxCandidates !== undefined && !has('tiling', 'fdt', 'ffmt', 'auto')) refuseFlag('--max-candidates', `only the tiling searches (tiling, fdt, ffmt, or auto, which runs tiling) read it; --passes is ${names.join(',')}`);
  if (opts.storage !== undefined && !has('auto')) refuseFlag('--storage', `only auto ranks pipelines by latency with the spill storage; --passes is ${names.join(',')}`);
  if (opts.svgBefore !== undefined && opts.svgBefore === opts.svgAfter) throw new UsageError('--svg-before and --svg-after name the same file');
}

/** The tinyseg pass flags of commander's `--no-scratch-quant` / `--no-scratch-free` (optimize, sweep). */
export function tinysegScratchFlags(opts: { readonly scratchQuant?: boolean; readonly scratchFree?: boolean }): PassOptions['flags'] {
  return {
    ...(opts.scratchQuant === false ? { scratchQuant: false } : {}),
    ...(opts.scratchFree === false ? { scratchFree: false } : {}),
  };
}

function parsePercent(s: string | undefined): number | undefined {
  if (s === undefined) return undefined;
  const n = Number(s);
  if (s.trim() === '' || !Number.isFinite(n) || n < 0 || n > 100) throw new UsageError(`--spill-percent must be a number in [0, 100], got '${s}'`);
  return n;
}

function parseBudget(s: string | undefined): number | undefined {
  if (s === undefined) return undefined;
  const n = Number(s);
  if (s.trim() === '' || !Number.isFinite(n) || n <= 0) throw new UsageError(`--time-budget-ms must be a positive number of milliseconds, got '${s}'`);
  return n;
}

function parseCandidates(s: string): number {
  const n = Number(s);
  if (!Number.isSafeInteger(n) || n <= 0) throw new UsageError(`--max-candidates must be a positive integer, got '${s}'`);
  return n;
}

function parseStorage(s: string | undefined): PassOptions['storage'] {
  if (s === undefined) return undefined;
  if (s !== 'internal' && s !== 'external' && s !== 'remote') throw new UsageError(`--storage must be internal, external or remote, got '${s}'`);
  return s;
}

/** The model's current layout (tflm-greedy honouring its offline plan). */
function layoutOf(model: Model, registry: KernelRegistry): { readonly requests: readonly BufferRequest[]; readonly plan: Plan } {
  const requests = computeModelBufferRequests(model, registry);
  return { requests, plan: planGreedy(requests) };
}

/** Before and after drawn on one byte scale, so their widths compare. */
function writePlanSvgs(opts: OptimizeOptions, modelArg: string, names: readonly string[], before: Model, after: Model, registry: KernelRegistry): void {
  if (opts.svgBefore === undefined && opts.svgAfter === undefined) return;
  const a = layoutOf(before, registry);
  const b = layoutOf(after, registry);
  const scaleBytes = Math.max(a.plan.peakBytes, b.plan.peakBytes);
  const title = (l: typeof a, when: string): string => `${modelArg} ${when} (${describePlanSource(l.requests, l.plan.planner)})`;
  if (opts.svgBefore !== undefined) writeOutputFile(opts.svgBefore, renderPlanSvg(a.requests, a.plan, { title: title(a, 'before'), scaleBytes }));
  if (opts.svgAfter !== undefined) writeOutputFile(opts.svgAfter, renderPlanSvg(b.requests, b.plan, { title: title(b, `after --passes ${names.join(',')}`), scaleBytes }));
}

function passTable(r: PassReport): string {
  const rows = [
    ['peak before', bytesAndKb(r.peakBytesBefore)],
    ['peak after', bytesAndKb(r.peakBytesAfter)],
    ['saving', r.peakBytesBefore > 0 ? `${(((r.peakBytesBefore - r.peakBytesAfter) / r.peakBytesBefore) * 100).toFixed(1)}%` : '-'],
    ['applied', r.applied ? 'yes' : 'no'],
    ...r.notes.map((n) => ['note', n]),
  ];
  return `pass ${r.pass}\n${renderTable(['metric', 'value'], rows)}`;
}

/** One line per runtime compared: "whole arena on TFLM (...) a -> b B; declare tensor_arena[n]". */
function arenaLines(r: OptimizeReport): string[] {
  const line = (runtime: ArenaRuntime, c: ArenaComparison): string =>
    `whole arena on ${describeRuntime(runtime, r.arch, r.kernels, r.cpu)} ${bytesAndKb(c.before.totalBytes)} -> ${bytesAndKb(c.after.totalBytes)}` +
    (runtime === 'tflm' ? `; declare tensor_arena[${c.after.declareBytes}]` : '');
  const chosen = line(r.runtime, { before: r.before.arena, after: r.after.arena });
  const others = r.runtimes === undefined ? [] : ARENA_RUNTIMES.filter((x) => x !== r.runtime).map((x) => `${line(x, r.runtimes?.[x] ?? { before: r.before.arena, after: r.after.arena })} (the file needs mcusim's ops: codegen --tflm, or the C port)`);
  return [chosen, ...others];
}

export function runOptimize(modelArg: string, opts: OptimizeOptions): number {
  if (opts.output === undefined) throw new UsageError('optimize needs -o OUT.tflite');
  const names = (opts.passes ?? '').split(',').map((s) => s.trim()).filter((s) => s.length > 0);
  if (names.length === 0) throw new UsageError(`--passes needs at least one pass; available: ${passNames().join(', ')}`);
  names.forEach(getPass);
  checkPassFlags(names, opts);
  const targetBytes = parseTarget(aliased<string>(opts, { flag: '--target-bytes', key: 'targetBytes' }, { flag: '--target', key: 'target' }));
  checkOutputFile(opts.output, '-o/--output');
  checkOutputFile(opts.svgBefore, '--svg-before');
  checkOutputFile(opts.svgAfter, '--svg-after');
  const storage = parseStorage(opts.storage);
  const spillPercent = parsePercent(opts.spillPercent);
  const budget = parseBudget(opts.timeBudgetMs);
  const arch = getTflmArch(opts.arch ?? DEFAULT_TFLM_ARCH).name;
  const runtime = parseRuntime(opts.runtime);
  const jobs = parseJobs(opts.jobs);
  // A model run refuses (an op without a kernel) cannot be optimized and proven bit-exact.
  const model = loadRunnableModel(modelArg);
  const registry = kernelsForFile(opts, model, modelArg);
  const pool = openEvaluatorPool(jobs);
  let run: ReturnType<typeof optimizeWithReport>;
  try {
    run = optimizeWithReport(model, names, {
      kernels: registry.library,
      ...(registry.cpu !== null ? { cpu: registry.cpu } : {}),
      runtime,
      arch,
      flags: {
        ...tinysegScratchFlags(opts), ...(spillPercent !== undefined ? { spillPercent } : {}), ...(budget !== undefined ? { 'time-budget-ms': budget } : {}),
        ...(opts.maxCandidates !== undefined ? { 'max-candidates': parseCandidates(opts.maxCandidates) } : {}),
      },
      ...(targetBytes !== undefined ? { targetBytes } : {}),
      ...(storage !== undefined ? { storage } : {}),
      log: progressLog(opts),
      evaluator: pool.evaluator,
    });
  } finally {
    void pool.close();
  }
  const { report } = run;
  if (run.bytes !== null) writeOutputFile(opts.output, run.bytes);
  writePlanSvgs(opts, modelArg, names, model, run.model, registry);
  const missed = report.target !== undefined && !report.target.met;
  if (opts.json) {
    process.stdout.write(`${JSON.stringify(report)}\n`);
  } else {
    const wrote = run.bytes !== null ? `wrote ${opts.output}` : `nothing written`;
    const parts = [...report.passes.map(passTable), [`peak ${bytesAndKb(report.before.peakBytes)} -> ${bytesAndKb(report.after.peakBytes)}`, ...arenaLines(report), wrote].join('\n')];
    process.stdout.write(`${parts.join('\n\n')}\n`);
  }
  if (report.refused !== undefined) {
    process.stderr.write(`${report.refused} (--runtime ${runtime === 'tflm' ? 'mcusim scores the C port' : 'tflm scores TFLM'})\n`);
    return 1;
  }
  if (report.target !== undefined && missed) process.stderr.write(`${describeMissedTarget(report.target)}; wrote the best model to ${opts.output}\n`);
  return missed ? 1 : 0;
}

/** --runtime tflm (default, what users deploy) or mcusim (the C port). */
export function parseRuntime(s: string | undefined): ArenaRuntime {
  const r = ARENA_RUNTIMES.find((x) => x === (s ?? DEFAULT_ARENA_RUNTIME));
  if (r === undefined) throw new UsageError(`--runtime must be ${ARENA_RUNTIMES.join(' or ')}, got '${s ?? ''}'`);
  return r;
}

export function registerOptimize(program: Command, setExit: (code: number) => void): void {
  const cmd = program
    .command('optimize')
    .description('run optimizer passes and write the optimized model (plan as OfflineMemoryAllocation)')
    .argument('<model>', 'a .tflite file or zoo:<name>')
    .option('-o, --output <file>', 'the optimized .tflite to write')
    .option('--passes <list>', `comma-separated passes (${passNames().join(', ')})`)
    .option('--target-bytes <bytes>', 'memory target in bytes (passes that search stop there; missed = exit 1 with the gap)')
    .option('--storage <kind>', 'spill storage: internal, external or remote')
    .option('--no-scratch-quant', 'tinyseg: keep TransposeConv int32 scratch (no int16, no scratch-free form)')
    .option('--no-scratch-free', 'tinyseg: only the paper\'s int16 scratch quantization (no scratch-free TransposeConv)')
    .option('--spill-percent <p>', 'tinyseg: spill this percentage of the victim\'s channels (0-100, Figure 14)')
    .option('--runtime <runtime>', "whose arena the passes minimize and report: tflm (default: TFLM, with the kernels of codegen --tflm for mcusim's ops) or mcusim (the C port)")
    .option('--arch <arch>', `TFLM build whose whole arena the passes minimize and report (${TFLM_ARCH_NAMES.join(', ')}; default ${DEFAULT_TFLM_ARCH})`)
    .option('--jobs <n>', 'threads evaluating tiling / auto candidates (default: the number of cores); the result is the same for any N')
    .option('--max-candidates <n>', 'tiling: candidates a search scores at most (default 5000); the same result on every machine')
    .option('--time-budget-ms <ms>', 'a wall-clock limit for the searches (default none); a search it cuts short depends on the machine, and the output says so')
    .option('--json', 'print one JSON document')
    .option('--svg-before <file>', 'write the plan before the passes as an SVG picture')
    .option('--svg-after <file>', 'write the plan after the passes as an SVG picture')
    .option('-q, --quiet', 'no progress lines on stderr (errors and a missed target still print)');
  addHiddenOption(cmd, '--target <bytes>', 'old spelling of --target-bytes');
  addKernelOptions(cmd);
  cmd.action((model: string, opts: OptimizeOptions) => setExit(runOptimize(model, opts)));
}
