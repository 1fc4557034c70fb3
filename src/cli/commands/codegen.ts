// `mcusim codegen MODEL -o DIR [--target host|cortex-m7] [--planner NAME] [--json]`: plans the
// model (offline/optimized plans honoured) and writes a self-contained C99 project to DIR
// (codegen/generateCProject); `make -C DIR host` / `make -C DIR cortex-m7` build it.
import { join } from 'node:path';
import type { Command } from 'commander';
import { CODEGEN_TARGETS, generateCProject, parseCodegenTarget } from '../../codegen/index.ts';
import { DEFAULT_PLANNER, plannerNames } from '../../optimizer/index.ts';
import { loadModel } from '../load-model.ts';
import { writeOutputFile } from '../output-file.ts';

interface CodegenCliOptions {
  readonly out: string;
  readonly target: string;
  readonly planner: string;
  readonly json?: boolean;
}

function writeProjectFile(dir: string, path: string, text: string): void {
  writeOutputFile(join(dir, path), text, { makeDirs: true });
}

export function runCodegen(modelArg: string, opts: CodegenCliOptions): number {
  const target = parseCodegenTarget(opts.target);
  const model = loadModel(modelArg);
  const name = modelArg.replace(/^.*[\\/]/, '').replace(/\.tflite$/, '');
  const project = generateCProject(model, { target, planner: opts.planner, modelName: name });
  for (const f of project.files) writeProjectFile(opts.out, f.path, f.text);
  const s = project.summary;
  if (opts.json) {
    process.stdout.write(`${JSON.stringify({ dir: opts.out, ...s, files: project.files.map((f) => f.path) })}\n`);
    return 0;
  }
  process.stdout.write(
    `wrote ${project.files.length} files to ${opts.out}: ${s.ops} ops, ${s.kernelFunctions} kernel functions, ` +
      `${s.constantBytes} B constants, arena ${s.arenaBytes} B (plan peak ${s.peakBytes} B, ${s.planner})` +
      `${s.storageSlots > 0 ? `, ${s.storageSlots} spill slot(s), I/O unit ${s.ioUnitBytes} B inside the arena` : ''}\n` +
      `build: make -C ${opts.out} ${s.target}\n`,
  );
  return 0;
}

export function registerCodegen(program: Command, setExit: (code: number) => void): void {
  program
    .command('codegen')
    .description('write a self-contained C99 project (host and Cortex-M7/QEMU) running the planned model')
    .argument('<model>', 'a .tflite file or zoo:<name>')
    .requiredOption('-o, --out <dir>', 'project folder to write')
    .option('--target <name>', `default Makefile goal (${CODEGEN_TARGETS.join(', ')})`, 'host')
    .option('--planner <name>', `memory planner (${plannerNames().join(', ')})`, DEFAULT_PLANNER)
    .option('--json', 'print one JSON document')
    .action((model: string, opts: CodegenCliOptions) => setExit(runCodegen(model, opts)));
}
