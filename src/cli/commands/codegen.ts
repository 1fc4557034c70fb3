// `mcusim codegen MODEL --out-dir DIR [--make-goal host|cortex-m7] [--planner NAME] [--storage internal|external]
// [--compress] [--json] [--quiet]`: plans the model (offline/optimized plans honoured; TinySeg spill
// slots on the chosen nicla-vision flash, MFV-compressed with --compress) and writes a self-contained C99 project to DIR
// (codegen/generateCProject); `make -C DIR host` / `make -C DIR cortex-m7` build it. Prints the
// arena report of the generated runtime (mcusim's C runtime, for the goal's word size) like
// inspect/optimize. --kernels / --cpu: the library whose specs (loop order, scratch) are emitted; a
// file planned for another library gets run's warning (plan.libraryHazard; JSON planHazard).
// With --tflm it writes TFLM kernels for the model's mcusim ops instead (flat in DIR: mcusim_ops.h
// with AddMcusimOps, codegen/generateTflmKernels) and prints the arena TFLM will use with them
// linked (= inspect --runtime tflm; with --kernels cmsis-nn, the sites' kernels from the cmsis-nn
// specs and the arena of TFLM + CMSIS-NN). Old spellings (hidden aliases, DESIGN.md §9): `-o/--out DIR`, `--target GOAL`.
import { join } from 'node:path';
import type { Command } from 'commander';
import { CODEGEN_TARGETS, generateCProject, generateTflmKernels, parseCodegenTarget } from '../../codegen/index.ts';
import type { Model } from '../../ir/index.ts';
import { inspectModel } from '../../api/index.ts';
import type { CodegenTarget } from '../../codegen/index.ts';
import { UsageError, readOfflinePlan } from '../../ir/index.ts';
import { DEFAULT_PLANNER, getPlanner, plannerNames } from '../../optimizer/index.ts';
import type { ArenaReport, TflmArchName } from '../../sim/index.ts';
import type { KernelRegistry } from '../../kernels/index.ts';
import { createStorage, getTflmArch, niclaVision, wholeArena } from '../../sim/index.ts';
import { addHiddenOption, addQuietOption, aliased, checkOutputDir, refuseFlag, refuseSpillFlags } from '../cli-options.ts';
import { bytesAndKb } from '../format.ts';
import { loadModel } from '../load-model.ts';
import { writeOutputFile } from '../output-file.ts';
import { isLargeModel, phaseProgress } from '../progress.ts';
import { addKernelOptions, kernelsJson, kernelsForFile } from '../kernel-options.ts';
import type { KernelCliOptions } from '../kernel-options.ts';

interface CodegenCliOptions extends KernelCliOptions {
  readonly outDir?: string;
  readonly makeGoal?: string;
  /** Old spellings of --out-dir and --make-goal. */
  readonly out?: string;
  readonly target?: string;
  readonly planner: string;
  readonly storage?: string;
  readonly compress?: boolean;
  readonly tflm?: boolean;
  readonly json?: boolean;
  readonly quiet?: boolean;
}

const DEFAULT_GOAL = 'host';

/** Devices the C port has drivers for (nicla-vision internal flash, QSPI external flash). */
const CODEGEN_STORAGE = ['internal', 'external'] as const;

/** The word size the goal builds for: host = 64-bit, cortex-m7 = 32-bit Cortex-M. */
const GOAL_ARCH: Readonly<Record<CodegenTarget, TflmArchName>> = { host: 'host64', 'cortex-m7': 'cortex-m' };

function writeProjectFile(dir: string, path: string, text: string): void {
  writeOutputFile(join(dir, path), text, { makeDirs: true });
}

function arenaLines(a: ArenaReport, cArenaBytes: number): string {
  return [
    `arena (mcusim C runtime, ${a.arch} build):`,
    `  planned:     ${bytesAndKb(a.plannedBytes)}`,
    `  persistent:  ${bytesAndKb(a.persistentBytes)}`,
    `  total:       ${bytesAndKb(a.totalBytes)}`,
    `  outside:     ${bytesAndKb(a.outsideArenaBytes)}`,
    `  static C arena array: ${bytesAndKb(cArenaBytes)} (plan peak + variable tensors)`,
  ].join('\n');
}

/** `--tflm`: TFLM kernels for the model's mcusim ops and the arena TFLM reports with them linked. */
function runTflmCodegen(model: Model, name: string, dir: string, opts: CodegenCliOptions, registry: KernelRegistry): number {
  const kernels = generateTflmKernels(model, {
    modelName: name, registry,
    ...(opts.storage !== undefined ? { storage: createStorage(niclaVision, opts.storage as (typeof CODEGEN_STORAGE)[number]) } : {}),
    ...(opts.compress === true ? { compress: true } : {}),
  });
  for (const f of kernels.files) writeProjectFile(dir, f.path, f.text);
  // A CMSIS-NN build is a Cortex-M build: no host figure for it.
  const archs = registry.library === 'reference' ? (['cortex-m', 'host64'] as const) : (['cortex-m'] as const);
  const arenas = archs.map((a) => inspectModel(model, DEFAULT_PLANNER, {}, { arch: getTflmArch(a), runtime: 'tflm', kernels: registry }).report.arena);
  const s = kernels.summary;
  if (opts.json) {
    process.stdout.write(`${JSON.stringify({ ...kernelsJson(registry), dir, ...s, arenas, files: kernels.files.map((f) => f.path) })}\n`);
    return 0;
  }
  const sites = s.sites.length === 0 ? 'no op needs a generated kernel (stock TFLM runs this file)' : s.sites.map((x) => `op ${x.opIndex} ${x.kind}`).join(', ');
  process.stdout.write(
    `wrote ${kernels.files.length} files to ${dir}: ${s.registrations} registration(s) in AddMcusimOps (mcusim_ops.h), ${s.kernelFunctions} kernel function(s)` +
      `${s.storageSlots > 0 ? `, ${s.storageSlots} spill slot(s)` : ''}\n  kernels: ${s.kernelsLabel}\n  generated kernels: ${sites}\n` +
      arenas.map((a) => `  TFLM arena (${a.arch} build): ${bytesAndKb(a.plannedBytes)} planned + ${bytesAndKb(a.persistentBytes)} persistent = ${bytesAndKb(a.totalBytes)} (arena_used_bytes)\n`).join(''),
  );
  return 0;
}

export function runCodegen(modelArg: string, opts: CodegenCliOptions): number {
  const dir = aliased<string>(opts, { flag: '--out-dir', key: 'outDir' }, { flag: '-o/--out', key: 'out' });
  if (dir === undefined) throw new UsageError('codegen needs --out-dir DIR (or -o DIR)');
  if (opts.tflm === true) {
    if (opts.makeGoal !== undefined || opts.target !== undefined) refuseFlag('--make-goal', '--tflm writes sources for your TFLM build, not a project');
    if (opts.planner !== DEFAULT_PLANNER) refuseFlag('--planner', "--tflm: TFLM plans the arena with its own greedy planner");
  }
  const goalText = aliased<string>(opts, { flag: '--make-goal', key: 'makeGoal' }, { flag: '--target', key: 'target' }) ?? DEFAULT_GOAL;
  if (!CODEGEN_TARGETS.some((t) => t === goalText)) throw new UsageError(`--make-goal must be ${CODEGEN_TARGETS.join(' or ')}, got '${goalText}'`);
  const target = parseCodegenTarget(goalText);
  getPlanner(opts.planner);
  if (opts.storage !== undefined && !(CODEGEN_STORAGE as readonly string[]).includes(opts.storage)) {
    throw new UsageError(`--storage must be ${CODEGEN_STORAGE.join(' or ')} for codegen (the C port has no remote-host driver), got '${opts.storage}'`);
  }
  checkOutputDir(dir, '--out-dir');
  const model = loadModel(modelArg);
  const registry = kernelsForFile(opts, model, modelArg);
  refuseSpillFlags(model, [['--storage', opts.storage !== undefined], ['--compress', opts.compress === true]]);
  const name = modelArg.replace(/^.*[\\/]/, '').replace(/\.tflite$/, '');
  if (opts.tflm === true) {
    return runTflmCodegen(model, name, dir, opts, registry);
  }
  const progress = phaseProgress('codegen', { show: isLargeModel(model.graph), quiet: opts.quiet === true });
  progress.phase(`planning (${opts.planner}) and emitting C for ${model.graph.ops.length} ops`);
  const project = generateCProject(model, {
    target, planner: opts.planner, modelName: name, registry,
    ...(opts.storage !== undefined ? { storage: createStorage(niclaVision, opts.storage as (typeof CODEGEN_STORAGE)[number]) } : {}),
    ...(opts.compress === true ? { compress: true } : {}),
  });
  progress.phase(`writing ${project.files.length} files to ${dir}`);
  for (const f of project.files) writeProjectFile(dir, f.path, f.text);
  const s = project.summary;
  const arena = wholeArena(model.graph, s.peakBytes, getTflmArch(GOAL_ARCH[target]), readOfflinePlan(model), 'mcusim', registry).report;
  if (s.planHazard !== undefined) {
    process.stderr.write(`warning: ${s.planHazard}\n  the port computes what that build computes, corrupted; \`mcusim verify ORIGINAL FILE --kernels ${registry.library}\` names the clobber\n`);
  }
  if (opts.json) {
    process.stdout.write(`${JSON.stringify({ ...kernelsJson(registry), dir, ...s, arena, files: project.files.map((f) => f.path) })}\n`);
    return 0;
  }
  process.stdout.write(
    `wrote ${project.files.length} files to ${dir}: ${s.ops} ops, ${s.kernelFunctions} kernel functions, ` +
      `${s.constantBytes} B constants, arena ${s.arenaBytes} B (plan peak ${s.peakBytes} B, ${s.planner})` +
      `${s.storageSlots > 0 ? `, ${s.storageSlots} spill slot(s), I/O unit ${s.ioUnitBytes} B inside the arena` : ''}\n` +
      `kernels: ${s.kernelsDescription}\n${arenaLines(arena, s.arenaBytes)}\n` +
      `build: make -C ${dir} ${s.target}\n`,
  );
  return 0;
}

export function registerCodegen(program: Command, setExit: (code: number) => void): void {
  const cmd = program
    .command('codegen')
    .description('write a self-contained C99 project (host and Cortex-M7/QEMU) running the planned model')
    .argument('<model>', 'a .tflite file or zoo:<name>')
    .option('--out-dir <dir>', 'project folder to write')
    .option('--make-goal <goal>', `default Makefile goal (${CODEGEN_TARGETS.join(', ')}; default ${DEFAULT_GOAL})`)
    .option('--planner <name>', `memory planner (${plannerNames().join(', ')})`, DEFAULT_PLANNER)
    .option('--storage <kind>', `flash the spilled tensors go to (${CODEGEN_STORAGE.join(', ')}; default internal)`)
    .option('--compress', 'MFV-compress spilled blocks (TinySeg §5.1), as the simulator does')
    .option('--tflm', "write TFLM kernels for the model's mcusim ops (mcusim_ops.h: AddMcusimOps) instead of a project")
    .option('--json', 'print one JSON document');
  addQuietOption(addKernelOptions(cmd));
  addHiddenOption(cmd, '-o, --out <dir>', 'old spelling of --out-dir');
  addHiddenOption(cmd, '--target <goal>', 'old spelling of --make-goal');
  cmd.action((model: string, opts: CodegenCliOptions) => setExit(runCodegen(model, opts)));
}
