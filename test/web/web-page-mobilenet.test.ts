// The page on zoo:mobilenet-v1-0.25-128 in headless chromium, every figure against the CLI's --json:
// the summary for the default build and for CMSIS-NN on a Cortex-M55, every board's row against
// `mcusim latency --board NAME --json`, one op's O_s against `mcusim overlap`, dmo and auto (the
// downloaded file's sha256 = `mcusim optimize`'s, verified on the page), and the downloads (zips
// that open, holding the files `mcusim codegen` writes; the HTML report).
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { runMcusim } from '../cli/bin-helpers.ts';
import { boardRows, cliJson, describeInChromium, expectOptimizeEqualsCli, expectSummaryEqualsCli, idle, linkBytes, metric, selectAndWait, usePage, verifyOnPage } from './web-helpers.ts';

const MODEL = 'zoo:mobilenet-v1-0.25-128';

/** Every file below `dir`, relative, sorted. */
function filesBelow(dir: string): string[] {
  return (readdirSync(dir, { recursive: true, withFileTypes: true }) as { isFile(): boolean; name: string; parentPath: string }[])
    .filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name).slice(dir.length + 1)).sort();
}

describeInChromium('web page: zoo:mobilenet-v1-0.25-128', () => {
  const session = usePage();

  it('summary and every board row equal the CLI (reference kernels, nicla-vision)', async () => {
    const { page, errors } = session();
    await selectAndWait(page, 'select[data-action="zoo"]', MODEL);
    await expectSummaryEqualsCli(page, MODEL, { kernels: 'reference', board: 'nicla-vision' });
    const rows = await boardRows(page);
    const boards = await cliJson<{ boards: { name: string }[] }>(['boards']);
    expect(rows.map((r) => r.board).sort()).toEqual(boards.boards.map((b) => b.name).sort());
    expect(rows.length).toBeGreaterThanOrEqual(13);
    // Two CLI runs at a time (CI has two cores).
    for (let i = 0; i < rows.length; i++) {
      const r = rows[i] as (typeof rows)[number];
      const [lat, ins] = await Promise.all([
        cliJson<{ totalMs: number }>(['latency', MODEL, '--board', r.board, '--kernels', 'reference']),
        cliJson<{ fit: { fits: boolean } }>(['inspect', MODEL, '--board', r.board]),
      ]);
      expect(Math.abs(r.latencyMs - lat.totalMs), r.board).toBeLessThanOrEqual(0.05);
      expect(r.fits, r.board).toBe(String(ins.fit.fits));
    }
    expect(errors).toEqual([]);
  });

  it('O_s of op 1 (depthwise 3x3) equals `mcusim overlap` for the same op', async () => {
    const { page } = session();
    await page.click('button[data-op="1"]');
    await idle(page);
    await page.waitForSelector('#overlap-detail tr[data-method]');
    const os = await page.$$eval('#overlap-detail tr[data-method]', (rs) => rs.map((r) => [(r as unknown as { dataset: { method: string } }).dataset.method, (r.children[1]?.textContent ?? '').replace(/ B.*$/, '').replaceAll(',', '')]));
    const cli = await cliJson<{ os: Record<string, number> }>(['overlap', '--op', 'depthwiseConv2d', '--input', '1x64x64x8', '--filter', '3x3', '--stride', '1', '--padding', 'same']);
    expect(Object.fromEntries(os.map(([m, v]) => [m, Number(v)]))).toEqual(cli.os);
    expect(await page.$eval('#overlap-detail svg', (s) => s.getBoundingClientRect().width)).toBeGreaterThan(100);
  });

  it('dmo: figures, file and verdict equal the CLI; the downloads open and hold what `mcusim codegen` writes', async () => {
    const s = session();
    const file = await expectOptimizeEqualsCli(s, MODEL, 'dmo', 4, { board: 'nicla-vision', kernels: 'reference' });
    for (const [kind, flags] of [['tflm-kernels', ['--tflm']], ['c-port', []]] as const) {
      await s.page.click(`button[data-action="download-${kind}"]`);
      await idle(s.page);
      const { bytes, name } = await linkBytes(s.page, `a[data-download="${kind}"]`);
      const zip = join(s.tmp, name);
      writeFileSync(zip, bytes);
      execFileSync('python3', ['-m', 'zipfile', '-t', zip]);
      const unzipped = join(s.tmp, `${kind}-unzipped`);
      execFileSync('python3', ['-m', 'zipfile', '-e', zip, unzipped]);
      // The CLI on the same file under the page's file name (its stem names the generated code).
      const named = join(s.tmp, 'mobilenet-v1-0.25-128-dmo.tflite');
      writeFileSync(named, readFileSync(file));
      const out = join(s.tmp, `${kind}-cli`);
      mkdirSync(out);
      const r = await runMcusim(['codegen', named, ...flags, '--out-dir', out, '-q']);
      expect(r.code, r.stderr).toBe(0);
      const folder = join(unzipped, name.replace(/\.zip$/, ''));
      expect(filesBelow(folder)).toEqual(filesBelow(out));
      for (const f of filesBelow(out)) expect(readFileSync(join(folder, f), 'utf8'), f).toBe(readFileSync(join(out, f), 'utf8'));
    }
    await s.page.click('button[data-action="download-report"]');
    await idle(s.page);
    const html = new TextDecoder().decode((await linkBytes(s.page, 'a[data-download="report"]')).bytes);
    expect(html).toContain('<section id="verification">');
    expect(html).toContain('VERIFIED');
    expect(s.errors).toEqual([]);
  });

  it('auto: figures, file and verdict equal the CLI', async () => {
    await expectOptimizeEqualsCli(session(), MODEL, 'auto', 2, { board: 'nicla-vision', kernels: 'reference' });
  });

  it('verify runs off the UI thread: the page answers while seeds run, Cancel stops them, the page verifies again after', async () => {
    const { page, errors } = session();
    await page.$eval('input[data-control="seeds"]', (e) => { (e as unknown as { value: string }).value = '400'; });
    await page.click('button[data-action="verify"]');
    await page.waitForFunction('Number(document.getElementById("verify-progress").value) >= 1');
    // The UI thread is free: an animation frame runs and the page reports itself busy meanwhile.
    expect(await page.evaluate('new Promise((ok) => requestAnimationFrame(() => ok(document.body.dataset.busy)))')).toBe('true');
    await page.click('button[data-action="cancel-verify"]');
    await idle(page);
    expect(await page.$eval('[data-metric="verify"]', (e) => [e.textContent, (e as unknown as { dataset: Record<string, string | undefined> }).dataset['value'] ?? null])).toEqual(['cancelled', null]);
    expect(await page.$$('[data-error]')).toEqual([]);
    expect(await verifyOnPage(page, 1)).toBe('VERIFIED');
    expect(errors).toEqual([]);
  });

  it('another build (cmsis-nn on a Cortex-M55, ek-ra8d1) recomputes every figure as the CLI does', async () => {
    const { page, errors } = session();
    await selectAndWait(page, 'select[data-control="kernels"]', 'cmsis-nn');
    await selectAndWait(page, 'select[data-control="cpu"]', 'cortex-m55');
    await selectAndWait(page, 'select[data-control="board"]', 'ek-ra8d1');
    await expectSummaryEqualsCli(page, MODEL, { kernels: 'cmsis-nn', cpu: 'cortex-m55', board: 'ek-ra8d1' });
    // The chosen board's breakdown: one Invoke's instructions (the MVE paths on the M85) as `latency --json` gives them.
    const lat = await cliJson<{ instructions: number }>(['latency', MODEL, '--board', 'ek-ra8d1', '--kernels', 'cmsis-nn']);
    expect(await page.$eval('#board-detail h3', (e) => { const d = (e as unknown as { dataset: Record<string, string | undefined> }).dataset; return [d['board'], Number(d['instructions'])]; })).toEqual(['ek-ra8d1', lat.instructions]);
    const all = await cliJson<{ boards: { board: string; totalMs: number }[] }>(['latency', MODEL, '--boards', 'all', '--kernels', 'cmsis-nn']);
    for (const r of await boardRows(page)) expect(Math.abs(r.latencyMs - (all.boards.find((b) => b.board === r.board)?.totalMs ?? NaN)), r.board).toBeLessThanOrEqual(0.05);
    expect(await metric(page, 'latency-ms')).not.toBe('');
    expect(errors).toEqual([]);
  });
});
