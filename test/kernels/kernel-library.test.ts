// kernelRegistry: the library / CPU choice (errors as codes), CMSIS-NN's features per CPU, and the
// fallback rule (ops without a TFLM cmsis_nn kernel keep the reference spec object), svdf's MVE memory.
import { describe, expect, it } from 'vitest';
import { McusimError } from '../../src/ir/index.ts';
import { CORTEX_M_CPUS, KERNELS, REFERENCE_KERNELS, cmsisNnFeatures, kernelPath, kernelRegistry } from '../../src/kernels/index.ts';
import { buildSingleOpGraph } from '../../src/optimizer/index.ts';
import { getTflmArch, modelPersistent } from '../../src/sim/index.ts';

const codeOf = (f: () => unknown): string | undefined => {
  try {
    f();
  } catch (e) {
    return e instanceof McusimError ? e.code : 'not a McusimError';
  }
  return undefined;
};

describe('kernelRegistry', () => {
  it('reference by default, exactly the reference table', () => {
    expect(kernelRegistry()).toBe(REFERENCE_KERNELS);
    expect(kernelRegistry('reference').specs).toBe(KERNELS);
    expect(kernelPath(REFERENCE_KERNELS)).toBeNull();
  });

  it('refuses unknown libraries and CPUs, and a CPU with the reference kernels', () => {
    expect(codeOf(() => kernelRegistry('arm'))).toBe('E_USAGE');
    expect(codeOf(() => kernelRegistry('cmsis-nn', 'cortex-m99'))).toBe('E_USAGE');
    expect(codeOf(() => kernelRegistry('reference', 'cortex-m7'))).toBe('E_USAGE');
  });

  it('CMSIS-NN path per CPU: DSP on M4/M7/M33, MVE on M55/M85, plain C on M0+/M3; default M7', () => {
    const path = (cpu: string): string | null => kernelPath(kernelRegistry('cmsis-nn', cpu));
    expect(Object.keys(CORTEX_M_CPUS).map((c) => [c, path(c)])).toEqual([
      ['cortex-m0plus', 'c'], ['cortex-m3', 'c'], ['cortex-m4', 'dsp'], ['cortex-m7', 'dsp'], ['cortex-m33', 'dsp'], ['cortex-m55', 'mve'], ['cortex-m85', 'mve'],
    ]);
    expect(kernelRegistry('cmsis-nn').cpu).toBe('cortex-m7');
    expect(cmsisNnFeatures('cortex-m55')).toEqual({ dsp: true, mve: true });
  });

  it('ops without a cmsis_nn kernel keep the reference spec; fully connected and pooling get their own', () => {
    const cmsis = kernelRegistry('cmsis-nn', 'cortex-m7').specs;
    for (const kind of ['reshape', 'quantize', 'logistic', 'mean', 'concatenation'] as const) expect(cmsis[kind]).toBe(KERNELS[kind]);
    for (const kind of ['fullyConnected', 'averagePool2d', 'maxPool2d'] as const) expect(cmsis[kind]).not.toBe(KERNELS[kind]);
    expect(Object.keys(cmsis).sort()).toEqual(Object.keys(KERNELS).sort());
  });
});

describe('cmsis-nn svdf memory', () => {
  it('MVE keeps num_filters x int32 kernel sums persistently; DSP and plain C do not', () => {
    const g = buildSingleOpGraph({ kind: 'svdf', input: [2, 6], outChannels: 3, filter: [4, 2] });
    const filters = g.tensors[g.ops[0]?.inputs[1] as number]?.shape[0] as number;
    const blocks = (cpu: string): number[] => modelPersistent(g, getTflmArch('cortex-m'), null, kernelRegistry('cmsis-nn', cpu)).allocations.filter((a) => a.what.includes('op 0')).map((a) => a.sizeBytes);
    const dsp = blocks('cortex-m7');
    expect(blocks('cortex-m3')).toEqual(dsp);
    expect(blocks('cortex-m55')).toEqual([...dsp, filters * 4]);
  });
});
