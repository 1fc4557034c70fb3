// The report's kernel libraries section (issue 46 item 5): the reference and CMSIS-NN builds of the
// model side by side. Each column's whole arena is what inspect computes for that library, its DMO
// figures are the dmo pass's for that library, the O_s differences list exactly the ops whose
// algorithmic O_s differ (each figure the one safeOverlap gives), reusing the report's own O_s
// changes nothing (nor does reusing the report's leading dmo pass), the CPU follows the chosen
// registry, and the page shows the section.
import { describe, expect, it } from 'vitest';
import { buildZooModel } from '../../src/ir/index.ts';
import { kernelRegistry } from '../../src/kernels/index.ts';
import { arenaTotals, dmoPass, safeOverlap } from '../../src/optimizer/index.ts';
import { niclaVision } from '../../src/sim/index.ts';
import { collectKernelLibraries, collectReport, overlapsFor, renderReportHtml } from '../../src/report/index.ts';

const CMSIS = kernelRegistry('cmsis-nn', 'cortex-m7');

describe('kernel libraries section', () => {
  const model = buildZooModel('cifar10-cnn');
  const k = collectKernelLibraries(model, niclaVision);

  it('whole arena and scratch per library, as inspect computes them', () => {
    for (const [col, reg] of [[k.reference, undefined], [k.cmsisNn, CMSIS]] as const) {
      const a = arenaTotals(model, 'cortex-m', reg);
      expect(col.arena).toEqual({ plannedBytes: a.plannedBytes, persistentBytes: a.persistentBytes, totalBytes: a.totalBytes });
    }
    expect(k.reference.kernels).toBe('reference');
    expect(k.cmsisNn).toMatchObject({ kernels: 'cmsis-nn', cpu: 'cortex-m7', label: 'cmsis-nn (cortex-m7: DSP)' });
    // CMSIS-NN's conv asks for im2col buffers; the reference conv asks for none.
    expect(k.reference.scratch.buffers).toBe(0);
    expect(k.cmsisNn.scratch.buffers).toBeGreaterThan(0);
    expect(k.cmsisNn.scratch.largestBytes).toBeLessThanOrEqual(k.cmsisNn.scratch.bytes);
  });

  it('DMO per library is the dmo pass planned for that library', () => {
    for (const [col, reg] of [[k.reference, undefined], [k.cmsisNn, CMSIS]] as const) {
      const r = dmoPass.run(model, { flags: {}, arch: 'cortex-m', ...(reg ? { registry: reg } : {}) }).report;
      expect(col.dmo).toEqual({ peakBefore: r.peakBytesBefore, peakAfter: r.peakBytesAfter, totalBefore: r.arena?.before.totalBytes, totalAfter: r.arena?.after.totalBytes, applied: r.applied });
    }
  });

  it('lists exactly the ops whose O_s differ, and reusing the chosen O_s changes nothing', () => {
    const ref = overlapsFor(model);
    const cms = overlapsFor(model, CMSIS);
    const differing = model.graph.ops.map((_, i) => i).filter((i) => ref[i] !== cms[i]);
    expect(k.osDifferences.map((d) => d.op)).toEqual(differing);
    expect(differing.length).toBeGreaterThan(0);
    for (const d of k.osDifferences) {
      expect(d.referenceBytes).toBe(safeOverlap(model.graph, d.op, { method: 'algorithmic' }));
      expect(d.cmsisNnBytes).toBe(safeOverlap(model.graph, d.op, { method: 'algorithmic', registry: CMSIS }));
    }
    expect(collectKernelLibraries(model, niclaVision, CMSIS, cms)).toEqual(k);
    expect(collectKernelLibraries(model, niclaVision, kernelRegistry('reference'), ref)).toEqual(k);
  });

  it('the CMSIS-NN column is for the chosen CPU', () => {
    const m0 = collectKernelLibraries(model, niclaVision, kernelRegistry('cmsis-nn', 'cortex-m0plus'));
    expect(m0.cmsisNn).toMatchObject({ cpu: 'cortex-m0plus', label: 'cmsis-nn (cortex-m0plus: plain C)' });
  });

  it('the page shows both libraries and the O_s differences', () => {
    const data = collectReport(model, { modelLabel: 'zoo:cifar10-cnn', passes: ['dmo'], registry: CMSIS });
    expect(data.kernelLibraries.cmsisNn.cpu).toBe('cortex-m7');
    // The report's leading dmo pass stands in for the section's own run: the same figures.
    expect(data.kernelLibraries).toEqual(collectKernelLibraries(model, niclaVision, CMSIS));
    const html = renderReportHtml(data, null);
    const section = html.split('<section id="libraries">')[1]?.split('</section>')[0] ?? '';
    expect(section).toContain('<th>reference</th>');
    expect(section).toContain('cmsis-nn (cortex-m7: DSP)');
    expect(section).toContain(`${data.kernelLibraries.osDifferences.length} of ${data.kernelLibraries.opsCompared} ops`);
    expect(html).toContain('<a href="#libraries">');
  });
});
