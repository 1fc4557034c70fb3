import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { emitCKernel, emitCUnit, instantiateOp, prepareOp } from '../../src/kernels/index.ts';
import { parseVectorLines, setupVectorCase } from '../../src/sim/index.ts';
import { cProgramFor } from './c-harness.ts';

import { ORACLE_VECTORS as VECTORS } from '../oracle-paths.ts';
const hasGcc = ((): boolean => {
  try {
    execFileSync('gcc', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
if (!hasGcc) console.warn('gcc not found: skipping emitted-C tests');

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

describe.skipIf(!hasGcc)('emitted C (gcc -O2 -std=c99 -Wall -Werror)', () => {
  for (const op of ['CONV_2D', 'DEPTHWISE_CONV_2D', 'FULLY_CONNECTED', 'RELU', 'RELU6']) {
    it(`reproduces ${op} oracle vectors`, () => {
      const cases = parseVectorLines(readFileSync(join(VECTORS, `${op}.jsonl`), 'utf8')).filter((_, i) => i % 5 === 0);
      const setups = cases.map(setupVectorCase);
      const dir = mkdtempSync(join(tmpdir(), 'mcusim-c-'));
      try {
        writeFileSync(join(dir, 'k.c'), cProgramFor(setups));
        execFileSync('gcc', ['-O2', '-std=c99', '-Wall', '-Werror', '-o', join(dir, 'k'), join(dir, 'k.c')], { stdio: 'pipe' });
        const lines = execFileSync(join(dir, 'k'), { encoding: 'utf8', maxBuffer: 1 << 26 }).trim().split('\n');
        const expected = setups.flatMap((s) => s.expected.map(hex));
        expect(lines.length).toBe(expected.length);
        lines.forEach((l, i) => expect(l, `${op} case ${cases[i]?.id}`).toBe(expected[i]));
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});

describe('C unit', () => {
  it('dedupes identical kernel bodies and emits only used primitives', () => {
    const cases = parseVectorLines(readFileSync(join(VECTORS, 'CONV_2D.jsonl'), 'utf8')).slice(0, 20);
    const kernels = cases.map((c) => {
      const s = setupVectorCase(c);
      return emitCKernel(instantiateOp(s.graph, prepareOp(s.graph, 0), s.tensorOffsets));
    });
    const unit = emitCUnit(kernels);
    expect(new Set(unit.functionNames).size).toBeLessThanOrEqual(2);
    expect(unit.source).toContain('mcu_mbqm');
    expect(unit.source).not.toContain('mcu_shl');
  });
});
