// `mcusim latency MODEL [--board NAME | --board-file FILE] [--kernels reference|cmsis-nn] [--engine tflm|aot]
// [--storage internal|external|remote] [--async-erase] [--compress] [--seed N | --zero-input] [--json] [--svg FILE]`:
// one inference's latency on a board, per op cycles / ms / share (DESIGN.md §9; issue 44; TinySeg Table 5 /
// Figure 13 breakdown). `--boards all|A,B`: one line per board. `--validate [--csv FILE]`: MLPerf Tiny cells. With --compress the spilled tensors'
// bytes come from a real run with seeded random inputs (seed 1 unless --seed), or all-zero ones
// (--zero-input, TinySeg's benchmark sketch); see PayloadInputs for why random is the default.
// `--table [--paper] [--no-scratch-free]`: the whole Table 5 grid (tinysegLatencyTable), steps x storage.
import type { Command } from 'commander';
import type { Model } from '../../ir/index.ts';
import { UsageError } from '../../ir/index.ts';
import type { LatencyTable, PayloadInputs } from '../../optimizer/index.ts';
import { TINYSEG_TABLE5_PAPER_MS, captureSpillPayloads, describePayloadInputs, estimateModelLatency, tinysegLatencyTable } from '../../optimizer/index.ts';
import type { KernelLibrary, LatencyReport, TargetProfile } from '../../sim/index.ts';
import { DEFAULT_KERNEL_LIBRARY, ENGINES, KERNEL_LIBRARIES, STORAGE_KINDS, isStorageKind, parseEngine, renderTimelineSvg } from '../../sim/index.ts';
import { boardList, boardsText, latencyOnBoards, runValidation, validationText } from '../latency-boards.ts';
import { instructionSetsText } from '../latency-instructions.ts';
import { addQuietOption, checkOutputFile, progressLog, refuseFlag, refuseSpillFlags } from '../cli-options.ts';
import { renderTable } from '../format.ts';
import { boardFitWarning } from '../fit-warning.ts';
import { loadRunnableModel } from '../load-model.ts';
import { isLargeModel, phaseProgress } from '../progress.ts';
import { writeOutputFile } from '../output-file.ts';
import type { TargetCliOptions } from '../latency-options.ts';
import { addPayloadInputOptions, addTargetOptions, payloadInputsOf, resolveTarget } from '../latency-options.ts';

interface LatencyCliOptions extends TargetCliOptions {
  readonly kernels: string;
  readonly engine: string;
  readonly boards?: string;
  readonly validate?: boolean;
  readonly csv?: string;
  readonly storage?: string;
  readonly asyncErase?: boolean;
  readonly compress?: boolean;
  readonly seed?: string;
  readonly zeroInput?: boolean;
  readonly json?: boolean;
  readonly svg?: string;
  readonly table?: boolean;
  readonly paper?: boolean;
  /** Commander's `--no-scratch-free` sets this to false. */
  readonly scratchFree?: boolean;
  readonly quiet?: boolean;
}


function parseLibrary(name: string): KernelLibrary {
  const lib = KERNEL_LIBRARIES.find((l) => l === name);
  if (lib === undefined) throw new UsageError(`unknown --kernels '${name}'; known: ${KERNEL_LIBRARIES.join(', ')}`);
  return lib;
}

/** Where the instructions go: per kernel path (ops, instructions, share) and per instruction class. */
export function instructionsText(r: LatencyReport): string {
  const byPath = new Map<string, { ops: number; instructions: number; ms: number }>();
  for (const o of r.ops) {
    const key = `${o.path}${o.estimated ? ' [estimated]' : ''}`;
    const e = byPath.get(key) ?? { ops: 0, instructions: 0, ms: 0 };
    byPath.set(key, { ops: e.ops + 1, instructions: e.instructions + o.instructions, ms: e.ms + o.computeMs });
  }
  const total = Math.max(1, r.instructions);
  const rows = [...byPath.entries()].sort((a, b) => b[1].instructions - a[1].instructions)
    .map(([path, e]) => [path, e.ops, e.instructions, `${((e.instructions / total) * 100).toFixed(1)}%`, e.ms.toFixed(3)]);
  rows.push(['(interpreter: Invoke loop)', '', r.interpreter.instructions, `${((r.interpreter.instructions / total) * 100).toFixed(1)}%`, '']);
  const classes = new Map<string, number>();
  for (const o of r.ops) for (const [c, n] of Object.entries(o.instructionClasses)) classes.set(c, (classes.get(c) ?? 0) + (n ?? 0));
  const mix = [...classes.entries()].sort((a, b) => b[1] - a[1]).map(([c, n]) => `${c} ${((n / total) * 100).toFixed(1)}%`).join(', ');
  return [
    `where the ${r.instructions.toLocaleString('en-US')} instructions of one Invoke go (${r.build}):`,
    renderTable(['kernel path', 'ops', 'instructions', 'share', 'compute ms'], rows),
    `by class: ${mix}`,
  ].join('\n');
}

function textReport(r: LatencyReport, inputs: PayloadInputs): string {
  const spills = r.slots.length > 0;
  const rows = r.ops.map((o) => [
    o.index, o.kind, `${o.path}${o.estimated ? ' [estimated]' : ''}`, o.macs, o.instructions, o.cycles, o.ms.toFixed(3), `${(o.share * 100).toFixed(1)}%`,
    ...(spills ? [o.spillMs.toFixed(3), o.fetchMs.toFixed(3), o.codecMs.toFixed(3), o.stallMs.toFixed(3), o.totalMs.toFixed(3)] : []),
  ]);
  const b = r.breakdown;
  const cal = r.calibration === null ? '' : `; board-file compute scale ${r.calibration.scale.toFixed(4)} (${r.calibration.source})`;
  const slots = r.slots.map((s) => `slot ${s.slot}: tensor ${s.tensor}, ${s.rawBytes} B -> ${s.storedBytes} B stored (${s.compression})`);
  return [
    renderTable(['op', 'kind', 'kernel path', 'MACs', 'instructions', 'cycles', 'compute ms', 'share', ...(spills ? ['spill ms', 'fetch ms', 'codec ms', 'stall ms', 'total ms'] : [])], rows),
    '',
    instructionsText(r),
    '',
    ...slots,
    `board ${r.board} (${r.core.family} ${r.core.clockHz / 1e6} MHz), kernels ${r.library}, engine ${r.engine}, storage ${r.storage}${r.asyncErase ? ', async erase' : ''}${r.compress ? `, compressed (bytes from ${describePayloadInputs(inputs)})` : ''}`,
    `${r.core.family} + ${r.library} constant ${r.familyConstant.value.toFixed(4)} (${r.familyConstant.source})${cal}`,
    ...(r.estimatedOps.length > 0 ? [`ops ${r.estimatedOps.join(', ')}: no measured instruction model, estimated from their spec's loop nest`] : []),
    `total ${r.totalMs.toFixed(1)} ms = compute ${b.computeMs.toFixed(1)} + spill ${b.spillMs.toFixed(1)} + fetch ${b.fetchMs.toFixed(1)} + codec ${b.codecMs.toFixed(1)} + stall ${b.stallMs.toFixed(1)}; second core busy ${r.secondCoreBusyMs.toFixed(1)} ms`,
    '',
  ].join('\n');
}

/** "2606.3", or with the paper's cell "2606.3 / 2430 (+7.3%)"; null is the paper's "N/A". */
function tableCell(got: number | null, paper: number | null | undefined): string {
  const g = got === null ? 'N/A' : got.toFixed(1);
  if (paper === undefined) return g;
  if (got === null || paper === null) return `${g} / ${paper ?? 'N/A'}`;
  const pct = (got / paper - 1) * 100;
  return `${g} / ${paper} (${pct >= 0 ? '+' : ''}${pct.toFixed(1)}%)`;
}

function textTable(modelArg: string, t: LatencyTable, target: TargetProfile, inputs: PayloadInputs, paper: boolean): string {
  const headers = ['step', 'peak B', ...STORAGE_KINDS.map((s) => `${s[0]?.toUpperCase()}${s.slice(1)} ms${paper ? ' (got / paper)' : ''}`)];
  const rows = t.rows.map((r) => [r.label, r.peakBytes, ...STORAGE_KINDS.map((s) => tableCell(r.ms[s], paper ? TINYSEG_TABLE5_PAPER_MS[r.step][s] : undefined))]);
  const cal = target.computeCalibration[t.library];
  return [
    `TinySeg Table 5 for ${modelArg}: target ${t.target}, kernels ${t.library}${t.scratchFree ? '' : ', paper scratch step only (no scratch-free TransposeConv)'}`,
    renderTable(headers, rows),
    `${cal === undefined ? '' : `board-file compute scale ${cal.scale.toFixed(4)} from ${cal.source}; `}compressed payloads from a run of the final model with ${describePayloadInputs(inputs)}`,
    '',
  ].join('\n');
}

/** --table computes every cell itself; the single-cell options and the table-only ones exclude each other. */
function checkTableOptions(opts: LatencyCliOptions, storage: string): void {
  if (opts.table === true) {
    const clash = [['--storage', opts.storage !== undefined], ['--async-erase', opts.asyncErase === true], ['--compress', opts.compress === true], ['--svg', opts.svg !== undefined]] as const;
    const bad = clash.filter(([, on]) => on).map(([name]) => name);
    if (bad.length > 0) throw new UsageError(`--table computes every storage / compression / async-erase cell; drop ${bad.join(', ')}`);
  } else {
    const onlyTable = [['--paper', opts.paper === true], ['--no-scratch-free', opts.scratchFree === false]] as const;
    const bad = onlyTable.filter(([, on]) => on).map(([name]) => name);
    if (bad.length > 0) throw new UsageError(`${bad.join(', ')} only apply with --table`);
    if (opts.asyncErase === true && storage === 'remote') refuseFlag('--async-erase', 'remote storage is a host over a link, there is no flash to erase (use --storage internal or external)');
    if (opts.compress !== true && (opts.seed !== undefined || opts.zeroInput === true)) {
      refuseFlag(opts.seed !== undefined ? '--seed' : '--zero-input', 'it picks the inputs of the run whose spilled bytes --compress encodes; add --compress');
    }
  }
}


function runTable(modelArg: string, model: Model, target: TargetProfile, library: KernelLibrary, inputs: PayloadInputs, opts: LatencyCliOptions): number {
  const table = tinysegLatencyTable(model, {
    target, library, payloadInputs: inputs, scratchFree: opts.scratchFree !== false,
    log: progressLog(opts),
  });
  if (opts.json) {
    const rows = opts.paper ? table.rows.map((r) => ({ ...r, paperMs: TINYSEG_TABLE5_PAPER_MS[r.step] })) : table.rows;
    process.stdout.write(`${JSON.stringify({ model: modelArg, ...table, payloadInputs: inputs, rows })}\n`);
  } else {
    process.stdout.write(textTable(modelArg, table, target, inputs, opts.paper === true));
  }
  return 0;
}

function runValidate(modelArg: string | undefined, opts: LatencyCliOptions): number {
  if (modelArg !== undefined) throw new UsageError('--validate predicts the MLPerf Tiny models of the CSV; drop MODEL');
  const { csv, validation, instructions } = runValidation(opts.csv);
  process.stdout.write(opts.json ? `${JSON.stringify({ csv, ...validation, instructions })}\n` : `${validationText(csv, validation)}\n${instructionSetsText(instructions)}`);
  return 0;
}

function runBoards(modelArg: string, spec: string, library: KernelLibrary, opts: LatencyCliOptions): number {
  const used = [['--board', opts.board !== undefined || opts.target !== undefined], ['--board-file', opts.boardFile !== undefined || opts.targetFile !== undefined], ['--storage', opts.storage !== undefined], ['--compress', opts.compress === true], ['--async-erase', opts.asyncErase === true], ['--table', opts.table === true], ['--svg', opts.svg !== undefined]] as const;
  const bad = used.filter(([, on]) => on).map(([n]) => n);
  if (bad.length > 0) throw new UsageError(`--boards estimates the plain model on each board; drop ${bad.join(', ')}`);
  const engine = parseEngine(opts.engine);
  const boards = boardList(spec);
  const lines = latencyOnBoards(loadRunnableModel(modelArg), boards, library, engine);
  process.stdout.write(opts.json ? `${JSON.stringify({ model: modelArg, library, engine, boards: lines })}\n` : boardsText(modelArg, lines, library, engine));
  return 0;
}

export function runLatency(modelArg: string | undefined, opts: LatencyCliOptions): number {
  if (opts.validate === true) return runValidate(modelArg, opts);
  if (opts.csv !== undefined) throw new UsageError('--csv only applies with --validate');
  if (modelArg === undefined) throw new UsageError('latency needs a MODEL (or --validate)');
  const library = parseLibrary(opts.kernels);
  if (opts.boards !== undefined) return runBoards(modelArg, opts.boards, library, opts);
  const engine = parseEngine(opts.engine);
  const target = resolveTarget(opts);
  const storage = opts.storage ?? 'internal';
  if (!isStorageKind(storage)) throw new UsageError(`unknown --storage '${storage}'; known: ${STORAGE_KINDS.join(', ')}`);
  const inputs = payloadInputsOf(opts);
  checkTableOptions(opts, storage);
  checkOutputFile(opts.svg, '--svg');
  const model = loadRunnableModel(modelArg);
  const warning = boardFitWarning(model, target);
  if (warning !== null) process.stderr.write(`${warning}\n`);
  if (opts.table === true) return runTable(modelArg, model, target, library, inputs, opts);
  // Checked before any work.
  refuseSpillFlags(model, [['--storage', opts.storage !== undefined], ['--compress', opts.compress === true], ['--async-erase', opts.asyncErase === true]]);
  const progress = phaseProgress('latency', { show: isLargeModel(model.graph), quiet: opts.quiet === true });
  let payloadOf = null;
  if (opts.compress === true) {
    progress.phase(`running the model for the bytes --compress encodes (${describePayloadInputs(inputs)})`);
    payloadOf = captureSpillPayloads(model, { inputs });
  }
  progress.phase(`costing ${model.graph.ops.length} ops on ${target.name} (${library} kernels, ${engine}, ${storage} storage${opts.asyncErase === true ? ', async erase' : ''})`);
  const report = estimateModelLatency(model, {
    target, library, engine, storage, asyncErase: opts.asyncErase === true, compress: opts.compress === true, inputs, payloadOf,
  });
  if (opts.svg !== undefined) {
    progress.phase(`drawing the two-core timeline to ${opts.svg}`);
    writeOutputFile(opts.svg, renderTimelineSvg(report, { modelLabel: modelArg }));
  }
  if (opts.json) {
    const { timeline: _timeline, ...rest } = report;
    process.stdout.write(`${JSON.stringify(report.compress ? { ...rest, payloadInputs: inputs } : rest)}\n`);
  } else {
    process.stdout.write(textReport(report, inputs));
  }
  return 0;
}

export function registerLatency(program: Command, setExit: (code: number) => void): void {
  const cmd = program
    .command('latency')
    .description('estimate one inference\'s latency on a board: compute, spill, fetch, codec, stall (TinySeg Table 5)')
    .argument('[model]', 'a .tflite file or zoo:<name> (none with --validate)');
  addTargetOptions(cmd)
    .option('--kernels <lib>', `kernel library (${KERNEL_LIBRARIES.join(', ')})`, DEFAULT_KERNEL_LIBRARY)
    .option('--engine <engine>', `runtime around the kernels (${ENGINES.join(', ')}: TFLM interpreter or an ahead-of-time compiled graph)`, 'tflm')
    .option('--boards <list>', 'one line per board: "all" or a comma-separated list of boards')
    .option('--validate', 'predict every cell of an MLPerf Tiny latency CSV: error per cell, summary, leave-one-board-out, proprietary lower bounds, recorded instruction counts when found')
    .option('--csv <file>', "with --validate: a CSV of measured cells in the same columns (default: the MLPerf Tiny cells mcusim ships)")
    .option('--storage <kind>', `spill storage (${STORAGE_KINDS.join(', ')}; default internal)`)
    .option('--async-erase', 'erase flash on the second core ahead of the next spill (TinySeg §5.2)')
    .option('--compress', 'most-frequent-value compression of spilled tensors (TinySeg §5.1)');
  addPayloadInputOptions(cmd)
    .option('--json', 'print one JSON document')
    .option('--svg <file>', 'write the two-core timeline as SVG')
    .option('--table', 'TinySeg Table 5 grid: tinyseg step models x internal / external / remote (progress on stderr)')
    .option('--paper', 'with --table: each cell as "got / paper (+x%)" against TinySeg\'s published Table 5')
    .option('--no-scratch-free', 'with --table: the paper\'s int16 scratch step only (no scratch-free TransposeConv)');
  addQuietOption(cmd)
    .action((model: string | undefined, opts: LatencyCliOptions) => setExit(runLatency(model, opts)));
}
