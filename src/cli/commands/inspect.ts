// `mcusim inspect MODEL [--planner NAME] [--arch A] [--board B] [--kernels L [--cpu C]] [--budget-ms N] [--json] [--ascii] [--svg FILE]`: the
// model's ops, tensors and verified memory plan, as tables (default), one JSON document (--json),
// TFLM's ASCII plan picture (--ascii, text mode only) and/or an SVG picture written to FILE.
// --planner exact stops on a node limit (the same plan on every machine); --budget-ms adds a wall-clock
// budget (then the plan may depend on the machine). It reports whether the peak is proven minimal.
// Every report carries the whole arena for --arch (TFLM's persistent tail + the plan, DESIGN.md §9);
// --board NAME adds whether it fits the board's RAM region and the weights its flash; --kernels /
// --cpu name the kernel library linked (its scratch buffers and persistent data; kernel-options.ts).
// Models over SUMMARY_ABOVE_TENSORS tensors print a summary (op counts by kind, largest tensors,
// plan and arena totals) instead of the op, tensor and plan tables; --tensors prints them in full.
import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { UsageError } from '../../ir/index.ts';
import { DEFAULT_EXACT_NODE_LIMIT, DEFAULT_PLANNER, describePlanSource, getPlanner, ordinalCharacter, plannerNames, renderPlanAscii, renderPlanSvg } from '../../optimizer/index.ts';
import { ARENA_RUNTIMES, DEFAULT_ARENA_RUNTIME, DEFAULT_TFLM_ARCH, TFLM_ARCH_NAMES, getTarget, getTflmArch, listTargets } from '../../sim/index.ts';
import type { ArenaReport } from '../../sim/index.ts';
import { parseArenaAlign } from '../cli-options.ts';
import { addQuietOption, checkOutputFile, refuseFlag } from '../cli-options.ts';
import { bytesAndKb, describeRuntime, formatShape, renderTable, truncate } from '../format.ts';
import { loadModel } from '../load-model.ts';
import { addKernelOptions, kernelsForFile } from '../kernel-options.ts';
import type { KernelCliOptions } from '../kernel-options.ts';
import { LARGE_MODEL_TENSORS, isLargeModel, phaseProgress } from '../progress.ts';
import { INSPECT_RUNTIMES, inspectModel } from '../../api/index.ts';
import type { InspectReport, InspectRuntime } from '../../api/index.ts';

interface InspectOptions extends KernelCliOptions {
  readonly planner: string;
  readonly json?: boolean;
  readonly ascii?: boolean;
  readonly svg?: string;
  readonly budgetMs?: string;
  readonly arch: string;
  readonly board?: string;
  readonly tensors?: boolean;
  readonly runtime?: string;
  readonly arenaAlign?: string;
  readonly quiet?: boolean;
}

/** Above this many tensors the text report is a summary unless --tensors (the line progress draws, too). */
export const SUMMARY_ABOVE_TENSORS = LARGE_MODEL_TENSORS;
const LARGEST_SHOWN = 8;

function opTable(r: InspectReport): string {
  const shapes = (list: readonly (readonly number[] | null)[], ids: readonly number[]): string =>
    list
      .map((s, k) => {
        const t = r.tensors[ids[k] ?? -1];
        return t?.constant ? `${formatShape(s)}*` : formatShape(s);
      })
      .join(', ');
  const rows = r.ops.map((o) => [o.index, o.kind, shapes(o.inputShapes, o.inputs), shapes(o.outputShapes, o.outputs), o.macs]);
  return renderTable(['op', 'kind', 'inputs (* = constant)', 'outputs', 'MACs'], rows);
}

function tensorTable(r: InspectReport): string {
  const rows = r.tensors.map((t) => [
    t.index,
    truncate(t.name, 48),
    t.dtype,
    formatShape(t.shape),
    t.bytes,
    t.constant ? 'const' : t.variable ? 'variable' : 'arena',
  ]);
  return renderTable(['tensor', 'name', 'dtype', 'shape', 'bytes', 'kind'], rows);
}

function planTable(r: InspectReport): string {
  const rows = r.plan.buffers.map((b, i) => [
    i,
    ordinalCharacter(i),
    b.tensor === null ? `scratch ${b.scratchIndex ?? ''}` : `tensor ${b.tensor}`,
    truncate(b.name, 48),
    b.offset,
    b.size,
    b.first,
    b.last,
  ]);
  return renderTable(['buffer', 'ch', 'what', 'name', 'offset', 'size', 'first', 'last'], rows);
}

function summary(r: InspectReport): string {
  return [
    `planner:     ${r.plan.planner}`,
    `peak:        ${bytesAndKb(r.plan.peakBytes)}`,
    `lower bound: ${bytesAndKb(r.plan.lowerBoundBytes)}${r.plan.peakBytes < r.plan.lowerBoundBytes ? ' (live bytes without overlaps; this plan shares bytes)' : ''}`,
    ...(r.plan.proven !== undefined ? [`proven:      ${r.plan.proven ? 'yes (no smaller plan for this op order)' : 'no (search budget ran out)'}`] : []),
    ...(r.plan.gapBytes !== undefined ? [`gap:         ${r.plan.gapBytes} B above the planner's lower bound`] : []),
    `ops: ${r.ops.length}, tensors: ${r.tensors.length}, planned buffers: ${r.plan.buffers.length}, MACs: ${r.totalMacs}`,
  ].join('\n');
}

function arenaSummary(r: InspectReport, startAlignBytes: number): string {
  const a = r.arena;
  const who = (x: ArenaReport): string => describeRuntime(x.runtime, x.arch, x.kernels, x.cpu);
  const extra = r.runtimes === undefined ? [] : [
    `  needs mcusim's kernels: ${r.runtimes.mcusimKernels.join(', ')}`,
    ...ARENA_RUNTIMES.filter((x) => x !== a.runtime).map((x) => {
      const o = r.runtimes?.[x] ?? a;
      return `  on ${who(o)}: ${bytesAndKb(o.plannedBytes)} planned + ${bytesAndKb(o.persistentBytes)} persistent = ${bytesAndKb(o.totalBytes)}`;
    }),
    ...(r.runtimes.stockTflm === undefined ? [] : [
      `  stock TFLM with its own kernels (no codegen --tflm): ${bytesAndKb(r.runtimes.stockTflm.plannedBytes)} planned + ${bytesAndKb(r.runtimes.stockTflm.persistentBytes)} persistent = ${bytesAndKb(r.runtimes.stockTflm.totalBytes)}, declare ${r.runtimes.stockTflm.declareBytes}`,
    ]),
  ];
  return [
    `arena on ${who(a)}:`,
    `  planned:     ${bytesAndKb(a.plannedBytes)}`,
    `  persistent:  ${bytesAndKb(a.persistentBytes)}`,
    `  total:       ${bytesAndKb(a.totalBytes)}${a.runtime === 'tflm' ? " (TFLM's arena_used_bytes)" : ''}`,
    ...(a.runtime === 'tflm' ? [`  declare:     uint8_t tensor_arena[${a.declareBytes}] (the smallest a MicroInterpreter accepts; arena start aligned to ${startAlignBytes})`] : []),
    `  outside:     ${bytesAndKb(a.outsideArenaBytes)}`,
    ...extra,
  ].join('\n');
}

function fitSummary(r: InspectReport): string {
  const f = r.fit;
  if (f === undefined) return '';
  const ram = f.fits
    ? `fits: ${bytesAndKb(f.neededBytes)} in ${f.region} (${bytesAndKb(f.ramBytes)}), ${bytesAndKb(f.marginBytes)} to spare`
    : `does NOT fit: ${bytesAndKb(f.neededBytes)} > ${f.region} (${bytesAndKb(f.ramBytes)}), ${bytesAndKb(-f.marginBytes)} missing`;
  const flash = f.flashFits
    ? `weights ${bytesAndKb(f.weightsBytes)} fit flash (${bytesAndKb(f.flashBytes)}), ${bytesAndKb(f.flashMarginBytes)} to spare`
    : `weights ${bytesAndKb(f.weightsBytes)} do NOT fit flash (${bytesAndKb(f.flashBytes)}), ${bytesAndKb(-f.flashMarginBytes)} missing`;
  return [`board ${f.board}:`, `  RAM:   ${ram}`, `  flash: ${flash}`].join('\n');
}

/** The short view of a big model: ops by kind and its largest tensors. */
function modelSummary(r: InspectReport): string {
  const byKind = new Map<string, { n: number; macs: number }>();
  for (const o of r.ops) {
    const k = byKind.get(o.kind) ?? { n: 0, macs: 0 };
    byKind.set(o.kind, { n: k.n + 1, macs: k.macs + o.macs });
  }
  const kinds = [...byKind.entries()].sort((a, b) => b[1].n - a[1].n || a[0].localeCompare(b[0]));
  const largest = [...r.tensors].sort((a, b) => b.bytes - a.bytes || a.index - b.index).slice(0, LARGEST_SHOWN);
  const kindOf = (t: InspectReport['tensors'][number]): string => (t.constant ? 'const' : t.variable ? 'variable' : 'arena');
  const arena = r.tensors.filter((t) => !t.constant);
  return [
    `${r.ops.length} ops, ${r.tensors.length} tensors (${arena.length} in the arena, ${r.tensors.length - arena.length} constant); the full tables: --tensors`,
    '',
    renderTable(['op kind', 'count', 'MACs'], kinds.map(([k, v]) => [k, v.n, v.macs])),
    '',
    `largest tensors:`,
    renderTable(['tensor', 'name', 'dtype', 'shape', 'bytes', 'kind'], largest.map((t) => [t.index, truncateStart(t.name, 48), t.dtype, formatShape(t.shape), t.bytes, kindOf(t)])),
  ].join('\n');
}

/** Long names keep their distinguishing tail. */
function truncateStart(s: string, max: number): string {
  return s.length <= max ? s : `…${s.slice(s.length - max + 1)}`;
}

function writeSvg(path: string, svg: string): void {
  try {
    writeFileSync(path, svg);
  } catch (e) {
    throw new UsageError(`cannot write SVG '${path}': ${e instanceof Error ? e.message : String(e)}`);
  }
}

function checkModeFlags(opts: InspectOptions): void {
  if (opts.json === true && opts.ascii === true) refuseFlag('--ascii', 'it draws the plan in the text report, and --json prints the JSON document only');
  if (opts.tensors === true && opts.json === true) refuseFlag('--tensors', '--json always lists every op, tensor and buffer');
  if (opts.tensors === true && opts.ascii === true) refuseFlag('--tensors', '--ascii prints the plan picture instead of the tables');
}

function budgetOf(opts: InspectOptions): number | undefined {
  if (opts.budgetMs === undefined) return undefined;
  if (opts.planner !== 'exact') throw new UsageError(`--budget-ms applies to --planner exact only, not '${opts.planner}'`);
  const n = Number(opts.budgetMs);
  if (!Number.isSafeInteger(n) || n < 1) throw new UsageError(`--budget-ms must be a positive integer, got '${opts.budgetMs}'`);
  return n;
}

export function runInspect(modelArg: string, opts: InspectOptions): number {
  getPlanner(opts.planner);
  const budget = budgetOf(opts);
  checkModeFlags(opts);
  checkOutputFile(opts.svg, '--svg');
  const arch = getTflmArch(opts.arch);
  const board = opts.board === undefined ? undefined : getTarget(opts.board);
  const model = loadModel(modelArg);
  const kernels = kernelsForFile(opts, model, modelArg);
  const progress = phaseProgress('inspect', { show: isLargeModel(model.graph), quiet: opts.quiet === true });
  progress.phase(`planning the arena of ${model.graph.ops.length} ops with ${opts.planner}${opts.planner === 'exact' ? ` (${budget === undefined ? `up to ${DEFAULT_EXACT_NODE_LIMIT} search nodes` : `search budget ${budget} ms`})` : ''}`);
  const runtime = INSPECT_RUNTIMES.find((r) => r === (opts.runtime ?? DEFAULT_ARENA_RUNTIME));
  if (runtime === undefined) throw new UsageError(`--runtime must be ${INSPECT_RUNTIMES.join(' or ')}, got '${opts.runtime ?? ''}'`);
  const startAlignBytes = parseArenaAlign(opts.arenaAlign);
  const targets = { arch, runtime, kernels, startAlignBytes, ...(board === undefined ? {} : { board }) };
  const { report, requests, plan } = inspectModel(model, opts.planner, budget === undefined ? {} : { timeBudgetMs: budget }, targets);
  if (plan.libraryHazard !== undefined) process.stderr.write(`warning: ${plan.libraryHazard}\n`);
  if (opts.svg !== undefined) writeSvg(opts.svg, renderPlanSvg(requests, plan, { title: `${modelArg} (${describePlanSource(requests, plan.planner)})` }));
  if (opts.json) {
    process.stdout.write(`${JSON.stringify(report)}\n`);
    return 0;
  }
  const tail = [arenaSummary(report, startAlignBytes), fitSummary(report)].filter((t) => t !== '');
  const tables = opts.tensors === true || report.tensors.length <= SUMMARY_ABOVE_TENSORS
    ? [opTable(report), tensorTable(report), planTable(report)]
    : [modelSummary(report)];
  const parts = opts.ascii
    ? [renderPlanAscii(requests, plan).trimEnd(), summary(report), ...tail]
    : [...tables, summary(report), ...tail];
  process.stdout.write(`${parts.join('\n\n')}\n`);
  return 0;
}

export function registerInspect(program: Command, setExit: (code: number) => void): void {
  const cmd = program
    .command('inspect')
    .description('show ops, tensors and the verified memory plan of a model')
    .argument('<model>', 'a .tflite file or zoo:<name>')
    .option('--planner <name>', `memory planner (${plannerNames().join(', ')})`, DEFAULT_PLANNER)
    .option('--budget-ms <n>', 'wall-clock budget of --planner exact in milliseconds (default none: it stops after 2M search nodes, the same plan on every machine)')
    .option('--json', 'print one JSON document')
    .option('--ascii', "draw the plan like TFLM's PrintMemoryPlan (text mode)")
    .option('--svg <file>', 'write the plan as an SVG picture')
    .option('--arch <arch>', `TFLM build whose whole arena is reported (${TFLM_ARCH_NAMES.join(', ')})`, DEFAULT_TFLM_ARCH)
    .option('--board <name>', `say whether the model fits this board (${listTargets().join(', ')})`)
    .option('--runtime <runtime>', "whose arena to report: tflm (default: TFLM, with the kernels of codegen --tflm for mcusim's ops) or mcusim (the C port)")
    .option('--arena-align <bytes>', 'alignment of the declared tensor_arena start, for declareBytes (default 16)')
    .option('--tensors', `the full op, tensor and plan tables (default on models of at most ${SUMMARY_ABOVE_TENSORS} tensors; larger ones print a summary)`);
  addQuietOption(addKernelOptions(cmd))
    .action((model: string, opts: InspectOptions) => setExit(runInspect(model, opts)));
}
