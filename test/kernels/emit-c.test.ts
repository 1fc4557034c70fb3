import { describe, expect, it } from 'vitest';
import { emitCKernel, emitCUnit } from '../../src/kernels/index.ts';
import { setupVectorCase } from '../../src/sim/index.ts';
import { hasGcc, hex, instanceOf, loadCases, runC } from './replay-helpers.ts';

if (!hasGcc) console.warn('gcc not found: skipping emitted-C tests');

describe.skipIf(!hasGcc)('emitted C (gcc -O2 -std=c99 -Wall -Werror)', () => {
  for (const op of ['CONV_2D', 'DEPTHWISE_CONV_2D', 'FULLY_CONNECTED', 'RELU', 'RELU6']) {
    it(`reproduces ${op} oracle vectors`, () => {
      const cases = loadCases(op).filter((_, i) => i % 5 === 0);
      const setups = cases.map(setupVectorCase);
      const lines = runC(setups);
      const expected = setups.flatMap((s) => s.expected.map(hex));
      expect(lines.length).toBe(expected.length);
      lines.forEach((l, i) => expect(l, `${op} case ${cases[i]?.id}`).toBe(expected[i]));
    });
  }
});

describe('C unit', () => {
  it('dedupes identical kernel bodies and emits only used primitives', () => {
    const cases = loadCases('CONV_2D').slice(0, 20);
    const kernels = cases.map((c) => emitCKernel(instanceOf(setupVectorCase(c))));
    const unit = emitCUnit(kernels);
    expect(new Set(unit.functionNames).size).toBeLessThanOrEqual(2);
    expect(unit.source).toContain('mcu_mbqm');
    expect(unit.source).not.toContain('mcu_shl');
  });
});
