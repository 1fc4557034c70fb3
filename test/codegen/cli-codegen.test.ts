// Spawns the real bin for `mcusim codegen`: one JSON document with --json, the project files on
// disk (regenerating into a second folder gives identical bytes), exit 2 with a coded message
// for a bad target, a bad planner or a missing -o.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { BinRun } from '../cli/bin-helpers.ts';
import { runMcusim } from '../cli/bin-helpers.ts';
import { ORACLE } from '../oracle-paths.ts';
import { makeTempDir, removeDir } from './codegen-helpers.ts';

const HELLO = `${ORACLE}/models/hello_world_int8.tflite`;
const tmp = makeTempDir('cg-cli');
afterAll(() => removeDir(tmp));

const mcusim = (...args: string[]): BinRun => runMcusim(args);

describe('mcusim codegen', () => {
  it('writes the project, prints one JSON document and regenerates identical bytes', () => {
    const a = mcusim('codegen', HELLO, '-o', join(tmp, 'a'), '--target', 'cortex-m7', '--json');
    expect(a.stderr).toBe('');
    expect(a.code).toBe(0);
    const doc = JSON.parse(a.stdout);
    expect(doc).toMatchObject({ target: 'cortex-m7', planner: 'tflm-greedy', ops: 3, inputBytes: [1], outputBytes: [1] });
    expect(doc.files).toContain('src/model.c');
    expect(readFileSync(join(tmp, 'a', 'Makefile'), 'utf8')).toContain('all: cortex-m7');
    const b = mcusim('codegen', HELLO, '-o', join(tmp, 'b'), '--target', 'cortex-m7');
    expect(b.code).toBe(0);
    for (const f of doc.files as string[]) expect(readFileSync(join(tmp, 'b', f)).equals(readFileSync(join(tmp, 'a', f))), f).toBe(true);
  });

  it('exits 2 with a coded message for bad arguments', () => {
    for (const args of [['--target', 'riscv'], ['--planner', 'nope'], []]) {
      const r = mcusim('codegen', HELLO, ...(args.length ? ['-o', join(tmp, 'bad'), ...args] : []));
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/^E_[A-Z_]+: /);
    }
  });
});
