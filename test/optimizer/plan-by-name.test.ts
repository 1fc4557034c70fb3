// The planner registry and the pure plan renderings (TFLM-style ASCII, SVG).
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/ir/index.ts';
import { describePlanSource, getPlanner, planBuffers, plannerNames, renderPlanAscii, renderPlanSvg } from '../../src/optimizer/index.ts';
import { req } from './helpers.ts';

describe('planner registry', () => {
  it('knows tflm-greedy and linear and rejects other names with E_USAGE', () => {
    expect(plannerNames()).toEqual(expect.arrayContaining(['tflm-greedy', 'linear']));
    expect(() => getPlanner('nope')).toThrow(UsageError);
    try {
      getPlanner('nope');
    } catch (e) {
      expect((e as UsageError).code).toBe('E_USAGE');
    }
  });

  it('returns verified plans', () => {
    const rs = [req(0, 32, 0, 1), req(1, 16, 1, 2), req(2, 48, 2, 3)];
    expect(planBuffers('linear', rs)).toEqual({ planner: 'linear', offsets: [0, 32, 48], peakBytes: 96 });
    expect(planBuffers('tflm-greedy', rs).peakBytes).toBe(64);
  });
});

describe('plan renderings', () => {
  const rs = [req(0, 32, 0, 1), req(1, 16, 1, 2), { ...req(2, 48, 2, 3), name: 'a<b&"c"' }];
  const plan = planBuffers('tflm-greedy', rs);

  it("draws the plan like TFLM's PrintMemoryPlan", () => {
    expect(plan.offsets).toEqual([0, 48, 0]);
    const text = renderPlanAscii(rs, plan, { width: 8 });
    expect(text).toBe(
      [
        '0 (id=0): size=32, offset=0, first_used=0 last_used=1',
        '1 (id=1): size=16, offset=48, first_used=1 last_used=2',
        '2 (id=2): size=48, offset=0, first_used=2 last_used=3',
        ' 0: 0000.... (1k)',
        ' 1: 0000..11 (1k)',
        ' 2: 22222211 (1k)',
        ' 3: 222222.. (1k)',
        '',
      ].join('\n'),
    );
    const clash = renderPlanAscii(rs, { planner: 'bad', offsets: [0, 16, 0], peakBytes: 64 }, { width: 8 });
    // The scale comes from the offsets (48 B over 8 characters), as in TFLM.
    expect(clash.split('\n')[4]).toBe(' 1: 00!!!... (1k)');
  });

  it('draws one escaped, labelled rect per buffer in the SVG', () => {
    const svg = renderPlanSvg(rs, plan);
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg.match(/<rect[^>]*class="buffer"/g)).toHaveLength(rs.length);
    expect(svg).toContain("peak reached at step");
    expect(svg).toContain('a&lt;b&amp;&quot;c&quot;');
    expect(svg).not.toContain('a<b');
    expect(svg.trimEnd().endsWith('</svg>')).toBe(true);
  });

  it('numbers buffers instead of TFLM\'s "*" past 62 and lists every long name by its tail', () => {
    const many = Array.from({ length: 300 }, (_, i) => ({
      id: i, tensor: i, scratchIndex: null, opIndex: null, name: `MobilenetV1/MobilenetV1/Conv2d_${i}_pointwise/Relu6`,
      sizeBytes: 16 * (1 + (i % 7)), firstStep: i, lastStep: i + 1, offlineOffsetBytes: null,
    }));
    const p = planBuffers('tflm-greedy', many);
    const svg = renderPlanSvg(many, p);
    expect(svg).not.toMatch(/>\*</);
    expect(svg.match(/<rect[^>]*class="buffer"/g)).toHaveLength(300);
    expect(svg).toMatch(/<\/tspan> …[^<]*_299_pointwise\/Relu6 \(96 B\)/);
    expect(svg).not.toContain('MobilenetV1/MobilenetV1/Conv2...');
    const height = Number(/height="([\d.]+)"/.exec(svg)?.[1]);
    expect(height).toBeLessThan(2200);
    expect(svg).toMatch(/class="peak-step"/);
  });

  it('never draws a label over another: buffers sharing bytes (a DMO-style overlap) get their labels on free lines', () => {
    // Buffers 0 and 1 share their bytes over steps 0..9; 2 sits on the same bytes later, one step tall.
    const stacked = [
      { ...req(0, 4096, 0, 9), name: 'first/tensor/with/a/long/name' },
      { ...req(1, 4096, 0, 9), name: 'second/tensor/with/a/long/name' },
      { ...req(2, 4096, 10, 10), name: 'third' },
    ];
    const svg = renderPlanSvg(stacked, { planner: 'test', offsets: [0, 0, 0], peakBytes: 4096 });
    const texts = [...svg.matchAll(/<text x="([\d.]+)" y="([\d.]+)" text-anchor="middle">([^<]*)<\/text>/g)]
      .filter((m) => /^\d+( |$)/.test(m[3] as string))
      .map((m) => ({ x: Number(m[1]), y: Number(m[2]), text: m[3] as string }));
    expect(texts.map((t) => t.text.split(' ')[0]).sort()).toEqual(['0', '1', '2']);
    for (let a = 0; a < texts.length; a++) {
      for (let b = a + 1; b < texts.length; b++) {
        const [p, q] = [texts[a]!, texts[b]!];
        const wide = (p.text.length + q.text.length) * 10 * 0.6 / 2;
        expect(Math.abs(p.y - q.y) >= 11 || Math.abs(p.x - q.x) >= wide, `${p.text} / ${q.text}`).toBe(true);
      }
    }
  });

  it('says when an offline plan placed the buffers, and draws two plans on one byte scale', () => {
    const offline = rs.map((r, i) => ({ ...r, offlineOffsetBytes: i === 0 ? 0 : null }));
    expect(describePlanSource(rs, 'tflm-greedy')).toBe('planner tflm-greedy');
    expect(describePlanSource(offline, 'tflm-greedy')).toBe(`offline plan carried in the model for 1 of ${rs.length} buffers, the rest by tflm-greedy`);
    expect(describePlanSource(offline.map((r) => ({ ...r, offlineOffsetBytes: 0 })), 'tflm-greedy')).toContain('OfflineMemoryAllocation');
    const wide = renderPlanSvg(rs, plan, { scaleBytes: plan.peakBytes * 2 });
    expect(wide).toMatch(/class="extent"/);
    expect(renderPlanSvg(rs, plan)).not.toMatch(/class="extent"/);
  });
});
