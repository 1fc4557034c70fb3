// `mcusim run MODEL [--input FILE]... [--out-dir DIR] [--seed N] [--planner NAME] [--kernels L [--cpu C]] [--json]`: plans
// the arena (verified), runs every op in the byte-accurate arena and writes DIR/output<i>.bin as
// TFLM stores them, with the kernels of --kernels / --cpu (the library's scratch and specs). Without --input, inputs are seeded random bytes (optimizer randomInputs).
// Progress goes to stderr once a run passes ~1 s. `--trace` checks every arena access with the
// tracer (exit 1 on a violation); `--trace-out` dumps them (.jsonl/.csv); `--trace-svg` plots them.
// The dump's size is estimated before the run (trace-estimate.ts) and refused above 1 GB without
// --force. `--out DIR` is the old spelling of --out-dir (a hidden alias).
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import type { Graph } from '../../ir/index.ts';
import { UsageError, byteSize } from '../../ir/index.ts';
import type { TraceSink } from '../../kernels/index.ts';
import type { PlannedModel } from '../../optimizer/index.ts';
import { DEFAULT_PLANNER, describePlanSource, getPlanner, plannerNames, preparePlannedModel, runPlanned, tracerFor } from '../../optimizer/index.ts';
import type { TraceViolation } from '../../sim/index.ts';
import { TracePlot, renderTraceSvg, teeTraceSinks, traceDumpSink, traceFormatForPath } from '../../sim/index.ts';
import { addHiddenOption, aliased, checkOutputDir, checkOutputFile, refuseFlag } from '../cli-options.ts';
import { formatShape, renderTable } from '../format.ts';
import { TRACE_DUMP_LIMIT_BYTES, estimateTraceDump, formatSize } from '../trace-estimate.ts';
import { loadModel, readInputFile } from '../load-model.ts';
import { writeOutputFile } from '../output-file.ts';
import { addKernelOptions, kernelsJson, kernelsForFile } from '../kernel-options.ts';
import type { KernelCliOptions } from '../kernel-options.ts';

interface RunOptions extends KernelCliOptions {
  readonly input: readonly string[];
  readonly outDir?: string;
  /** Old spelling of --out-dir. */
  readonly out?: string;
  readonly seed?: string;
  readonly planner: string;
  readonly json?: boolean;
  readonly trace?: boolean;
  readonly traceOut?: string;
  readonly traceSvg?: string;
  readonly force?: boolean;
  readonly quiet?: boolean;
}

export interface RunOutputInfo {
  readonly index: number;
  readonly name: string;
  readonly shape: readonly number[];
  readonly dtype: string;
  readonly bytes: number;
  readonly file?: string;
}

export interface RunReport {
  readonly kernels: string;
  readonly cpu: string | null;
  readonly outputs: readonly RunOutputInfo[];
  readonly ms: number;
  readonly peakBytes: number;
  readonly trace?: { readonly events: number; readonly violations: readonly TraceViolation[] };
  /** Why the file's plan clobbers with this library (planned for the reference kernels): outputs are what that build computes. */
  readonly planHazard?: string;
}

const PROGRESS_AFTER_MS = 1000;
const PROGRESS_EVERY_MS = 250;

interface TraceSession {
  readonly sink: TraceSink;
  /** Flush dumps and plots; the tracer's report when --trace. */
  readonly close: () => { readonly events: number; readonly violations: readonly TraceViolation[] } | null;
}

/** The trace sink for this run (tracer, dump, plot as asked); null runs the fast executor. */
function traceSinkFor(opts: RunOptions, pm: PlannedModel, modelArg: string): TraceSession | null {
  if (!opts.trace && opts.traceOut === undefined && opts.traceSvg === undefined) return null;
  const sinks: TraceSink[] = [];
  const tracer = opts.trace ? tracerFor(pm) : null;
  if (tracer) sinks.push(tracer.sink);
  let fd: number | null = null;
  if (opts.traceOut !== undefined) {
    const format = traceFormatForPath(opts.traceOut);
    try {
      fd = openSync(opts.traceOut, 'w');
    } catch (e) {
      throw new UsageError(`cannot write '${opts.traceOut}': ${e instanceof Error ? e.message : String(e)}`);
    }
    const out = fd;
    sinks.push(traceDumpSink(pm.graph, format, (text) => void writeSync(out, text)));
  }
  const plot = opts.traceSvg === undefined ? null : new TracePlot({ arenaBytes: pm.arenaBytes, graph: pm.graph, tensorOffsets: pm.tensorOffsets });
  if (plot) sinks.push(plot.sink);
  return {
    sink: sinks.length === 1 ? (sinks[0] as TraceSink) : teeTraceSinks(...sinks),
    close: () => {
      if (fd !== null) closeSync(fd);
      if (plot && opts.traceSvg !== undefined) {
        writeOutputFile(opts.traceSvg, renderTraceSvg(plot.data(), `${modelArg}: ${describePlanSource(pm.requests, pm.plan.planner)}, arena ${pm.arenaBytes} B`));
      }
      if (!tracer) return null;
      tracer.finish();
      return { events: tracer.eventCount(), violations: tracer.violations() };
    },
  };
}

function parseSeed(text: string): number {
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < 0) throw new UsageError(`--seed must be a non-negative integer, got '${text}'`);
  return n;
}

/** Stderr progress ("op i/n kind elapsed") once the run has taken PROGRESS_AFTER_MS. */
function progressReporter(graph: Graph, start: number, quiet: boolean): { readonly onOp: (i: number) => void; readonly done: () => void } {
  if (quiet) return { onOp: () => undefined, done: () => undefined };
  const tty = process.stderr.isTTY === true;
  let last = 0;
  let shown = false;
  const n = graph.ops.length;
  return {
    onOp: (i) => {
      const now = performance.now();
      const elapsed = now - start;
      if (elapsed < PROGRESS_AFTER_MS || (now - last < PROGRESS_EVERY_MS && i + 1 < n)) return;
      last = now;
      shown = true;
      const line = `op ${i + 1}/${n} ${graph.ops[i]?.kind ?? ''} ${(elapsed / 1000).toFixed(1)} s`;
      process.stderr.write(tty ? `\r${line.padEnd(48)}` : `${line}\n`);
    },
    done: () => {
      if (shown && tty) process.stderr.write('\n');
    },
  };
}

function writeOutput(dir: string, i: number, bytes: Uint8Array): string {
  const file = join(dir, `output${i}.bin`);
  writeOutputFile(file, bytes);
  return file;
}

function makeOutDir(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true });
  } catch (e) {
    throw new UsageError(`cannot create output directory '${dir}': ${e instanceof Error ? e.message : String(e)}`);
  }
}

function preview(bytes: Uint8Array, dtype: string): string {
  const n = 8;
  const view = dtype === 'int8' ? new Int8Array(bytes.buffer, bytes.byteOffset, Math.min(n, bytes.length)) : bytes.subarray(0, n);
  return `${Array.from(view).join(' ')}${bytes.length > n ? ' ...' : ''}`;
}

/** Refuses a --trace-out dump over TRACE_DUMP_LIMIT_BYTES without --force; states the estimate on stderr. */
function checkTraceDumpSize(opts: RunOptions, pm: PlannedModel): void {
  if (opts.traceOut === undefined) return;
  const est = estimateTraceDump(pm.graph, traceFormatForPath(opts.traceOut), pm.arenaBytes);
  const what = `--trace-out '${opts.traceOut}': about ${formatSize(est.bytes)} (at most ${est.events.toLocaleString('en-US')} arena accesses, one line each)`;
  if (est.bytes > TRACE_DUMP_LIMIT_BYTES && opts.force !== true) {
    throw new UsageError(`${what} is over ${formatSize(TRACE_DUMP_LIMIT_BYTES)}; add --force to write it anyway, or use --trace (checks without a dump) or --trace-svg`);
  }
  if (opts.quiet !== true) process.stderr.write(`writing ${what}\n`);
}

export function runRun(modelArg: string, opts: RunOptions): number {
  getPlanner(opts.planner);
  const outDir = aliased<string>(opts, { flag: '--out-dir', key: 'outDir' }, { flag: '--out', key: 'out' });
  if (opts.seed !== undefined && opts.input.length > 0) refuseFlag('--seed', 'it seeds random inputs, and --input gives the inputs');
  if (opts.force === true && opts.traceOut === undefined) refuseFlag('--force', 'it only lifts the size limit of --trace-out');
  const seed = parseSeed(opts.seed ?? DEFAULT_SEED);
  checkOutputDir(outDir, '--out-dir');
  checkOutputFile(opts.traceOut, '--trace-out');
  checkOutputFile(opts.traceSvg, '--trace-svg');
  if (opts.traceOut !== undefined) traceFormatForPath(opts.traceOut);
  const files = opts.input.map((f, i) => new Uint8Array(readInputFile(f, `input ${i}`)));
  const model = loadModel(modelArg);
  const registry = kernelsForFile(opts, model, modelArg);
  const pm = preparePlannedModel(model, { planner: opts.planner, registry, ...(opts.trace ? { traceShadow: true } : {}) });
  const { graph } = pm;
  if (files.length > 0 && files.length !== graph.inputs.length) {
    throw new UsageError(`the model has ${graph.inputs.length} input(s), ${files.length} --input file(s) given`);
  }
  checkTraceDumpSize(opts, pm);
  if (outDir !== undefined) makeOutDir(outDir);
  const start = performance.now();
  const progress = progressReporter(graph, start, opts.quiet === true);
  const session = traceSinkFor(opts, pm, modelArg);
  const result = runPlanned(pm, {
    ...(files.length > 0 ? { inputs: files } : { seed }),
    ...(session ? { trace: session.sink } : {}),
    onOp: progress.onOp,
  });
  const ms = performance.now() - start;
  progress.done();
  const traced = session?.close() ?? null;
  const traceFailed = traced !== null && traced.violations.length > 0;
  const outputs: RunOutputInfo[] = result.outputs.map((bytes, index) => {
    const t = graph.tensors[graph.outputs[index] ?? -1];
    const file = outDir === undefined ? undefined : writeOutput(outDir, index, bytes);
    return {
      index,
      name: t?.name ?? '',
      shape: t?.shape ?? [],
      dtype: t?.dtype ?? 'int8',
      bytes: t ? byteSize(t.dtype, t.shape) : bytes.length,
      ...(file !== undefined ? { file } : {}),
    };
  });
  const hazard = pm.plan.libraryHazard;
  const report: RunReport = {
    ...kernelsJson(registry), outputs, ms: Math.round(ms * 1000) / 1000, peakBytes: pm.plan.peakBytes, ...(traced ? { trace: traced } : {}), ...(hazard !== undefined ? { planHazard: hazard } : {}),
  };
  if (hazard !== undefined) process.stderr.write(`warning: ${hazard}\n  the outputs are what that build computes, corrupted; \`mcusim verify ORIGINAL FILE --kernels ${registry.library}\` names the clobber\n`);
  if (traceFailed) process.stderr.write(formatViolations(traced.violations));
  if (opts.json) {
    process.stdout.write(`${JSON.stringify(report)}\n`);
    return traceFailed ? 1 : 0;
  }
  const rows = outputs.map((o) => [o.index, o.name, formatShape(o.shape), o.dtype, o.bytes, o.file ?? preview(result.outputs[o.index] as Uint8Array, o.dtype)]);
  const inputs = files.length > 0 ? `${files.length} file(s)` : `seeded random (seed ${seed})`;
  process.stdout.write(
    `${renderTable(['output', 'name', 'shape', 'dtype', 'bytes', outDir === undefined ? 'values' : 'file'], rows)}\n\n` +
      `inputs: ${inputs}; ${registry.cpu === null ? '' : `kernels: ${registry.library} (${registry.cpu}); `}planner: ${pm.plan.planner}; arena peak: ${pm.plan.peakBytes} B; ${graph.ops.length} ops in ${report.ms.toFixed(1)} ms\n` +
      (traced ? `trace: ${traced.events} arena accesses, ${traced.violations.length === 0 ? 'clean' : `${traced.violations.length} violation(s)`}\n` : ''),
  );
  return traceFailed ? 1 : 0;
}

function formatViolations(vs: readonly TraceViolation[]): string {
  const shown = vs.slice(0, 20).map((v) => `  ${v.message}${v.occurrences > 1 ? ` (x${v.occurrences})` : ''}`);
  return `trace check failed: ${vs.length} distinct violation(s)\n${shown.join('\n')}${vs.length > 20 ? `\n  ... ${vs.length - 20} more` : ''}\n`;
}

const collect = (value: string, previous: readonly string[]): string[] => [...previous, value];

const DEFAULT_SEED = '1';

export function registerRun(program: Command, setExit: (code: number) => void): void {
  const cmd = program
    .command('run')
    .description('plan the arena and run a model, writing its output tensors as raw bytes')
    .argument('<model>', 'a .tflite file or zoo:<name>')
    .option('--input <file>', 'raw bytes of graph input i (repeat, in input order)', collect, [] as string[])
    .option('--out-dir <dir>', 'write DIR/output<i>.bin')
    .option('--seed <n>', `seed for random inputs when no --input is given (default ${DEFAULT_SEED})`)
    .option('--planner <name>', `memory planner (${plannerNames().join(', ')})`, DEFAULT_PLANNER)
    .option('--trace', 'run the traced executor and check every arena access (exit 1 on a violation)')
    .option('--trace-out <file>', 'dump every arena access (.jsonl or .csv); the size estimate goes to stderr first')
    .option('--force', 'with --trace-out: write a dump estimated over 1 GB')
    .option('--trace-svg <file>', 'plot the memory trace (address x time)')
    .option('--json', 'print one JSON document')
    .option('-q, --quiet', 'no progress or trace-size lines on stderr');
  addKernelOptions(cmd);
  addHiddenOption(cmd, '--out <dir>', 'old spelling of --out-dir');
  cmd.action((model: string, opts: RunOptions) => setExit(runRun(model, opts)));
}
