// Times one kernel instance as native code: the C emitted from its spec (emitCUnit) plus a small
// driver that lays the arena out at the same offsets as the JS runtime, runs the kernel N times
// between clock_gettime(CLOCK_MONOTONIC) reads, and prints seconds per run and an FNV-1a checksum
// of the output bytes (compared with the JS executor's). Built with `gcc -O2` in a temp dir.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KernelInstance } from '../src/kernels/index.ts';
import { emitCKernel, emitCUnit } from '../src/kernels/index.ts';

export interface CKernelTiming {
  readonly secondsPerRun: number;
  readonly runs: number;
  readonly checksum: string;
  readonly compiler: string;
}

/** FNV-1a 32-bit over bytes, as the C driver computes it. */
export function fnv1a(bytes: Uint8Array): string {
  let h = 0x811c9dc5;
  for (const b of bytes) h = Math.imul(h ^ b, 0x01000193) >>> 0;
  return h.toString(16).padStart(8, '0');
}

const list = (xs: ArrayLike<number>): string => (xs.length ? Array.from(xs).join(',') : '0');

/** A built C driver: `time()` runs it once more (its rounds), `dispose()` deletes it. */
export interface CKernel {
  time(): CKernelTiming;
  dispose(): void;
}

/**
 * `arenaBytes` of arena, `inputs` written at their offsets before timing, the output read from
 * `[outOffset, outOffset + outBytes)` after the last run. Each timing round runs at least
 * `minSeconds`; the best of `rounds` rounds is reported (least disturbed by the machine). Built
 * once; each `time()` is a fresh run of the driver, so a caller can alternate it with the JS timing.
 */
export function buildCKernel(
  inst: KernelInstance,
  arenaBytes: number,
  inputs: readonly { readonly offset: number; readonly bytes: Uint8Array }[],
  out: { readonly offset: number; readonly bytes: number },
  minSeconds = 0.3,
  rounds = 5,
): CKernel {
  const k = emitCKernel(inst);
  const unit = emitCUnit([k]);
  const fn = unit.functionNames[0] ?? 'mcusim_kernel_0';
  let data = `static int32_t arena[${Math.ceil(arenaBytes / 4) + 2}] __attribute__((aligned(16)));\nstatic const int32_t params[] = { ${list(k.params)} };\n`;
  const args = ['params'];
  for (const a of k.arrays) {
    data += `static const int32_t a_${a.name}[] = { ${list(a.values)} };\n`;
    args.push(`a_${a.name}`);
  }
  for (const b of k.buffers) {
    if (b.binding.offsetBytes === null) {
      data += `static const uint8_t c_${b.name}[] __attribute__((aligned(16))) = { ${list(b.binding.data ?? [])} };\n`;
      args.push(`(const ${b.ctype}*)(const void*)c_${b.name}`);
    } else {
      args.push(`(${b.isConst ? 'const ' : ''}${b.ctype}*)(void*)((uint8_t*)arena + ${b.binding.offsetBytes})`);
    }
  }
  let load = '';
  inputs.forEach((inp, i) => {
    data += `static const uint8_t in${i}[] = { ${list(inp.bytes)} };\n`;
    load += `  memcpy((uint8_t*)arena + ${inp.offset}, in${i}, sizeof in${i});\n`;
  });
  const call = `${fn}(${args.join(', ')})`;
  const src = `#define _POSIX_C_SOURCE 199309L
${unit.source}
#include <stdio.h>
#include <string.h>
#include <time.h>
${data}
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec; }
int main(void) {
${load}  double t0 = now();
  ${call};
  double once = now() - t0;
  long n = once > 0 ? (long)(${minSeconds} / once) + 1 : 1000;
  double best = 1e30;
  for (int r = 0; r < ${rounds}; ++r) {
    double s = now();
    for (long i = 0; i < n; ++i) { ${call}; __asm__ volatile("" ::: "memory"); }
    double dt = (now() - s) / (double)n;
    if (dt < best) best = dt;
  }
  const uint8_t* o = (const uint8_t*)arena + ${out.offset};
  uint32_t h = 0x811c9dc5u;
  for (int i = 0; i < ${out.bytes}; ++i) h = (h ^ o[i]) * 0x01000193u;
  printf("%.9e %ld %08x\\n", best, n, h);
  return 0;
}
`;
  const dir = mkdtempSync(join(tmpdir(), 'mcusim-bench-c-'));
  try {
    writeFileSync(join(dir, 'kernel.c'), src);
    execFileSync('gcc', ['-O2', '-std=c99', '-o', join(dir, 'kernel'), join(dir, 'kernel.c')], { stdio: ['ignore', 'ignore', 'inherit'] });
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  const compiler = `${execFileSync('gcc', ['--version'], { encoding: 'utf8' }).split('\n')[0] ?? 'gcc'} -O2`;
  return {
    time: () => {
      const [sec, runs, checksum] = execFileSync(join(dir, 'kernel'), { encoding: 'utf8' }).trim().split(/\s+/);
      return { secondsPerRun: Number(sec), runs: Number(runs), checksum: checksum ?? '', compiler };
    },
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
}
