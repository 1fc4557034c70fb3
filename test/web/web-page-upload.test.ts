// The page in headless chromium on an uploaded real model (MLPerf Tiny's visual wake words, from
// the oracle folder): summary, every board against `latency --boards all`, dmo and auto files and
// verdicts equal to the CLI's.
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { ORACLE, describeWithData } from '../oracle-paths.ts';
import { boardRows, cliJson, describeInChromium, expectOptimizeEqualsCli, expectSummaryEqualsCli, idle, usePage } from './web-helpers.ts';

const PART = 'models-real/mlperf_vww_96.tflite';

describeWithData(PART, 'web page: an uploaded real model', () => {
  describeInChromium('mlperf_vww_96.tflite uploaded', () => {
    const session = usePage();
    const model = join(ORACLE, PART);

    it('summary, boards, dmo and auto equal the CLI', async () => {
      const s = session();
      const input = await s.page.$('input[type=file][data-action="load-file"]');
      await input?.uploadFile(model);
      await s.page.waitForFunction('document.getElementById("model-label").textContent === "mlperf_vww_96.tflite"');
      await idle(s.page);
      await expectSummaryEqualsCli(s.page, model, { kernels: 'reference', board: 'nicla-vision' });
      const all = await cliJson<{ boards: { board: string; totalMs: number }[] }>(['latency', model, '--boards', 'all', '--kernels', 'reference']);
      const rows = await boardRows(s.page);
      expect(rows.length).toBe(all.boards.length);
      for (const r of rows) expect(Math.abs(r.latencyMs - (all.boards.find((b) => b.board === r.board)?.totalMs ?? NaN)), r.board).toBeLessThanOrEqual(0.05);
      await expectOptimizeEqualsCli(s, model, 'dmo', 2, { board: 'nicla-vision', kernels: 'reference' });
      await expectOptimizeEqualsCli(s, model, 'auto', 2, { board: 'nicla-vision', kernels: 'reference' });
      expect(s.errors).toEqual([]);
    });
  });
});
