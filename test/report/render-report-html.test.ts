// The report page without a browser: collectReport + renderReportHtml on zoo:cifar10-cnn with the
// replacement pass. Self-contained (no script, link or remote URL), every section present, every
// plan buffer listed in its table, no '*' label, the verification verdict as given, the whole arena
// and board fit filled in by collectReport, and arenaTotalsRows saying "not computed" for parts not given.
import { describe, expect, it } from 'vitest';
import { buildZooModel } from '../../src/ir/index.ts';
import type { ReportVerification } from '../../src/report/index.ts';
import { arenaTotalsRows, collectReport, renderReportHtml } from '../../src/report/index.ts';

const passed: ReportVerification = { seeds: 2, passed: true, identical: true, traceClean: true, planError: null, mismatches: 0, violations: 0, details: [] };

describe('renderReportHtml', () => {
  const data = collectReport(buildZooModel('cifar10-cnn'), { modelLabel: 'zoo:cifar10-cnn', passes: ['replacement'] });
  const html = renderReportHtml(data, passed);

  it('is one self-contained page with every section and picture', () => {
    expect(html.startsWith('<!DOCTYPE html>')).toBe(true);
    expect(html).not.toMatch(/<script|<link|@import|(src|href)="https?:/i);
    for (const id of ['summary', 'plans', 'overlap', 'passes', 'latency', 'verification']) expect(html).toContain(`<section id="${id}">`);
    expect(html).not.toContain('<section id="sweep">');
    expect(html.match(/<svg /g)?.length).toBeGreaterThanOrEqual(3);
    expect(html).toContain('VERIFIED');
    expect(html).not.toMatch(/>\*</);
  });

  it('draws one per-layer latency bar per costed op, the heaviest full width (issue 44)', () => {
    const costed = data.latency.before.ops.filter((o) => o.cycles > 0);
    const section = html.split('<section id="latency">')[1]?.split('</section>')[0] ?? '';
    const bars = section.match(/<div style="background:#4a7bd0;height:0.9em;width:([\d.]+)%"/g) ?? [];
    expect(bars).toHaveLength(costed.length);
    expect(bars.some((b) => b.includes('width:100.0%'))).toBe(true);
    expect(section).toContain(costed[0]?.path ?? 'none');
  });

  it('lists every buffer of both plans, drawn on one byte scale', () => {
    for (const when of ['before', 'after'] as const) {
      const n = data.layout[when].requests.length;
      const table = html.split(`id="buffers-${when}"`)[1]?.split('</table>')[0] ?? '';
      expect(table.match(/<tr>/g)).toHaveLength(n + 1);
      const pic = html.split(`id="${when}-plan"`)[1]?.split('</svg>')[0] ?? '';
      expect(pic.match(/class="buffer"/g)).toHaveLength(n);
    }
    expect(data.layout.after.plan.peakBytes).toBeLessThan(data.layout.before.plan.peakBytes);
    // The after picture spans the before peak: its own peak is a dashed extent line.
    expect(html.split('id="after-plan"')[1]?.split('</svg>')[0]).toContain('class="extent"');
  });

  it('fills the whole arena (planned + persistent = total) and the board fit for both models', () => {
    for (const when of ['before', 'after'] as const) {
      const a = data.arena[when];
      expect(a.persistentBytes).toBeGreaterThan(0);
      expect(a.totalBytes).toBe(a.plannedBytes + (a.persistentBytes ?? 0));
      expect(data.fit?.[when]).toEqual(expect.objectContaining({ board: 'nicla-vision', fits: true }));
    }
    const summary = html.split('<section id="summary">')[1]?.split('</section>')[0] ?? '';
    expect(summary).not.toContain('not computed');
    expect(summary).toContain(`${data.arena.before.totalBytes?.toLocaleString('en-US')} B`);
    expect(summary).toContain('fits nicla-vision');
  });

  it('lists the op kinds after the passes when they changed, and says when nothing spills', () => {
    expect(html).toContain('no tensor spilled to storage');
    expect(html).not.toContain('; after replacement: ');
    const after = { ...data.summary.after, opKinds: [...data.summary.after.opKinds, { kind: 'custom:Merge', count: 2 }] };
    const changed = renderReportHtml({ ...data, summary: { ...data.summary, after } }, passed);
    expect(changed).toMatch(/; after replacement: [^<]*custom:Merge × 2/);
  });

  it('says FAILED with the details when verification failed', () => {
    const failed = renderReportHtml(data, { ...passed, passed: false, identical: false, mismatches: 1, details: ['seed 1, output 0: 3 bytes differ'] });
    expect(failed).toContain('FAILED');
    expect(failed).toContain('seed 1, output 0: 3 bytes differ');
  });
});

describe('arenaTotalsRows', () => {
  it('shows planned bytes now and fills persistent, total and fit when given', () => {
    const bare = arenaTotalsRows({ plannedBytes: 1000 }, { plannedBytes: 600 });
    expect(bare[0]).toEqual({ label: 'planned arena (activations, scratch)', before: '1,000 B', after: '600 B' });
    expect(bare.slice(1).every((r) => r.before.startsWith('not computed'))).toBe(true);
    const on = { runtime: 'tflm', kernels: 'cmsis-nn', cpu: 'cortex-m7' };
    const full = arenaTotalsRows(
      { ...on, plannedBytes: 1000, persistentBytes: 200, totalBytes: 1200, declareBytes: 1204, outsideArenaBytes: 0 },
      { ...on, plannedBytes: 600, persistentBytes: 200, totalBytes: 800, declareBytes: 800, outsideArenaBytes: 0 },
      { after: { board: 'nicla-vision', fits: true, ramBytes: 524288, marginBytes: 523488 } },
    );
    expect(full.map((r) => r.after)).toEqual(['600 B', '200 B', '800 B', '800 B', '0 B', 'fits nicla-vision (524,288 B RAM, margin 523,488 B)']);
    expect(full[2]?.label).toBe('total arena (arena_used_bytes, on TFLM with cmsis-nn kernels for cortex-m7)');
    expect(full[3]).toMatchObject({ label: 'uint8_t tensor_arena[N] to declare', before: '1,204 B' });
    expect(full[5]?.before).toMatch(/^not computed/);
  });
});
