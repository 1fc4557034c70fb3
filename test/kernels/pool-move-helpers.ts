// Test helpers for the pooling and data-movement kernel tests: one-op setups built from plain
// tensor descriptions (for ops the oracle has no vectors for), runs through the fast and traced
// executors and the address walk, and one gcc batch of the emitted C for many setups.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BuiltinKind, DType, Graph, OpOptionsMap, Tensor } from '../../src/ir/index.ts';
import { byteSize } from '../../src/ir/index.ts';
import type { TraceSink } from '../../src/kernels/index.ts';
import { instantiateOp, prepareOp, walkAddresses } from '../../src/kernels/index.ts';
import type { ConformanceSetup, VectorCase } from '../../src/sim/index.ts';
import { layoutSingleOp, parseVectorLines, Runtime } from '../../src/sim/index.ts';
import { cProgramFor } from './c-harness.ts';

import { ORACLE_VECTORS as VECTORS } from '../oracle-paths.ts';
export { VECTORS };

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

export const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

/** A tensor of a test op: `data` set = constant (int32 little-endian / int8 bytes). */
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
 * A one-op graph with activations laid out back to back (16-aligned), like setupVectorCase.
 * `inputData` holds the values of the non-constant inputs, `expected` the reference outputs.
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

function collect(): { sink: TraceSink; bytes: () => Buffer } {
  const chunks: Buffer[] = [];
  return {
    sink: (_op, log, count) => void chunks.push(Buffer.from(log.slice(0, 2 * count).buffer)),
    bytes: () => Buffer.concat(chunks),
  };
}

export interface ExecResult {
  readonly fast: readonly Uint8Array[];
  readonly traced: readonly Uint8Array[];
  /** Address walk events == traced events, byte for byte. */
  readonly walkMatchesTrace: boolean;
  readonly events: number;
}

/** Run a setup through the fast and traced executors (fresh arenas) and the address walk. */
export function execute(s: ConformanceSetup): ExecResult {
  const mk = (): Runtime => new Runtime({ graph: s.graph, tensorOffsets: s.tensorOffsets, arenaBytes: s.arenaBytes });
  const fast = mk().run(s.inputs);
  const trace = collect();
  const traced = mk().run(s.inputs, { trace: trace.sink });
  const walk = collect();
  walkAddresses(instantiateOp(s.graph, prepareOp(s.graph, 0), s.tensorOffsets), walk.sink);
  const a = walk.bytes();
  const b = trace.bytes();
  return { fast, traced, walkMatchesTrace: a.equals(b), events: b.length / 8 };
}

/** Compile every setup into one C program (gcc -O2 -Wall -Werror) and return its output lines. */
export function runC(setups: readonly ConformanceSetup[]): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'mcusim-c-'));
  try {
    writeFileSync(join(dir, 'k.c'), cProgramFor(setups));
    execFileSync('gcc', ['-O2', '-std=c99', '-Wall', '-Werror', '-o', join(dir, 'k'), join(dir, 'k.c')], { stdio: 'pipe' });
    return execFileSync(join(dir, 'k'), { encoding: 'utf8', maxBuffer: 1 << 26 }).trim().split('\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
