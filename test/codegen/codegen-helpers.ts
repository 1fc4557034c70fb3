// Test helpers for the C port: write a generated project to a temp folder, build it with make,
// run the host binary or the Cortex-M7 ELF under QEMU on raw input bytes, read the outputs back.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { expect } from 'vitest';
import type { CProject } from '../../src/codegen/index.ts';
import { QEMU_COMMAND } from '../../src/codegen/index.ts';

export function hasTool(cmd: string, args: readonly string[] = ['--version']): boolean {
  try {
    execFileSync(cmd, [...args], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export function makeTempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `mcusim-${prefix}-`));
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

export function writeProject(project: CProject, dir: string): void {
  for (const f of project.files) {
    const file = join(dir, f.path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, f.text);
  }
}

/** `make -C dir GOAL VARS...`; throws with the compiler output on failure. */
export function make(dir: string, goal: string, vars: readonly string[] = []): string {
  return execFileSync('make', ['-s', '-C', dir, '-j2', goal, ...vars], { encoding: 'utf8', stdio: 'pipe' });
}

function writeInputs(dir: string, inputs: readonly Uint8Array[]): string[] {
  return inputs.map((bytes, i) => {
    const file = join(dir, `input${i}.bin`);
    writeFileSync(file, bytes);
    return file;
  });
}

function readOutputs(outDir: string, count: number): Uint8Array[] {
  return Array.from({ length: count }, (_, i) => new Uint8Array(readFileSync(join(outDir, `output${i}.bin`))));
}

/** Runs DIR/build/host/model on the given input bytes and returns its output files' bytes. */
export function runHost(dir: string, inputs: readonly Uint8Array[], outputs: number): Uint8Array[] {
  const io = join(dir, 'io');
  const out = join(io, 'out');
  mkdirSync(out, { recursive: true });
  const files = writeInputs(io, inputs);
  execFileSync(join(dir, 'build/host/model'), [...files, out], { stdio: 'pipe' });
  return readOutputs(out, outputs);
}

/** Runs DIR/build/cortex-m7/model.elf under QEMU (semihosting args, cwd = DIR/qemu-io). */
export function runQemu(dir: string, inputs: readonly Uint8Array[], outputs: number): Uint8Array[] {
  const io = join(dir, 'qemu-io');
  mkdirSync(join(io, 'out'), { recursive: true });
  writeInputs(io, inputs);
  const args = ['model', ...inputs.map((_, i) => `input${i}.bin`), 'out'].map((a) => `arg=${a}`).join(',');
  const [cmd, ...rest] = `${QEMU_COMMAND},${args}`.split(' ');
  execFileSync(cmd as string, [...rest, '-kernel', join(dir, 'build/cortex-m7/model.elf')], { cwd: io, stdio: 'pipe', timeout: 300_000 });
  return readOutputs(join(io, 'out'), outputs);
}

export const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

export interface RamSymbol {
  readonly name: string;
  readonly sizeBytes: number;
  /** nm type letter: b/B (.bss), d/D (.data). */
  readonly type: string;
}

/** Every sized .bss / .data symbol of a binary (`nm -S --size-sort`), largest last. */
export function ramSymbols(binary: string, nm = 'nm'): RamSymbol[] {
  const lines = execFileSync(nm, ['-S', '--size-sort', binary], { encoding: 'utf8' }).split('\n');
  return lines
    .map((l) => l.trim().split(/\s+/))
    .filter((c) => c.length === 4 && /^[bBdD]$/.test(c[2] as string))
    .map((c) => ({ name: c[3] as string, sizeBytes: parseInt(c[1] as string, 16), type: c[2] as string }));
}

/** The host build of a project whose storage reads are faulted: exit 3 with the CRC-32 message, no outputs written. */
export function expectCrcStop(dir: string, inputs: readonly Uint8Array[], outputs: number): void {
  let status = 0;
  let stderr = '';
  try {
    runHost(dir, inputs, outputs);
  } catch (e) {
    const err = e as { status?: number; stderr?: Buffer | string };
    status = err.status ?? -1;
    stderr = String(err.stderr ?? '');
  }
  expect(status).toBe(3);
  expect(stderr).toMatch(/CRC-32/);
  expect(existsSync(join(dir, 'io/out/output0.bin'))).toBe(false);
}
