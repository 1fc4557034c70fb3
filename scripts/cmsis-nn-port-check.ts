// The cmsis-nn C port against the real TFLM + CMSIS-NN build, row by row (cmsis-nn-m7/models.json of
// $MCUSIM_DATA, default ../shared/oracle): each row's `codegen --kernels cmsis-nn --cpu cortex-m7` project is built with cc
// (HOST_OPT=-O1) and, with --qemu, arm-none-eabi-gcc under QEMU mps2-an500, run on the seed-1 inputs,
// and its outputs compared with the build's (the wrong bytes of the reference-planned files included).
// Run: npx tsx scripts/cmsis-nn-port-check.ts [--qemu] [--filter SUBSTRING] [--keep]. Exit 1 on any
// row that differs or fails to build; the last line gives the tally.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { generateCProject, QEMU_COMMAND } from '../src/codegen/index.ts';
import { importTflite } from '../src/ir/index.ts';
import { kernelRegistry } from '../src/kernels/index.ts';

const args = process.argv.slice(2);
const flag = (name: string): string | undefined => { const i = args.indexOf(name); return i < 0 ? undefined : args[i + 1]; };
const root = process.env['MCUSIM_DATA'] ?? join(import.meta.dirname, '..', '..', 'shared', 'oracle');
const dir = join(root, 'cmsis-nn-m7');
const rows = JSON.parse(readFileSync(join(dir, 'models.json'), 'utf8')).models as { name: string; model: string; outputs_equal_original?: boolean }[];
const registry = kernelRegistry('cmsis-nn', 'cortex-m7');
const qemu = args.includes('--qemu');
const work = mkdtempSync(join(tmpdir(), 'mcusim-cmsis-port-'));
const tally = { n: 0, same: 0, wrongReproduced: 0, bad: 0 };

/** Runs the host binary or the QEMU ELF of `project` on the seed files; returns its output files' bytes. */
function runPort(project: string, seed: string, inputs: number, outputs: number, goal: 'host' | 'cortex-m7'): Buffer[] {
  const io = join(project, `io-${goal}`);
  mkdirSync(join(io, 'out'), { recursive: true });
  const names = Array.from({ length: inputs }, (_, i) => `input${i}.bin`);
  for (const n of names) writeFileSync(join(io, n), readFileSync(join(seed, n)));
  if (goal === 'host') {
    execFileSync(join(project, 'build/host/model'), [...names.map((n) => join(io, n)), join(io, 'out')], { stdio: 'pipe' });
  } else {
    const [cmd, ...rest] = `${QEMU_COMMAND},${['model', ...names, 'out'].map((a) => `arg=${a}`).join(',')}`.split(' ');
    execFileSync(cmd as string, [...rest, '-kernel', join(project, 'build/cortex-m7/model.elf')], { cwd: io, stdio: 'pipe', timeout: 600_000 });
  }
  return Array.from({ length: outputs }, (_, i) => readFileSync(join(io, 'out', `output${i}.bin`)));
}

for (const r of rows) {
  if (flag('--filter') !== undefined && !r.name.includes(flag('--filter') as string)) continue;
  tally.n++;
  const project = join(work, r.name);
  const seed = join(dir, r.name, 'seed1');
  let line = r.name;
  try {
    const model = importTflite(readFileSync(join(root, r.model)));
    const p = generateCProject(model, { registry, modelName: r.name, target: 'cortex-m7' });
    for (const f of p.files) {
      mkdirSync(dirname(join(project, f.path)), { recursive: true });
      writeFileSync(join(project, f.path), f.text);
    }
    const goals = qemu ? (['host', 'cortex-m7'] as const) : (['host'] as const);
    let same = true;
    for (const goal of goals) {
      execFileSync('make', ['-s', '-C', project, '-j2', goal, 'HOST_OPT=-O1'], { stdio: 'pipe' });
      const got = runPort(project, seed, model.graph.inputs.length, model.graph.outputs.length, goal);
      const ok = got.every((b, i) => existsSync(join(seed, `output${i}.bin`)) && b.equals(readFileSync(join(seed, `output${i}.bin`))));
      line += ` ${goal} ${ok ? 'ok' : 'DIFFERS'}`;
      same &&= ok;
    }
    if (p.summary.planHazard !== undefined) line += ' (planned for the reference kernels)';
    if (r.outputs_equal_original === false) line += same ? ' (the build\'s wrong outputs reproduced)' : ' (the build\'s outputs are wrong)';
    tally.same += same ? 1 : 0;
    tally.wrongReproduced += same && r.outputs_equal_original === false ? 1 : 0;
    tally.bad += same ? 0 : 1;
    if (same && !args.includes('--keep')) rmSync(project, { recursive: true, force: true });
  } catch (e) {
    line += ` ERROR ${(e instanceof Error ? e.message : String(e)).split('\n')[0]}`;
    tally.bad++;
  }
  console.log(line);
}
if (tally.bad === 0 && !args.includes('--keep')) rmSync(work, { recursive: true, force: true });
console.log(`rows ${tally.n}: port outputs identical to the real build ${tally.same} (${qemu ? 'host and Cortex-M7 under QEMU' : 'host'}), of them wrong outputs reproduced ${tally.wrongReproduced}; differing or failing ${tally.bad}${tally.bad > 0 ? ` (projects kept in ${work})` : ''}`);
process.exitCode = tally.bad > 0 ? 1 : 0;
