// Spawns the real bin for `mcusim run` and `mcusim conformance`: exit codes (0 ok, 1 a check
// failed, 2 bad input), one JSON document on stdout, and the output files TFLM would write.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BinRun } from './bin-helpers.ts';
import { runMcusim, testTempDir } from './bin-helpers.ts';

import { ORACLE_MODELS, ORACLE_VECTORS, itWithData } from '../oracle-paths.ts';
const HELLO = `${ORACLE_MODELS}/hello_world_int8.tflite`;
const HELLO_DIR = `${ORACLE_MODELS}/hello_world_int8/seed1`;
const PERSON = `${ORACLE_MODELS}/person_detect.tflite`;
const PERSON_DIR = `${ORACLE_MODELS}/person_detect/seed1`;
const tmp = testTempDir('mcusim-run-');

const mcusim = (...args: string[]): Promise<BinRun> => runMcusim(args);

function expectCleanBadInput(r: { code: number | null; stdout: string; stderr: string }): void {
  expect(r.code).toBe(2);
  expect(r.stderr).toMatch(/^E_[A-Z_]+: /);
  expect(r.stderr).not.toMatch(/TypeError|RangeError|SyntaxError|at .*\.(js|ts):\d+/);
}

const same = (a: Uint8Array, b: Uint8Array): boolean => Buffer.from(a).equals(Buffer.from(b));
const firstLines = (op: string, n: number): string[] => readFileSync(`${ORACLE_VECTORS}/${op}.jsonl`, 'utf8').split('\n').filter((l) => l.trim() !== '').slice(0, n);

describe('mcusim run', () => {
  itWithData('models', 'writes output<i>.bin identical to TFLM and prints one JSON document', async () => {
    const out = join(tmp, 'hello');
    const r = (await mcusim('run', HELLO, '--input', `${HELLO_DIR}/input0.bin`, '--out', out, '--json'));
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc).toEqual({ kernels: 'reference', cpu: null, outputs: [expect.objectContaining({ index: 0, shape: [1, 1], dtype: 'int8', bytes: 1 })], ms: expect.any(Number), peakBytes: expect.any(Number) });
    expect(doc.outputs[0].file).toBe(join(out, 'output0.bin'));
    expect(same(readFileSync(join(out, 'output0.bin')), readFileSync(`${HELLO_DIR}/output0.bin`))).toBe(true);
  });

  itWithData('models', 'runs person_detect to the TFLM output with the greedy plan (55296 B)', async () => {
    const out = join(tmp, 'person');
    const r = (await mcusim('run', PERSON, '--input', `${PERSON_DIR}/input0.bin`, '--out', out, '--json'));
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).peakBytes).toBe(55296);
    expect(same(readFileSync(join(out, 'output0.bin')), readFileSync(`${PERSON_DIR}/output0.bin`))).toBe(true);
  });

  itWithData('models', 'uses seeded random inputs without --input: same seed, same bytes; any planner, same bytes', async () => {
    const a = join(tmp, 'seed-a');
    const b = join(tmp, 'seed-b');
    expect((await mcusim('run', HELLO, '--seed', '7', '--out', a)).code).toBe(0);
    const r = (await mcusim('run', HELLO, '--seed', '7', '--planner', 'linear', '--out', b));
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('output0.bin');
    expect(same(readFileSync(join(a, 'output0.bin')), readFileSync(join(b, 'output0.bin')))).toBe(true);
  });

  itWithData('models', 'exits 2 for a wrong-sized input, a wrong input count, a missing file, a bad seed and an unknown planner', async () => {
    const bad = join(tmp, 'bad.bin');
    writeFileSync(bad, new Uint8Array(3));
    const r = (await mcusim('run', HELLO, '--input', bad, '--json'));
    expectCleanBadInput(r);
    expect(r.stdout).toBe('');
    expectCleanBadInput((await mcusim('run', HELLO, '--input', bad, '--input', bad)));
    expectCleanBadInput((await mcusim('run', HELLO, '--input', join(tmp, 'missing.bin'))));
    expectCleanBadInput((await mcusim('run', join(tmp, 'missing.tflite'))));
    expectCleanBadInput((await mcusim('run', HELLO, '--seed', 'x')));
    expectCleanBadInput((await mcusim('run', HELLO, '--planner', 'nope')));
  });
});

describe('mcusim conformance', () => {
  it('passes oracle vectors: exit 0 and {total, passed, failed}', async () => {
    const file = join(tmp, 'ok.jsonl');
    writeFileSync(file, `${[...firstLines('CONV_2D', 5), ...firstLines('FULLY_CONNECTED', 5)].join('\n')}\n`);
    const r = (await mcusim('conformance', file, '--json'));
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ total: 10, passed: 10, failed: [] });
    const text = (await mcusim('conformance', file));
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/CONV_2D\s+5\s+5\s+0\s+pass/);
  });

  it('exits 1 and names the case when an expected output is altered', async () => {
    const [line] = firstLines('DEPTHWISE_CONV_2D', 1);
    const c = JSON.parse(line ?? '{}');
    const data: number[] = c.outputs[0].data;
    data[0] = data[0] === 127 ? 126 : (data[0] as number) + 1;
    const file = join(tmp, 'bad.jsonl');
    writeFileSync(file, `${line}\n${JSON.stringify(c)}\n`);
    const r = (await mcusim('conformance', file, '--json'));
    expect(r.code).toBe(1);
    const doc = JSON.parse(r.stdout);
    expect(doc.total).toBe(2);
    expect(doc.passed).toBe(1);
    expect(doc.failed).toEqual([{ op: 'DEPTHWISE_CONV_2D', id: c.id, reason: expect.stringContaining('byte 0') }]);
    expect((await mcusim('conformance', file)).code).toBe(1);
  });

  it('exits 2 for a missing file, a non-JSON line and a line that is not a vector case', async () => {
    expectCleanBadInput((await mcusim('conformance', join(tmp, 'nope.jsonl'), '--json')));
    const garbage = join(tmp, 'garbage.jsonl');
    writeFileSync(garbage, 'not json at all\n');
    expectCleanBadInput((await mcusim('conformance', garbage, '--json')));
    const wrong = join(tmp, 'wrong.jsonl');
    writeFileSync(wrong, '{"op": "CONV_2D", "inputs": 3}\n');
    expectCleanBadInput((await mcusim('conformance', wrong)));
    const empty = join(tmp, 'empty.jsonl');
    writeFileSync(empty, '\n');
    expectCleanBadInput((await mcusim('conformance', empty)));
  });
});
