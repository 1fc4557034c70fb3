// The test of `mcusim report` rendered in a real headless Chromium (Debian's `chromium`, driven by
// puppeteer-core pointed at it; no browser download), one case per report-chromium-*.test.ts file
// so the forks share the three reports (issue 15): for each model and pass list the page loads with no console
// error and no request leaving the file, every section and picture renders with a nonzero size, every
// plan picture's buffers are listed in its table, no label is TFLM's '*' placeholder, and a full-page
// screenshot is taken (kept in a temp folder whose path the test prints). Skips when chromium is absent.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { runMcusim, testTempDir } from '../cli/bin-helpers.ts';
import { ORACLE_MODELS, itWithData } from '../oracle-paths.ts';

/** Browser launch, page load, evaluation and screenshot: each a few seconds idle. */
const PUPPETEER_HANG_GUARD_MS = 300_000;

function findChromium(): string | null {
  try {
    return execFileSync('sh', ['-c', 'command -v chromium || command -v chromium-browser'], { encoding: 'utf8' }).trim() || null;
  } catch {
    return null;
  }
}

const chromium = findChromium();
if (chromium === null) console.warn('report-chromium.test.ts: SKIPPED, no chromium on PATH (apt-get install chromium; .ci/run installs it)');

const tmp = testTempDir('mcusim-report-');
const shots = mkdtempSync(join(tmpdir(), 'mcusim-report-shots-'));

export const MODELS = ORACLE_MODELS;

export interface ReportCase {
  readonly name: string;
  readonly model: string;
  readonly passes: string;
  readonly seeds: string;
  readonly sections: readonly string[];
  /** The parts of the oracle folder the model is read from (none for a zoo model). */
  readonly data?: readonly string[];
}



interface PageFacts {
  readonly sections: string[];
  readonly svgs: { readonly width: number; readonly height: number }[];
  readonly planBuffers: Record<string, number>;
  readonly tableRows: Record<string, number>;
  readonly starLabels: number;
  readonly verdict: string;
}

/** Runs in the page (a string, so this file needs no DOM types): what the assertions read. */
const PAGE_FACTS = `(() => {
  const box = (e) => { const b = e.getBoundingClientRect(); return { width: b.width, height: b.height }; };
  document.querySelectorAll('details').forEach((d) => { d.open = true; });
  const count = (sel) => document.querySelectorAll(sel).length;
  return {
    sections: [...document.querySelectorAll('section')].map((s) => s.id),
    svgs: [...document.querySelectorAll('svg')].map(box),
    planBuffers: { before: count('#before-plan rect.buffer'), after: count('#after-plan rect.buffer') },
    tableRows: { before: count('#buffers-before tr') - 1, after: count('#buffers-after tr') - 1 },
    starLabels: [...document.querySelectorAll('svg text')].filter((t) => (t.textContent || '').trim() === '*').length,
    verdict: (document.querySelector('#verification') || {}).textContent || '',
  };
})()`;

/** Registers the headless-Chromium test of one report case (one case per test file: balance). */
export function describeReportInChromium(c: ReportCase): void {
  describe.skipIf(chromium === null)('mcusim report in headless Chromium', () => {
    itWithData(c.data ?? [], `${c.name} --passes ${c.passes}: loads clean, every section and picture renders, screenshot taken`, async () => {
      const html = join(tmp, `${c.name}.html`);
      const r = await runMcusim(['report', c.model, '--passes', c.passes, '--seeds', c.seeds, '-o', html], 900_000);
      expect(r.stderr).toContain('report: wrote');
      expect(r.code).toBe(0);
      const text = readFileSync(html, 'utf8');
      expect(text).not.toMatch(/<script|<link|@import|url\(\s*['"]?https?:/i);
      const { launch } = await import('puppeteer-core');
      // puppeteer's own 30 s limits (launch, navigation, evaluate) are hang guards a loaded 2-core
      // machine can trip; the test's timeout is the guard here.
      const browser = await launch({ executablePath: chromium as string, headless: true, args: ['--no-sandbox', '--disable-gpu'], timeout: PUPPETEER_HANG_GUARD_MS, protocolTimeout: PUPPETEER_HANG_GUARD_MS });
      try {
        const page = await browser.newPage();
        page.setDefaultTimeout(PUPPETEER_HANG_GUARD_MS);
        const errors: string[] = [];
        const outside: string[] = [];
        page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
        page.on('pageerror', (e) => errors.push(String(e)));
        page.on('request', (q) => { if (!/^(file|data|about):/.test(q.url())) outside.push(q.url()); });
        await page.setViewport({ width: 1200, height: 900 });
        await page.goto(`file://${html}`, { waitUntil: 'load' });
        const facts = (await page.evaluate(PAGE_FACTS)) as PageFacts;
        expect(errors).toEqual([]);
        expect(outside).toEqual([]);
        expect(facts.sections).toEqual(c.sections);
        expect(facts.svgs.length).toBeGreaterThanOrEqual(c.sections.includes('sweep') ? 4 : 3);
        for (const s of facts.svgs) {
          expect(s.width).toBeGreaterThan(100);
          expect(s.height).toBeGreaterThan(50);
        }
        expect(facts.planBuffers.before).toBeGreaterThan(0);
        expect(facts.tableRows).toEqual(facts.planBuffers);
        expect(facts.starLabels).toBe(0);
        expect(facts.verdict).toContain('VERIFIED');
        const png = join(shots, `${c.name}.png`);
        await page.screenshot({ path: png, fullPage: true });
        expect(statSync(png).size).toBeGreaterThan(20_000);
        console.info(`report screenshot: ${png}`);
      } finally {
        await browser.close();
      }
    }, 1_200_000);
  });
}
