// `mcusim report --jobs N`: the verification's runs on N threads (verify's worker threads) and the
// passes' and sweep's candidates on the evaluator pool give the same page, byte for byte, as one
// thread; a bad --jobs is a usage error before any work.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runMcusim, testTempDir } from './bin-helpers.ts';

const tmp = testTempDir('mcusim-report-jobs-');

describe('report --jobs N', () => {
  it('the same page for --jobs 1 and 2 (dmo, 3 seeds verified)', async () => {
    const pages: string[] = [];
    for (const j of ['1', '2']) {
      const out = join(tmp, `kws-${j}.html`);
      const r = await runMcusim(['report', 'zoo:ds-cnn-kws', '--passes', 'dmo', '--seeds', '3', '--jobs', j, '-o', out]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain(`report: verifying the optimized model on 3 seeds (${j} thread${j === '1' ? '' : 's'})`);
      pages.push(readFileSync(out, 'utf8'));
    }
    expect(pages[0]).toContain('VERIFIED');
    expect(pages[1]).toBe(pages[0]);
  }, 600_000);

  it('--jobs must be a positive integer', async () => {
    const r = await runMcusim(['report', 'zoo:ds-cnn-kws', '--jobs', '0', '-o', join(tmp, 'never.html')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^E_USAGE: --jobs/);
    expect(r.stderr).not.toContain('report: running');
  });
});
