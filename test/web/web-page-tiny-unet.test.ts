// The page in headless chromium: a truncated .tflite shows the CLI's error (code and text), and the
// page then loads zoo:tiny-unet, whose figures, dmo and auto files and verdicts equal the CLI's.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { runNode } from '../cli/bin-helpers.ts';
import { cliJson, describeInChromium, expectOptimizeEqualsCli, expectSummaryEqualsCli, idle, selectAndWait, usePage } from './web-helpers.ts';

const MODEL = 'zoo:tiny-unet';
const BIN = join(import.meta.dirname, '../../bin/mcusim.mjs');

describeInChromium('web page: a bad file, then zoo:tiny-unet', () => {
  const session = usePage();

  it('a truncated .tflite shows the code and text `mcusim inspect` prints for it', async () => {
    const s = session();
    const whole = join(s.tmp, 'whole.tflite');
    await cliJson(['zoo', 'export', 'mobilenet-v1-0.25-128', '-o', whole]);
    writeFileSync(join(s.tmp, 'bad.tflite'), readFileSync(whole).subarray(0, 300));
    const cli = await runNode([BIN, 'inspect', 'bad.tflite'], { cwd: s.tmp });
    expect(cli.code).toBe(2);
    const input = await s.page.$('input[type=file][data-action="load-file"]');
    await input?.uploadFile(join(s.tmp, 'bad.tflite'));
    await s.page.waitForSelector('[data-error]');
    await idle(s.page);
    const shown = await s.page.$eval('[data-error]', (e) => ({ code: (e as unknown as { dataset: { error: string } }).dataset.error, text: e.textContent ?? '' }));
    expect(shown.code).toMatch(/^E_/);
    expect(`${shown.text}\n`).toBe(cli.stderr);
    expect(await s.page.$$('[data-metric="planned-bytes"][data-value]')).toEqual([]);
  });

  it('then loads zoo:tiny-unet: summary, dmo and auto equal the CLI', async () => {
    const s = session();
    await selectAndWait(s.page, 'select[data-action="zoo"]', MODEL);
    expect(await s.page.$$('[data-error]')).toEqual([]);
    await expectSummaryEqualsCli(s.page, MODEL, { kernels: 'reference', board: 'nicla-vision' });
    await expectOptimizeEqualsCli(s, MODEL, 'dmo', 2, { board: 'nicla-vision', kernels: 'reference' });
    await expectOptimizeEqualsCli(s, MODEL, 'auto', 1, { board: 'nicla-vision', kernels: 'reference' });
    expect(s.errors.filter((e) => !e.includes('404'))).toEqual([]);
  });
});
