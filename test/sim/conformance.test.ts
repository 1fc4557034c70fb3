import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TraceSink } from '../../src/kernels/index.ts';
import { instantiateOp, prepareOp, walkAddresses } from '../../src/kernels/index.ts';
import type { VectorCase } from '../../src/sim/index.ts';
import { parseVectorLines, runVectorCase, setupVectorCase } from '../../src/sim/index.ts';

import { ORACLE_VECTORS as VECTORS } from '../oracle-paths.ts';
const OPS = ['CONV_2D', 'DEPTHWISE_CONV_2D', 'FULLY_CONNECTED', 'RELU', 'RELU6'];

function collect(): { sink: TraceSink; bytes: () => Buffer } {
  const chunks: Buffer[] = [];
  return {
    sink: (_op, log, count) => void chunks.push(Buffer.from(log.slice(0, 2 * count).buffer)),
    bytes: () => Buffer.concat(chunks),
  };
}

describe.each(OPS)('%s oracle vectors', (op) => {
  const cases: VectorCase[] = parseVectorLines(readFileSync(join(VECTORS, `${op}.jsonl`), 'utf8'));

  it('fast executor matches TFLM on every case', () => {
    const failed = cases.map((c) => runVectorCase(c)).filter((r) => !r.pass);
    expect(failed).toEqual([]);
    expect(cases.length).toBe(150);
  });

  it('traced executor gives the same bytes and the address walk the same events', () => {
    for (const c of cases) {
      const traced = collect();
      const r = runVectorCase(c, { trace: traced.sink });
      expect(r.pass, `${op} #${c.id}`).toBe(true);
      const s = setupVectorCase(c);
      const walk = collect();
      walkAddresses(instantiateOp(s.graph, prepareOp(s.graph, 0), s.tensorOffsets), walk.sink);
      const a = walk.bytes();
      const b = traced.bytes();
      expect(a.length, `${op} #${c.id}`).toBe(b.length);
      expect(a.equals(b), `${op} #${c.id}`).toBe(true);
    }
  });
});

describe('unsupported ops', () => {
  it('fail with a reason instead of passing', () => {
    const c = parseVectorLines(readFileSync(join(VECTORS, 'SOFTMAX.jsonl'), 'utf8').split('\n')[0] ?? '')[0] as VectorCase;
    const r = runVectorCase({ ...c, op: 'NOT_AN_OP' });
    expect(r.pass).toBe(false);
    expect(r.reason).toMatch(/E_USAGE/);
  });
});
