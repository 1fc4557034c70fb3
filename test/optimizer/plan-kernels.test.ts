// The library a plan is made for travels with the file: runPipeline records a non-reference
// registry in mcusim_plan_kernels when it writes an offline plan, a reference run writes nothing
// (files stay byte-identical to before), and verify says when it checks a plan made for another
// library (plannedFor / plannedForMismatch).
import { describe, expect, it } from 'vitest';
import { exportTflite, readPlanKernels, recordsPlanKernels, withPlanKernels } from '../../src/ir/index.ts';
import { kernelRegistry } from '../../src/kernels/index.ts';
import { runPipeline } from '../../src/optimizer/index.ts';
import { verify, zooModel } from '../../src/index.ts';

describe('plan kernels metadata', () => {
  const model = zooModel('ds-cnn-kws');

  it('reads reference without the entry and round-trips a library and CPU', () => {
    expect(readPlanKernels(model)).toEqual({ library: 'reference', cpu: null });
    expect(recordsPlanKernels(model)).toBe(false);
    const m = withPlanKernels(model, { library: 'cmsis-nn', cpu: 'cortex-m55' });
    expect(readPlanKernels(m)).toEqual({ library: 'cmsis-nn', cpu: 'cortex-m55' });
    const r = withPlanKernels(m, { library: 'reference', cpu: null });
    expect([recordsPlanKernels(r), readPlanKernels(r)]).toEqual([true, { library: 'reference', cpu: null }]);
    expect(r.metadata.length).toBe(model.metadata.length + 1);
  });

  it('dmo records the library it planned for; for reference the file is the same bytes as without a registry', () => {
    const plain = runPipeline(model, ['dmo'], { flags: {} });
    const ref = runPipeline(model, ['dmo'], { flags: {}, registry: kernelRegistry('reference') });
    expect(plain.reports[0]?.applied).toBe(true);
    expect(exportTflite(ref.model)).toEqual(exportTflite(plain.model));
    expect([recordsPlanKernels(plain.model), readPlanKernels(plain.model)]).toEqual([true, { library: 'reference', cpu: null }]);
    // CMSIS-NN's orders leave DMO nothing on ds-cnn-kws; mobilenet-v1-0.25-128 keeps a saving.
    const mb = zooModel('mobilenet-v1-0.25-128');
    const cmsis = runPipeline(mb, ['dmo'], { flags: {}, registry: kernelRegistry('cmsis-nn', 'cortex-m4') });
    expect(cmsis.reports[0]?.applied).toBe(true);
    expect(readPlanKernels(cmsis.model)).toEqual({ library: 'cmsis-nn', cpu: 'cortex-m4' });

    const asPlanned = verify(mb, cmsis.model, { seeds: 1, kernels: 'cmsis-nn', cpu: 'cortex-m7' });
    expect([asPlanned.kernels, asPlanned.cpu, asPlanned.plannedForMismatch, asPlanned.passed]).toEqual(['cmsis-nn', 'cortex-m7', false, true]);
    const other = verify(mb, cmsis.model, { seeds: 1 });
    expect([other.kernels, other.plannedFor.kernels, other.plannedForMismatch]).toEqual(['reference', 'cmsis-nn', true]);
  });
});
