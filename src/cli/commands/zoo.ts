// `mcusim zoo list` and `mcusim zoo export NAME -o FILE`: the seeded model zoo, listed or
// written out as a .tflite file through the exporter.
import type { Command } from 'commander';
import { buildZooModel, exportTflite, listZooModels } from '../../ir/index.ts';
import { renderTable } from '../format.ts';
import { checkOutputFile } from '../cli-options.ts';
import { writeOutputFile } from '../output-file.ts';

export function runZooList(opts: { readonly json?: boolean }): number {
  const models = listZooModels();
  if (opts.json) {
    process.stdout.write(`${JSON.stringify({ models })}\n`);
  } else {
    process.stdout.write(`${renderTable(['name', 'description'], models.map((m) => [m.name, m.description]))}\n`);
  }
  return 0;
}

export function runZooExport(name: string, opts: { readonly output: string; readonly json?: boolean }): number {
  checkOutputFile(opts.output, '-o/--output');
  const bytes = exportTflite(buildZooModel(name));
  writeOutputFile(opts.output, bytes);
  const result = { name, file: opts.output, bytes: bytes.byteLength };
  process.stdout.write(opts.json ? `${JSON.stringify(result)}\n` : `wrote ${opts.output} (${bytes.byteLength} bytes)\n`);
  return 0;
}

export function registerZoo(program: Command, setExit: (code: number) => void): void {
  const zoo = program.command('zoo').description('the built-in seeded model zoo');
  zoo
    .command('list')
    .description('list the zoo models')
    .option('--json', 'print one JSON document')
    .action((opts: { json?: boolean }) => setExit(runZooList(opts)));
  zoo
    .command('export')
    .description('write a zoo model as a .tflite file')
    .argument('<name>', 'zoo model name')
    .requiredOption('-o, --output <file>', 'output .tflite path')
    .option('--json', 'print one JSON document')
    .action((name: string, opts: { output: string; json?: boolean }) => setExit(runZooExport(name, opts)));
}
