import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Graph } from '../../src/ir/index.ts';
import { McusimError } from '../../src/ir/index.ts';
import type { VectorCase } from '../../src/sim/index.ts';
import { Runtime, setupVectorCase } from '../../src/sim/index.ts';
import { ORACLE_VECTORS } from '../oracle-paths.ts';

const firstCase = (op: string): VectorCase => JSON.parse(readFileSync(`${ORACLE_VECTORS}/${op}.jsonl`, 'utf8').split('\n')[0] ?? '') as VectorCase;
const codeOf = (f: () => unknown): string | undefined => {
  try {
    f();
  } catch (e) {
    return e instanceof McusimError ? e.code : 'raw';
  }
  return undefined;
};

describe('Runtime', () => {
  const s = setupVectorCase(firstCase('CONV_2D'));

  it('runs at plan offsets and reads tensors back', () => {
    const rt = new Runtime({ graph: s.graph, tensorOffsets: s.tensorOffsets, arenaBytes: s.arenaBytes });
    const out = rt.run(s.inputs);
    expect(Buffer.from(out[0] as Uint8Array).equals(Buffer.from(s.expected[0] as Uint8Array))).toBe(true);
  });

  it('reports bad inputs and broken constraints with codes', () => {
    const rt = new Runtime({ graph: s.graph, tensorOffsets: s.tensorOffsets, arenaBytes: s.arenaBytes });
    expect(codeOf(() => rt.run([new Uint8Array(1)]))).toBe('E_USAGE');
    expect(codeOf(() => rt.run([]))).toBe('E_USAGE');
    const op = s.graph.ops[0];
    const bad = { ...s.graph, ops: [{ ...op, options: { ...(op as { options: object }).options, strideH: 0, activation: "tanh" } }] } as unknown as Graph;
    expect(codeOf(() => new Runtime({ graph: bad, tensorOffsets: s.tensorOffsets, arenaBytes: s.arenaBytes }))).toBe('E_KERNEL_CONSTRAINT');
    const custom = { ...s.graph, ops: [{ kind: 'custom', customCode: 'NoSuchOp', customOptions: new Uint8Array(0), inputs: op!.inputs, outputs: op!.outputs }] } as Graph;
    expect(codeOf(() => new Runtime({ graph: custom, tensorOffsets: s.tensorOffsets, arenaBytes: s.arenaBytes }))).toBe('E_MODEL_UNSUPPORTED_OP');
  });
});
