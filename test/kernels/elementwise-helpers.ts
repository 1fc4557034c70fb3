// Test helpers for the elementwise / reduction kernel tests: oracle cases laid out like the shared
// conformance harness plus the op's scratch buffers (16-aligned, after the activations), run
// through the fast or traced executor, the address walk, and a gcc build of the emitted C.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CKernel, KernelInstance, TraceSink } from '../../src/kernels/index.ts';
import { emitCKernel, emitCUnit, instantiateOp, prepareOp, walkAddresses } from '../../src/kernels/index.ts';
import type { ConformanceSetup, VectorCase } from '../../src/sim/index.ts';
import { Runtime, setupVectorCase } from '../../src/sim/index.ts';

export interface ScratchSetup extends ConformanceSetup {
  readonly scratchOffsets: readonly number[];
}

const align16 = (n: number): number => Math.ceil(n / 16) * 16;

/** The shared conformance layout with op 0's scratch buffers appended. */
export function withScratch(s: ConformanceSetup): ScratchSetup {
  let next = s.arenaBytes;
  const scratchOffsets = prepareOp(s.graph, 0).prepared.scratch.map((d) => {
    const off = next;
    next += align16(d.sizeBytes);
    return off;
  });
  return { ...s, arenaBytes: Math.max(8, align16(next)), scratchOffsets };
}

export function setupCase(c: VectorCase): ScratchSetup {
  return withScratch(setupVectorCase(c));
}

export function instanceOf(s: ScratchSetup): KernelInstance {
  return instantiateOp(s.graph, prepareOp(s.graph, 0), s.tensorOffsets, s.scratchOffsets);
}

/** Output bytes of one run (traced when a sink is given). */
export function runSetup(s: ScratchSetup, trace?: TraceSink): Uint8Array[] {
  const rt = new Runtime({ graph: s.graph, tensorOffsets: s.tensorOffsets, arenaBytes: s.arenaBytes, scratchOffsets: [s.scratchOffsets] });
  return rt.run(s.inputs, trace ? { trace } : {});
}

/** A trace sink that keeps every event's words. */
export function collectTrace(): { sink: TraceSink; bytes: () => Buffer } {
  const chunks: Buffer[] = [];
  return {
    sink: (_op, log, n) => void chunks.push(Buffer.from(log.slice(0, 2 * n).buffer)),
    bytes: () => Buffer.concat(chunks),
  };
}

export function walkTrace(s: ScratchSetup): Buffer {
  const t = collectTrace();
  walkAddresses(instanceOf(s), t.sink);
  return t.bytes();
}

export const hasGcc = ((): boolean => {
  try {
    execFileSync('gcc', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

const list = (xs: ArrayLike<number>): string => (xs.length ? Array.from(xs).join(', ') : '0');

/** A C99 program running each setup's emitted kernel in its own arena, printing outputs as hex. */
export function cProgram(setups: readonly ScratchSetup[]): string {
  const kernels: CKernel[] = setups.map((s) => emitCKernel(instanceOf(s)));
  const unit = emitCUnit(kernels);
  let data = '';
  let body = '';
  setups.forEach((s, i) => {
    const k = kernels[i] as CKernel;
    data += `static int32_t arena${i}[${Math.ceil(s.arenaBytes / 4)}];\nstatic const int32_t p${i}[] = { ${list(k.params)} };\n`;
    const args = [`p${i}`];
    for (const a of k.arrays) {
      data += `static const int32_t a${i}_${a.name}[] = { ${list(a.values)} };\n`;
      args.push(`a${i}_${a.name}`);
    }
    for (const b of k.buffers) {
      const bind = b.binding;
      if (bind.offsetBytes === null) {
        data += `static const uint8_t c${i}_${b.name}[] = { ${list(bind.data ?? new Uint8Array(0))} };\n`;
        args.push(`(const ${b.ctype}*)(const void*)c${i}_${b.name}`);
      } else {
        args.push(`(${b.isConst ? 'const ' : ''}${b.ctype}*)(void*)((uint8_t*)arena${i} + ${bind.offsetBytes})`);
      }
    }
    s.graph.inputs.forEach((t, j) => {
      const bytes = s.inputs[j] as Uint8Array;
      data += `static const uint8_t in${i}_${j}[] = { ${list(bytes)} };\n`;
      body += `  memcpy((uint8_t*)arena${i} + ${s.tensorOffsets[t]}, in${i}_${j}, ${bytes.length});\n`;
    });
    body += `  ${unit.functionNames[i]}(${args.join(', ')});\n`;
    s.graph.outputs.forEach((t, j) => {
      body += `  dump((uint8_t*)arena${i} + ${s.tensorOffsets[t]}, ${s.expected[j]?.length ?? 0});\n`;
    });
  });
  return `${unit.source}
#include <stdio.h>
#include <string.h>
static void dump(const uint8_t* p, int n) { for (int i = 0; i < n; ++i) printf("%02x", p[i]); printf("\\n"); }
${data}
int main(void) {
${body}  return 0;
}
`;
}

/** Build with gcc -O2 -std=c99 -Wall -Werror, run, and return one hex line per output tensor. */
export function runC(setups: readonly ScratchSetup[]): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'mcusim-ew-'));
  try {
    writeFileSync(join(dir, 'k.c'), cProgram(setups));
    execFileSync('gcc', ['-O2', '-std=c99', '-Wall', '-Werror', '-o', join(dir, 'k'), join(dir, 'k.c')], { stdio: 'pipe' });
    const out = execFileSync(join(dir, 'k'), { encoding: 'utf8', maxBuffer: 1 << 26 }).trim();
    return out === '' ? [] : out.split('\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
