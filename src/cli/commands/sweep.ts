// `mcusim sweep MODEL [--board NAME | --board-file FILE] [--storage internal|external|remote] [--async-erase] [--compress [--seed N | --zero-input]] [--steps N]
// [--svg FILE] [--json] [--jobs N]`: TinySeg Figure 14 (§6.2.2), the tinyseg pass at spill percentages 0..100
// with the peak and the latency (Figure 13 breakdown) of each point, as a table, JSON or an SVG plot.
// Progress goes to stderr, one line per point. --jobs N: points run in worker threads (worker-pool.ts).
// --kernels / --cpu: the pass plans every point for that library (its scratch and persistent data)
// and the latency is for it; without them the points are planned for the reference kernels and the
// latency is cmsis-nn's, as `latency` defaults.
import type { Command } from 'commander';
import { UsageError } from '../../ir/index.ts';
import type { SpillSweepResult, SpillSweepRow } from '../../optimizer/index.ts';
import { DEFAULT_SWEEP_STEPS, MAX_SWEEP_STEPS, describeSweepStorage, renderSpillSweepSvg, sweepPartialSpill } from '../../optimizer/index.ts';
import { STORAGE_KINDS, isStorageKind } from '../../sim/index.ts';
import { addQuietOption, checkOutputFile, progressLog, refuseFlag } from '../cli-options.ts';
import { bytesAndKb, renderTable } from '../format.ts';
import { loadRunnableModel } from '../load-model.ts';
import { writeOutputFile } from '../output-file.ts';
import type { TargetCliOptions } from '../latency-options.ts';
import { addPayloadInputOptions, addTargetOptions, payloadInputsOf, resolveTarget } from '../latency-options.ts';
import { tinysegScratchFlags } from './optimize.ts';
import { openEvaluatorPool, parseJobs } from '../worker-pool.ts';
import { addKernelOptions, kernelsJson, resolveKernels } from '../kernel-options.ts';
import type { KernelCliOptions } from '../kernel-options.ts';

interface SweepCliOptions extends TargetCliOptions, KernelCliOptions {
  readonly storage: string;
  readonly asyncErase?: boolean;
  readonly compress?: boolean;
  readonly seed?: string;
  readonly zeroInput?: boolean;
  readonly steps: string;
  readonly svg?: string;
  readonly json?: boolean;
  /** Commander's `--no-scratch-quant` / `--no-scratch-free` set these to false. */
  readonly scratchQuant?: boolean;
  readonly scratchFree?: boolean;
  readonly quiet?: boolean;
  readonly jobs?: string;
}

function parseSteps(text: string): number {
  const n = Number(text);
  if (text.trim() === '' || !Number.isInteger(n) || n < 1 || n > MAX_SWEEP_STEPS) {
    throw new UsageError(`--steps must be an integer from 1 to ${MAX_SWEEP_STEPS}, got '${text}'`);
  }
  return n;
}

const pct = (p: number): string => `${Math.round(p * 100) / 100}%`;

function splitCell(r: SpillSweepRow): string {
  return r.victim === null ? 'none' : `${r.spilledChannels}/${r.victimChannels} ch (${pct(r.actualPercent)})`;
}

/** Decimal columns as right-aligned text with one fixed precision. */
function fixedColumn(values: readonly number[]): string[] {
  const text = values.map((v) => v.toFixed(1));
  const w = text.reduce((m, s) => Math.max(m, s.length), 0);
  return text.map((s) => s.padStart(w));
}

function textReport(model: string, r: SpillSweepResult): string {
  const rows = r.spillingHelps ? r.rows : r.rows.slice(0, 1);
  const kb = fixedColumn(rows.map((row) => row.peakBytes / 1024));
  const cols = (['latencyMs', 'computeMs', 'spillMs', 'fetchMs', 'codecMs', 'stallMs'] as const).map((k) =>
    fixedColumn(rows.map((row) => (k === 'latencyMs' ? row.latencyMs : row.breakdown[k]))));
  const col = (c: number, i: number): string => cols[c]?.[i] ?? '';
  const table = renderTable(
    ['spill', 'split', 'spilled B', 'peak B', 'peak KB', 'latency ms', 'compute', 'spill', 'fetch', 'codec', 'stall', 'note'],
    rows.map((row, i) => [pct(row.requestedPercent), splitCell(row), row.spilledBytes, row.peakBytes, kb[i] ?? '',
      col(0, i), col(1, i), col(2, i), col(3, i), col(4, i), col(5, i), row.sameAsPercent === null ? '' : `same split as ${pct(row.sameAsPercent)}`]),
  );
  const victim = r.rows.find((row) => row.victim !== null);
  return [
    `partial spilling sweep of ${model}: ${describeSweepStorage(r)}; target ${r.target}, kernels ${r.library}`,
    table,
    '',
    `original peak ${bytesAndKb(r.originalPeakBytes)}; 0% = the tinyseg pass without its spilling step (scratch step only)`,
    ...(victim === undefined ? [] : [`victim '${victim.victim}' (${victim.victimChannels} channels); the split is rounded to whole channels`]),
    ...(r.spillingHelps ? [] : ['spilling cannot help this model at any percentage; only the 0% row is shown', ...r.notes.map((n) => `note: ${n}`)]),
    '',
  ].join('\n');
}

export function runSweep(modelArg: string, opts: SweepCliOptions): number {
  if (!isStorageKind(opts.storage)) throw new UsageError(`unknown --storage '${opts.storage}'; known: ${STORAGE_KINDS.join(', ')}`);
  const steps = parseSteps(opts.steps);
  const target = resolveTarget(opts);
  if (opts.asyncErase === true && opts.storage === 'remote') refuseFlag('--async-erase', 'remote storage is a host over a link, there is no flash to erase (use --storage internal or external)');
  if (opts.compress !== true && (opts.seed !== undefined || opts.zeroInput === true)) {
    refuseFlag(opts.seed !== undefined ? '--seed' : '--zero-input', 'it picks the inputs of the run whose spilled bytes --compress encodes; add --compress');
  }
  checkOutputFile(opts.svg, '--svg');
  const log = progressLog(opts);
  const jobs = parseJobs(opts.jobs);
  const registry = opts.kernels === undefined && opts.cpu === undefined ? undefined : resolveKernels(opts);
  const model = loadRunnableModel(modelArg);
  const pool = openEvaluatorPool(jobs);
  let result: SpillSweepResult;
  try {
    result = sweepPartialSpill(model, {
      target,
      storage: opts.storage,
      asyncErase: opts.asyncErase === true,
      compress: opts.compress === true,
      payloadInputs: payloadInputsOf(opts),
      steps,
      passFlags: tinysegScratchFlags(opts),
      onProgress: (row, i, n) => log(
        `sweep ${i + 1}/${n}: ${pct(row.requestedPercent)} -> ${splitCell(row)}, peak ${row.peakBytes} B, ${row.latencyMs.toFixed(1)} ms`),
      evaluator: pool.evaluator,
      ...(registry === undefined ? {} : { registry }),
    });
  } finally {
    void pool.close();
  }
  if (opts.svg !== undefined) {
    writeOutputFile(opts.svg, renderSpillSweepSvg(result, { modelLabel: modelArg }));
  }
  const kernels = registry === undefined ? { kernels: 'reference', cpu: null } : kernelsJson(registry);
  process.stdout.write(opts.json ? `${JSON.stringify({ model: modelArg, ...kernels, ...result })}\n` : textReport(modelArg, result));
  return 0;
}

export function registerSweep(program: Command, setExit: (code: number) => void): void {
  const cmd = program
    .command('sweep')
    .description('partial-spilling sweep: tinyseg at spill 0..100% with peak and latency per point (TinySeg Figure 14)')
    .argument('<model>', 'a .tflite file or zoo:<name>');
  addTargetOptions(cmd)
    .option('--storage <kind>', `spill storage (${STORAGE_KINDS.join(', ')})`, 'internal')
    .option('--async-erase', 'erase flash on the second core ahead of the next spill (TinySeg §5.2)')
    .option('--compress', 'most-frequent-value compression of spilled tensors, bytes from a real run (TinySeg §5.1)');
  addPayloadInputOptions(cmd)
    .option('--steps <n>', `equal steps from 0% to 100% (${DEFAULT_SWEEP_STEPS}: 0, 10, ..., 100)`, String(DEFAULT_SWEEP_STEPS))
    .option('--no-scratch-quant', 'tinyseg: keep TransposeConv int32 scratch (no int16, no scratch-free form)')
    .option('--no-scratch-free', 'tinyseg: only the paper\'s int16 scratch quantization (no scratch-free TransposeConv)')
    .option('--svg <file>', 'write the sweep as an SVG plot like Figure 14')
    .option('--jobs <n>', 'threads evaluating the points (default: the number of cores); the result is the same for any N')
    .option('--json', 'print one JSON document');
  addKernelOptions(cmd);
  addQuietOption(cmd)
    .action((model: string, opts: SweepCliOptions) => setExit(runSweep(model, opts)));
}
