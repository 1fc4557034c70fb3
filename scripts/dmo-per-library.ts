// What the dmo pass saves per kernel library, on the whole models of testdata/cmsis-nn-m7 (or
// $MCUSIM_DATA): for each, the planned arena before -> after DMO and the whole arena (planned +
// persistent, Cortex-M build) after, planned for the reference kernels and for cmsis-nn on a CPU
// (default cortex-m7). Prints a markdown table (docs/cmsis-nn.md "What DMO saves per library").
// Run: npx tsx scripts/dmo-per-library.ts [--cpu C] [--filter SUBSTRING]
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadModel, optimizeModel, zooModel } from '../src/index.ts';
import type { Model, PassReport } from '../src/index.ts';

const args = process.argv.slice(2);
const flag = (name: string): string | undefined => { const i = args.indexOf(name); return i < 0 ? undefined : args[i + 1]; };
const root = process.env['MCUSIM_DATA'] ?? join(import.meta.dirname, '..', 'testdata');
const cpu = flag('--cpu') ?? 'cortex-m7';
const rows = (JSON.parse(readFileSync(join(root, 'cmsis-nn-m7', 'models.json'), 'utf8')).models as { name: string; model: string }[])
  .filter((r) => r.name.startsWith('orig_') && !r.name.startsWith('orig_op_'))
  .filter((r) => flag('--filter') === undefined || r.name.includes(flag('--filter') as string));

const n = (b: number): string => b.toLocaleString('en-US');
function cell(model: Model, kernels: 'reference' | 'cmsis-nn'): string {
  const r: PassReport | undefined = optimizeModel(model, ['dmo'], kernels === 'reference' ? {} : { kernels, cpu }).reports[0];
  if (r === undefined) return 'no report';
  const saved = r.peakBytesBefore - r.peakBytesAfter;
  const whole = r.arena === undefined ? '' : `; whole ${n(r.arena.before.totalBytes)} -> ${n(r.arena.after.totalBytes)}`;
  return saved > 0 ? `${n(r.peakBytesBefore)} -> ${n(r.peakBytesAfter)} (-${(100 * saved / r.peakBytesBefore).toFixed(1)}%)${whole}` : `${n(r.peakBytesBefore)} (nothing safe)`;
}

console.log(`| model | reference | cmsis-nn (${cpu}) |\n| --- | --- | --- |`);
for (const r of rows) {
  const model = r.model.startsWith('zoo:') ? zooModel(r.model.slice(4)) : loadModel(readFileSync(join(root, r.model)), r.model);
  const label = r.name.replace(/^orig_zoo_/, 'zoo:').replace(/^orig_[a-z]+_/, '');
  console.log(`| ${label} | ${cell(model, 'reference')} | ${cell(model, 'cmsis-nn')} |`);
}
