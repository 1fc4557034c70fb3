// The C port of the CMSIS-NN specs (codegen --kernels cmsis-nn): each spec's emitted C, compiled
// with gcc -Wall -Werror, gives the simulator's bytes, on every code path (skipped without gcc).
import { describe, expect, it } from 'vitest';
import { emitCKernel, emitCUnit, instantiateOp, kernelRegistry, prepareOp } from '../../../../src/kernels/index.ts';
import type { CKernel, KernelRegistry } from '../../../../src/kernels/index.ts';
import { buildSingleOpGraph, layoutOp, runLayout } from '../../../../src/optimizer/index.ts';
import type { SingleOpSpec } from '../../../../src/optimizer/index.ts';
import { randomInputs } from '../../../../src/sim/index.ts';
import { cKernelCall, compileAndRunC, hasGcc, hex } from '../../replay-helpers.ts';

const list = (xs: ArrayLike<number>): string => (xs.length ? Array.from(xs).join(', ') : '0');

const SPECS: readonly SingleOpSpec[] = [
  { kind: 'averagePool2d', input: [1, 5, 6, 19], filter: [3, 2], stride: [2, 1], padding: 'same' },
  { kind: 'maxPool2d', input: [2, 5, 5, 17], filter: [2, 3], stride: [1, 2], padding: 'valid' },
  { kind: 'fullyConnected', input: [3, 11], outChannels: 7 },
  { kind: 'add', input: [1, 2, 3, 7] },
  { kind: 'mul', input: [1, 3, 3, 5] },
  { kind: 'unidirectionalSequenceLstm', input: [2, 3, 4], outChannels: 3 },
];
const PATHS: readonly KernelRegistry[] = [kernelRegistry('cmsis-nn', 'cortex-m3'), kernelRegistry('cmsis-nn', 'cortex-m7'), kernelRegistry('cmsis-nn', 'cortex-m55')];

/** One C program running every (spec, path) kernel in its own arena and printing its output. */
function program(cases: readonly { spec: SingleOpSpec; registry: KernelRegistry }[]): { source: string; expected: string[] } {
  const expected: string[] = [];
  const kernels: CKernel[] = [];
  let data = '';
  let body = '';
  cases.forEach(({ spec, registry }, i) => {
    const l = layoutOp(buildSingleOpGraph(spec), null, { registry });
    const inputs = randomInputs(l.graph, i + 1);
    expected.push(...runLayout(l, i + 1).map(hex));
    const k = emitCKernel(instantiateOp(l.graph, prepareOp(l.graph, 0, registry), l.tensorOffsets, l.scratchOffsets[0] ?? []));
    kernels.push(k);
    const call = cKernelCall(i, k, l.arenaBytes);
    data += call.data;
    const args = call.args;
    l.graph.inputs.forEach((t, j) => {
      data += `static const uint8_t in${i}_${j}[] = { ${list(inputs[j] as Uint8Array)} };\n`;
      body += `  memcpy((uint8_t*)arena${i} + ${l.tensorOffsets[t]}, in${i}_${j}, ${(inputs[j] as Uint8Array).length});\n`;
    });
    body += `  @CALL${i}@(${args.join(', ')});\n`;
    l.graph.outputs.forEach((t) => {
      const out = l.graph.tensors[t];
      body += `  dump((uint8_t*)arena${i} + ${l.tensorOffsets[t]}, ${out ? out.shape.reduce((a, b) => a * b, 1) : 0});\n`;
    });
  });
  const unit = emitCUnit(kernels);
  unit.functionNames.forEach((name, i) => (body = body.replace(`@CALL${i}@`, name)));
  const source = `${unit.source}
#include <stdio.h>
#include <string.h>
static void dump(const uint8_t* p, int n) { for (int i = 0; i < n; ++i) printf("%02x", p[i]); printf("\\n"); }
${data}
int main(void) {
${body}  return 0;
}
`;
  return { source, expected };
}

describe.skipIf(!hasGcc)('CMSIS-NN specs in C', () => {
  it('emitted C gives the simulator\'s bytes for every spec on plain C, DSP and MVE paths', () => {
    const { source, expected } = program(SPECS.flatMap((spec) => PATHS.map((registry) => ({ spec, registry }))));
    expect(compileAndRunC(source).trim().split('\n')).toEqual(expected);
  });
});
