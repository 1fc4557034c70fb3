// Acceptance check for the C lowering: the gcc -O2 -std=c99 -Wall -Werror build of the emitted C
// reproduces EVERY oracle vector of every op (testdata/vectors/*.jsonl), byte for byte.
// All cases go into a few batched programs (one kernel per distinct body, see emitCUnit), built
// and run concurrently; per-op pass counts are printed.
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { ConformanceSetup } from '../../src/sim/index.ts';
import { setupVectorCase } from '../../src/sim/index.ts';
import { VECTORS, cProgram, hasGcc, hex, loadCases } from './replay-helpers.ts';

const run = promisify(execFile);
const OPS = readdirSync(VECTORS).filter((f) => f.endsWith('.jsonl')).map((f) => f.slice(0, -'.jsonl'.length)).sort();
const BATCHES = 4;

interface Item { readonly op: string; readonly id: unknown; readonly setup: ConformanceSetup }

async function buildAndRun(dir: string, name: string, setups: readonly ConformanceSetup[]): Promise<string[]> {
  const src = join(dir, `${name}.c`);
  const exe = join(dir, name);
  writeFileSync(src, cProgram(setups));
  await run('gcc', ['-O2', '-std=c99', '-Wall', '-Werror', '-o', exe, src], { maxBuffer: 1 << 24 });
  const { stdout } = await run(exe, [], { encoding: 'utf8', maxBuffer: 1 << 28 });
  const out = stdout.trim();
  return out === '' ? [] : out.split('\n');
}

describe.skipIf(!hasGcc)('emitted C on all oracle vectors (gcc -O2 -std=c99 -Wall -Werror)', () => {
  it('reproduces every vector of all 21 ops', async () => {
    expect(OPS.length).toBe(21);
    const items: Item[] = OPS.flatMap((op) => loadCases(op).map((c) => ({ op, id: c.id, setup: setupVectorCase(c) })));
    // Round-robin over ops so each batch gets a similar mix (and gcc similar work).
    const batches: Item[][] = Array.from({ length: BATCHES }, () => []);
    items.forEach((it, i) => batches[i % BATCHES]?.push(it));
    const dir = mkdtempSync(join(tmpdir(), 'mcusim-c-all-'));
    const outputs = await Promise.all(batches.map((b, i) => buildAndRun(dir, `batch${i}`, b.map((x) => x.setup)))).finally(() =>
      rmSync(dir, { recursive: true, force: true }));
    const pass = new Map<string, number>(OPS.map((op) => [op, 0]));
    const total = new Map<string, number>(OPS.map((op) => [op, 0]));
    const failures: string[] = [];
    batches.forEach((batch, b) => {
      const lines = outputs[b] ?? [];
      let line = 0;
      for (const it of batch) {
        const expected = it.setup.expected.map(hex);
        const got = lines.slice(line, line + expected.length);
        line += expected.length;
        total.set(it.op, (total.get(it.op) ?? 0) + 1);
        if (expected.every((e, j) => got[j] === e)) pass.set(it.op, (pass.get(it.op) ?? 0) + 1);
        else failures.push(`${it.op} #${String(it.id)}`);
      }
      expect(line, `batch ${b} output lines`).toBe(lines.length);
    });
    console.log(OPS.map((op) => `${op} ${pass.get(op)}/${total.get(op)}`).join(', '));
    expect(failures).toEqual([]);
    expect(items.length).toBe(3150);
  });
});
