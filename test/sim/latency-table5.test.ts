// TinySeg Table 5 reproduction (issue 5 acceptance): zoo:tiny-unet optimized by the `tinyseg` pass,
// latency per storage option against the paper's cells, each within 15%; the original within 5%.
// Skipped, with the reason in its title, until the optimizer registers the `tinyseg` pass.
import { describe, expect, it } from 'vitest';
import { buildZooModel } from '../../src/ir/index.ts';
import { PASSES, captureSpillPayloads, runPipeline } from '../../src/optimizer/index.ts';
import type { LatencyOptions } from '../../src/sim/index.ts';
import { estimateLatency, niclaVision, storageTransfers } from '../../src/sim/index.ts';

/**
 * `gap` marks a cell known to be outside 15% with datasheet-level parameters (issue 5, open);
 * its test is `it.fails` and flips to failing, to be made a plain cell, once it is in.
 */
const CELLS: readonly { readonly name: string; readonly paperMs: number; readonly opts: Omit<LatencyOptions, 'target'>; readonly gap?: string }[] = [
  { name: 'internal', paperMs: 2430, opts: { storage: 'internal' } },
  { name: 'external', paperMs: 2511, opts: { storage: 'external' } },
  { name: 'remote', paperMs: 1587, opts: { storage: 'remote' } },
  { name: 'internal+compress+async', paperMs: 1270, opts: { storage: 'internal', compress: true, asyncErase: true } },
  { name: 'external+compress+async', paperMs: 1718, opts: { storage: 'external', compress: true, asyncErase: true } },
  { name: 'remote+compress', paperMs: 1470, opts: { storage: 'remote', compress: true } },
];

const hasPass = Object.prototype.hasOwnProperty.call(PASSES, 'tinyseg');
const title = hasPass ? 'TinySeg Table 5 on zoo:tiny-unet' : 'TinySeg Table 5 on zoo:tiny-unet (SKIPPED: no `tinyseg` pass registered in src/optimizer/pipeline.ts yet)';

/** The Table 5 rows for the tinyseg-optimized Tiny U-Net (compressed bytes from the default payload inputs, as the CLI). */
function table5Rows(): { cell: string; paperMs: number; gotMs: number; errorPct: number }[] {
  const model = buildZooModel('tiny-unet');
  const optimized = runPipeline(model, ['tinyseg'], { flags: {} }).model;
  const spilled = new Set(storageTransfers(optimized.graph).flat().map((t) => t.tensor));
  expect(spilled.size).toBeGreaterThan(0);
  const payloadOf = captureSpillPayloads(optimized);
  expect(payloadOf).not.toBeNull();
  return CELLS.map((c) => {
    const got = estimateLatency(optimized.graph, { target: niclaVision, ...(payloadOf ? { payloadOf } : {}), ...c.opts }).totalMs;
    return { cell: c.name, paperMs: c.paperMs, gotMs: Math.round(got), errorPct: Math.round((got / c.paperMs - 1) * 1000) / 10 };
  });
}

describe.skipIf(!hasPass)(title, () => {
  const rows = hasPass ? table5Rows() : [];
  const ms = (cell: string): number => rows.find((r) => r.cell === cell)?.gotMs ?? Number.NaN;

  it('calibrates the original to 1190 ms (within 5%) and orders the cells as the paper does', () => {
    const model = buildZooModel('tiny-unet');
    expect(Math.abs(estimateLatency(model.graph, { target: niclaVision }).totalMs / 1190 - 1)).toBeLessThanOrEqual(0.05);
    console.info(rows);
    for (const r of rows) expect(r.gotMs, r.cell).toBeGreaterThan(1190);
    expect(ms('internal+compress+async')).toBeLessThan(ms('internal'));
    expect(ms('external+compress+async')).toBeLessThan(ms('external'));
    // The only slot is read by FetchingConv2D, which decodes it row by row: fewer bytes cross USB.
    expect(ms('remote+compress')).toBeLessThan(ms('remote'));
  });

  for (const c of CELLS) {
    const check = (): void => {
      const r = rows.find((x) => x.cell === c.name);
      expect(r, c.name).toBeDefined();
      expect(Math.abs(r?.errorPct ?? Number.NaN), `${c.name}: ${r?.gotMs} ms vs ${c.paperMs} ms`).toBeLessThanOrEqual(15);
    };
    if (c.gap === undefined) it(`${c.name} within 15% of ${c.paperMs} ms`, check);
    else it.fails(`KNOWN GAP ${c.name} (${c.gap})`, check);
  }
});
