// Test helper for kernels with spec-declared scratch buffers (transposeConv) and the fixed-point
// activations: lays a one-op graph out like setupVectorCase, appends each scratch buffer
// (16-aligned) after the activations, and replays it through the fast and traced executors, the
// address walk and the emitted C (one gcc program for many cases, outputs printed as hex).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CKernel, KernelInstance, TraceSink } from '../../src/kernels/index.ts';
import { emitCKernel, emitCUnit, instantiateOp, prepareOp, walkAddresses } from '../../src/kernels/index.ts';
import type { ConformanceSetup, VectorCase, VectorTensor } from '../../src/sim/index.ts';
import { Runtime, compareOutputs, parseVectorLines, setupVectorCase } from '../../src/sim/index.ts';

import { ORACLE_VECTORS as VECTORS } from '../oracle-paths.ts';

export interface ScratchSetup extends ConformanceSetup {
  readonly scratchOffsets: readonly number[];
}

const align16 = (n: number): number => Math.ceil(n / 16) * 16;

/** A conformance setup for a one-op graph plus arena room for the op's scratch buffers. */
export function withScratch(s: ConformanceSetup): ScratchSetup {
  const decls = prepareOp(s.graph, 0).prepared.scratch;
  let next = align16(s.arenaBytes);
  const scratchOffsets = decls.map((d) => {
    const off = next;
    next += align16(d.sizeBytes);
    return off;
  });
  return { ...s, arenaBytes: Math.max(next, 16), scratchOffsets };
}

export function setupScratchCase(c: VectorCase): ScratchSetup {
  return withScratch(setupVectorCase(c));
}

export function instanceOf(s: ScratchSetup): KernelInstance {
  return instantiateOp(s.graph, prepareOp(s.graph, 0), s.tensorOffsets, s.scratchOffsets);
}

/** Collects trace/walk events as raw bytes for comparison. */
export function collectEvents(): { readonly sink: TraceSink; readonly bytes: () => Buffer } {
  const chunks: Buffer[] = [];
  return {
    sink: (_op, log, count) => void chunks.push(Buffer.from(log.slice(0, 2 * count).buffer)),
    bytes: () => Buffer.concat(chunks),
  };
}

/** Run the op (traced when a sink is given); returns the output tensors' bytes. */
export function runScratch(s: ScratchSetup, trace?: TraceSink): Uint8Array[] {
  const rt = new Runtime({ graph: s.graph, tensorOffsets: s.tensorOffsets, arenaBytes: s.arenaBytes, scratchOffsets: [s.scratchOffsets] });
  return rt.run(s.inputs, trace ? { trace } : {});
}

/** Address-only walk events of the op. */
export function walkBytes(s: ScratchSetup): Buffer {
  const w = collectEvents();
  walkAddresses(instanceOf(s), w.sink);
  return w.bytes();
}

export const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

export const hasGcc = ((): boolean => {
  try {
    execFileSync('gcc', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

const list = (xs: ArrayLike<number>): string => (xs.length ? Array.from(xs).join(', ') : '0');

/** A C99 program running each setup's emitted kernel in its own arena and dumping the outputs. */
export function cProgram(setups: readonly ScratchSetup[]): string {
  const kernels: CKernel[] = setups.map((s) => emitCKernel(instanceOf(s)));
  const unit = emitCUnit(kernels);
  let data = '';
  let body = '';
  setups.forEach((s, i) => {
    const k = kernels[i] as CKernel;
    data += `static int32_t arena${i}[${Math.max(1, Math.ceil(s.arenaBytes / 4))}];\nstatic const int32_t p${i}[] = { ${list(k.params)} };\n`;
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

/** Compile and run `cProgram(setups)` with gcc -O2 -std=c99 -Wall -Werror; one hex line per output. */
export function runC(setups: readonly ScratchSetup[]): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'mcusim-fx-'));
  try {
    writeFileSync(join(dir, 'k.c'), cProgram(setups));
    execFileSync('gcc', ['-O2', '-std=c99', '-Wall', '-Werror', '-o', join(dir, 'k'), join(dir, 'k.c')], { stdio: 'pipe' });
    return execFileSync(join(dir, 'k'), { encoding: 'utf8', maxBuffer: 1 << 26 }).trim().split('\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}


/** A synthetic oracle-format tensor (for seeded property cases built like the vectors). */
export function vt(name: string, dtype: string, shape: readonly number[], data: readonly number[], quant: { scale: number[]; zp: number[] } | null, isConst = false): VectorTensor {
  return {
    name, dtype, shape, const: isConst, data,
    quant: quant && { scale: quant.scale, zero_point: quant.zp, quantized_dimension: 0 },
  };
}

/** Every replay reading of one setup agrees: fast == traced bytes, walk == trace events. */
export function replayAgrees(s: ScratchSetup): { readonly fast: Uint8Array[]; readonly same: boolean } {
  const fast = runScratch(s);
  const t = collectEvents();
  const traced = runScratch(s, t.sink);
  const sameBytes = fast.every((b, i) => Buffer.from(b).equals(Buffer.from(traced[i] ?? new Uint8Array(0))));
  return { fast, same: sameBytes && walkBytes(s).equals(t.bytes()) };
}

/**
 * The oracle replay every op of this family passes: all vectors through the fast executor, the
 * traced executor (same bytes), the address walk (same events) and, for every 5th vector, gcc.
 */
export function oracleReplaySuite(op: string): void {
  describe(`${op} oracle vectors`, () => {
    const cases = parseVectorLines(readFileSync(join(VECTORS, `${op}.jsonl`), 'utf8'));
    const setups = cases.map(setupScratchCase);

    it('fast executor matches TFLM on every case', () => {
      const failed = cases.map((c, i) => compareOutputs(c, (setups[i] as ScratchSetup).expected, runScratch(setups[i] as ScratchSetup))).filter((r) => !r.pass);
      expect(failed).toEqual([]);
      expect(cases.length).toBe(150);
    });

    it('traced executor gives the same bytes and the address walk the same events', () => {
      setups.forEach((s, i) => {
        const t = collectEvents();
        const out = runScratch(s, t.sink);
        expect(out.map(hex), `${op} #${cases[i]?.id}`).toEqual(s.expected.map(hex));
        expect(walkBytes(s).equals(t.bytes()), `${op} #${cases[i]?.id}`).toBe(true);
      });
    });

    it.skipIf(!hasGcc)('emitted C reproduces every 5th vector', () => {
      const subset = setups.filter((_, i) => i % 5 === 0);
      const lines = runC(subset);
      const expected = subset.flatMap((s) => s.expected.map(hex));
      expect(lines.length).toBe(expected.length);
      lines.forEach((l, i) => expect(l, `${op} subset line ${i}`).toBe(expected[i]));
    });
  });
}
