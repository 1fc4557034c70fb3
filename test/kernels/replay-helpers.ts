// Test helpers shared by every kernel test: one-op setups (oracle vectors via setupVectorCase, or
// plain tensor descriptions via setupOp; both carry the op's scratch offsets), replay through the
// fast and traced executors and the address-only walk, and one gcc -O2 -std=c99 -Wall -Werror
// program running the emitted C of many setups in their own arenas (outputs printed as hex).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BuiltinKind, DType, Graph, OpOptionsMap, Tensor } from '../../src/ir/index.ts';
import { byteSize } from '../../src/ir/index.ts';
import type { CKernel, KernelInstance, TraceSink } from '../../src/kernels/index.ts';
import { emitCKernel, emitCUnit, instantiateOp, prepareOp, walkAddresses } from '../../src/kernels/index.ts';
import type { ConformanceSetup, VectorCase, VectorTensor } from '../../src/sim/index.ts';
import { Runtime, compareOutputs, layoutSingleOp, parseVectorLines, setupVectorCase } from '../../src/sim/index.ts';
import { ORACLE_VECTORS as VECTORS } from '../oracle-paths.ts';

export { VECTORS };

export const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

export const hasGcc = ((): boolean => {
  try {
    execFileSync('gcc', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

export function loadCases(op: string): VectorCase[] {
  return parseVectorLines(readFileSync(join(VECTORS, `${op}.jsonl`), 'utf8'));
}

// ------------------------------------------------------------------ setups

/** A tensor of a test op: `data` set = constant (int32 little-endian / int16 / int8 bytes). */
export interface TensorDesc {
  readonly dtype: DType;
  readonly shape: readonly number[];
  readonly quant?: { readonly scale: number; readonly zeroPoint: number };
  readonly data?: readonly number[];
}

export function encodeInts(dtype: DType, data: readonly number[]): Uint8Array {
  const out = new Uint8Array(byteSize(dtype, [data.length]));
  const dv = new DataView(out.buffer);
  data.forEach((v, i) => {
    if (dtype === 'int8') dv.setInt8(i, v);
    else if (dtype === 'int16') dv.setInt16(2 * i, v, true);
    else dv.setInt32(4 * i, v, true);
  });
  return out;
}

/**
 * A one-op graph laid out like setupVectorCase (layoutSingleOp). `inputData` holds the values of
 * the non-constant inputs, `expected` the reference outputs.
 */
export function setupOp<K extends BuiltinKind>(
  kind: K, options: OpOptionsMap[K], inputs: readonly TensorDesc[], outputs: readonly TensorDesc[],
  inputData: readonly (readonly number[])[], expected: readonly (readonly number[])[],
): ConformanceSetup {
  const toTensor = (d: TensorDesc, name: string): Tensor => ({
    name,
    dtype: d.dtype,
    shape: d.shape,
    quant: d.quant ? { scale: [Math.fround(d.quant.scale)], zeroPoint: [d.quant.zeroPoint], quantizedDimension: 0 } : null,
    data: d.data ? encodeInts(d.dtype, d.data) : null,
    isVariable: false,
  });
  const tensors = [...inputs.map((d, i) => toTensor(d, `in${i}`)), ...outputs.map((d, i) => toTensor(d, `out${i}`))];
  const nIn = inputs.length;
  const graph = {
    name: `${kind}-test`,
    tensors,
    ops: [{ kind, inputs: inputs.map((_, i) => i), outputs: outputs.map((_, i) => nIn + i), options }],
    inputs: inputs.flatMap((d, i) => (d.data ? [] : [i])),
    outputs: outputs.map((_, i) => nIn + i),
  } as Graph;
  const activeInputs = inputs.filter((d) => !d.data);
  return {
    graph,
    ...layoutSingleOp(graph),
    inputs: activeInputs.map((d, i) => encodeInts(d.dtype, inputData[i] ?? [])),
    expected: outputs.map((d, i) => encodeInts(d.dtype, expected[i] ?? [])),
  };
}

/** A synthetic oracle-format tensor (for seeded property cases built like the vectors). */
export function vt(name: string, dtype: string, shape: readonly number[], data: readonly number[], quant: { scale: number[]; zp: number[] } | null, isConst = false): VectorTensor {
  return {
    name, dtype, shape, const: isConst, data,
    quant: quant && { scale: quant.scale, zero_point: quant.zp, quantized_dimension: 0 },
  };
}

// ------------------------------------------------------------------ JS replay

export function instanceOf(s: ConformanceSetup): KernelInstance {
  return instantiateOp(s.graph, prepareOp(s.graph, 0), s.tensorOffsets, s.scratchOffsets);
}

/**
 * Output bytes of one run in a fresh arena (traced when a sink is given), on the kernels a runtime
 * uses by default (WebAssembly), or on the JS lowering (`kernels: 'js'`): the code a first run uses
 * (shared) or, with `specializeAfterRuns` 0, the op's specialized code.
 */
export function runSetup(s: ConformanceSetup, trace?: TraceSink, specializeAfterRuns?: number, kernels?: 'wasm' | 'js'): Uint8Array[] {
  const rt = new Runtime({
    graph: s.graph, tensorOffsets: s.tensorOffsets, arenaBytes: s.arenaBytes, scratchOffsets: [s.scratchOffsets],
    ...(specializeAfterRuns === undefined ? {} : { specializeAfterRuns, kernels: 'js' as const }), ...(kernels === undefined ? {} : { kernels }),
  });
  return rt.run(s.inputs, trace ? { trace } : {});
}

/** A trace sink that keeps every event's words, as raw bytes. */
export function collectTrace(): { readonly sink: TraceSink; readonly bytes: () => Buffer } {
  const chunks: Buffer[] = [];
  return {
    sink: (_op, log, count) => void chunks.push(Buffer.from(log.slice(0, 2 * count).buffer)),
    bytes: () => Buffer.concat(chunks),
  };
}

/** Address-only walk events of the op. */
export function walkTrace(s: ConformanceSetup): Buffer {
  const t = collectTrace();
  walkAddresses(instanceOf(s), t.sink);
  return t.bytes();
}

export interface ExecResult {
  /** Output bytes of the JS fast executor (shared code). */
  readonly fast: readonly Uint8Array[];
  readonly traced: readonly Uint8Array[];
  /** Address walk events == traced events, byte for byte. */
  readonly walkMatchesTrace: boolean;
  /** The specialized fast and traced code (what ops run once hot) give the same bytes and events. */
  readonly specializedAgrees: boolean;
  /** The WebAssembly fast and traced kernels give the same bytes and events as the JS ones. */
  readonly wasmAgrees: boolean;
  readonly events: number;
}

/** Run a setup through the fast and traced executors (fresh arenas, shared and specialized code) and the address walk. */
export function execute(s: ConformanceSetup): ExecResult {
  const fast = runSetup(s, undefined, undefined, 'js');
  const trace = collectTrace();
  const traced = runSetup(s, trace.sink, undefined, 'js');
  const b = trace.bytes();
  const specTrace = collectTrace();
  const specTraced = runSetup(s, specTrace.sink, 0);
  const same = (x: readonly Uint8Array[], y: readonly Uint8Array[]): boolean => x.length === y.length && x.every((a, i) => Buffer.from(a).equals(Buffer.from(y[i] ?? new Uint8Array(0))));
  const specializedAgrees = same(runSetup(s, undefined, 0), fast) && same(specTraced, fast) && specTrace.bytes().equals(b);
  const wasmTrace = collectTrace();
  const wasmTraced = runSetup(s, wasmTrace.sink, undefined, 'wasm');
  const wasmAgrees = same(runSetup(s, undefined, undefined, 'wasm'), fast) && same(wasmTraced, fast) && wasmTrace.bytes().equals(b);
  return { fast, traced, walkMatchesTrace: walkTrace(s).equals(b), specializedAgrees, wasmAgrees, events: b.length / 8 };
}

/** Every replay reading of one setup agrees: fast == traced bytes, walk == trace events. */
export function replayAgrees(s: ConformanceSetup): { readonly fast: readonly Uint8Array[]; readonly same: boolean } {
  const r = execute(s);
  const sameBytes = r.fast.every((b, i) => Buffer.from(b).equals(Buffer.from(r.traced[i] ?? new Uint8Array(0))));
  return { fast: r.fast, same: sameBytes && r.walkMatchesTrace && r.specializedAgrees && r.wasmAgrees };
}

// ------------------------------------------------------------------ C replay

const list = (xs: ArrayLike<number>): string => (xs.length ? Array.from(xs).join(', ') : '0');

/** Build `source` with gcc -O2 -std=c99 -Wall -Werror, run it, return its stdout. */
export function compileAndRunC(source: string, extraFlags: readonly string[] = []): string {
  const dir = mkdtempSync(join(tmpdir(), 'mcusim-c-'));
  try {
    writeFileSync(join(dir, 'k.c'), source);
    execFileSync('gcc', ['-O2', '-std=c99', '-Wall', '-Werror', ...extraFlags, '-o', join(dir, 'k'), join(dir, 'k.c')], { stdio: 'pipe' });
    return execFileSync(join(dir, 'k'), { encoding: 'utf8', maxBuffer: 1 << 28 });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A C99 program running each setup's emitted kernel `repeat` times in its own arena, printing
 * every output tensor as one hex line. Its main (thousands of straight-line calls and copies) is
 * built at -O0 whatever the command line says: optimizing it was half of gcc's time (a property
 * batch 2.9 -> 1.5 s), and the kernels under test, compiled as given, are then called as a
 * runtime calls them, never inlined into the harness. */
/**
 * The C data of kernel `i` in a replay program (its int32 arena `arena<i>`, params, arrays and
 * constant buffers) and the arguments of its call: what cProgram and the CMSIS-NN C tests share.
 */
export function cKernelCall(i: number, k: CKernel, arenaBytes: number): { data: string; args: string[] } {
  let data = `static int32_t arena${i}[${Math.max(1, Math.ceil(arenaBytes / 4))}];\nstatic const int32_t p${i}[] = { ${list(k.params)} };\n`;
  const args = [`p${i}`];
  for (const a of k.arrays) {
    data += `static const int32_t a${i}_${a.name}[] = { ${list(a.values)} };\n`;
    args.push(`a${i}_${a.name}`);
  }
  for (const b of k.buffers) {
    const bind = b.binding;
    if (bind.offsetBytes === null) {
      data += `static const uint8_t c${i}_${b.name}[] __attribute__((aligned(16))) = { ${list(bind.data ?? new Uint8Array(0))} };\n`;
      args.push(`(const ${b.ctype}*)(const void*)c${i}_${b.name}`);
    } else {
      args.push(`(${b.isConst ? 'const ' : ''}${b.ctype}*)(void*)((uint8_t*)arena${i} + ${bind.offsetBytes})`);
    }
  }
  return { data, args };
}

export function cProgram(setups: readonly ConformanceSetup[], repeat = 1): string {
  const kernels: CKernel[] = setups.map((s) => emitCKernel(instanceOf(s)));
  const unit = emitCUnit(kernels);
  let data = '';
  let body = '';
  setups.forEach((s, i) => {
    const k = kernels[i] as CKernel;
    const setup = cKernelCall(i, k, s.arenaBytes);
    data += setup.data;
    const args = setup.args;
    s.graph.inputs.forEach((t, j) => {
      const bytes = s.inputs[j] as Uint8Array;
      data += `static const uint8_t in${i}_${j}[] = { ${list(bytes)} };\n`;
      body += `  memcpy((uint8_t*)arena${i} + ${s.tensorOffsets[t]}, in${i}_${j}, ${bytes.length});\n`;
    });
    const call = `${unit.functionNames[i]}(${args.join(', ')})`;
    body += repeat === 1 ? `  ${call};\n` : `  for (int r = 0; r < ${repeat}; ++r) ${call};\n`;
    s.graph.outputs.forEach((t, j) => {
      body += `  dump((uint8_t*)arena${i} + ${s.tensorOffsets[t]}, ${s.expected[j]?.length ?? 0});\n`;
    });
  });
  return `${unit.source}
#include <stdio.h>
#include <string.h>
static void dump(const uint8_t* p, int n) { for (int i = 0; i < n; ++i) printf("%02x", p[i]); printf("\\n"); }
${data}
__attribute__((optimize("O0"))) int main(void) {
${body}  return 0;
}
`;
}

/** Compile and run `cProgram(setups)`; one hex line per output tensor of every setup. */
export function runC(setups: readonly ConformanceSetup[]): string[] {
  const out = compileAndRunC(cProgram(setups)).trim();
  return out === '' ? [] : out.split('\n');
}

// ------------------------------------------------------------------ oracle suite

/**
 * The oracle replay every op passes: all vectors through the fast executor (vs TFLM), the traced
 * executor (same bytes) and the address walk (same events). The emitted C of every vector is
 * checked in emit-c-all.test.ts (`c` is accepted for compatibility and ignored).
 */
export function oracleReplaySuite(op: string, opts: { readonly expectedCases?: number; readonly c?: boolean } = {}): void {
  const expectedCases = opts.expectedCases ?? 150;
  describe(`${op} oracle vectors`, () => {
    const cases = loadCases(op);
    const setups = cases.map(setupVectorCase);
    const setupAt = (i: number): ConformanceSetup => setups[i] as ConformanceSetup;

    it('fast executor matches TFLM on every case', () => {
      const failed = cases.map((c, i) => compareOutputs(c, setupAt(i).expected, runSetup(setupAt(i)))).filter((r) => !r.pass);
      expect(failed).toEqual([]);
      expect(cases.length).toBe(expectedCases);
    });

    it('traced executor gives the same bytes and the address walk the same events', () => {
      setups.forEach((s, i) => {
        const t = collectTrace();
        const out = runSetup(s, t.sink);
        expect(out.map(hex), `${op} #${cases[i]?.id}`).toEqual(s.expected.map(hex));
        expect(walkTrace(s).equals(t.bytes()), `${op} #${cases[i]?.id}`).toBe(true);
      });
    });
  });
}
