import { describe, expect, it } from 'vitest';
import { emitCKernel, emitCUnit } from '../../src/kernels/index.ts';
import { setupVectorCase } from '../../src/sim/index.ts';
import { instanceOf, loadCases } from './replay-helpers.ts';

// Every oracle vector of every op through gcc: emit-c-all.test.ts.

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
