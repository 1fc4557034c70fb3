// `node --import tsx scripts/web-screenshots.ts`: the screenshots of docs/web.md, one per view of
// the page (docs/web/*.png), taken in Debian's headless chromium over `mcusim web` on
// zoo:mobilenet-v1-0.25-128 with the default build: summary and plan (a buffer hovered), ops with
// one op's O_s and trace, boards with nicla-vision's breakdown, optimize (dmo) and verify, and a
// bad file's error. Rebuilds dist/ first.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'puppeteer-core';

const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '..');
const BIN = join(ROOT, 'bin', 'mcusim.mjs');
const OUT = join(ROOT, 'docs', 'web');

const idle = (page: Page): Promise<unknown> => page.waitForFunction('document.body.dataset.busy !== "true"', { timeout: 600_000 });

async function shot(page: Page, selector: string, name: string): Promise<void> {
  const e = await page.$(selector);
  if (e === null) throw new Error(`no ${selector}`);
  await e.screenshot({ path: join(OUT, `${name}.png`) as `${string}.png` });
  process.stdout.write(`docs/web/${name}.png\n`);
}

async function main(): Promise<void> {
  execFileSync(process.execPath, [join(ROOT, 'scripts', 'build.mjs')], { stdio: 'inherit' });
  const child = spawn(process.execPath, [BIN, 'web', '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((ok) => child.stdout.setEncoding('utf8').on('data', (s: string) => ok(s.trim())));
  const tmp = mkdtempSync(join(tmpdir(), 'mcusim-shots-'));
  const { launch } = await import('puppeteer-core');
  const browser = await launch({ executablePath: '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', `--user-data-dir=${join(tmp, 'profile')}`] });
  try {
    const page = await browser.newPage();
    page.setDefaultTimeout(600_000);
    await page.setViewport({ width: 1300, height: 900, deviceScaleFactor: 1 });
    await page.goto(url, { waitUntil: 'load' });
    await page.select('select[data-action="zoo"]', 'zoo:mobilenet-v1-0.25-128');
    await idle(page);
    await page.hover('#before-buffer-5');
    await shot(page, '#summary-view', 'summary');
    await page.click('button[data-op="1"]');
    await idle(page);
    // The pointer cannot be on the plan and in this shot at once: the hover is dispatched.
    await page.evaluate('document.getElementById("before-buffer-5").dispatchEvent(new MouseEvent("mouseenter"))');
    await shot(page, '#ops-view', 'ops');
    await page.click("th.sortable:nth-child(7)");
    await page.click("tr[data-board=\"nrf5340-dk\"]");
    await idle(page);
    await shot(page, '#boards-view', 'boards');
    await page.click('button[data-action="optimize"]');
    await idle(page);
    await page.click('button[data-action="verify"]');
    await idle(page);
    await shot(page, '#optimize-view', 'optimize');
    const bad = join(tmp, 'truncated.tflite');
    execFileSync(process.execPath, [BIN, 'zoo', 'export', 'tiny-unet', '-o', join(tmp, 'whole.tflite')]);
    writeFileSync(bad, execFileSync('head', ['-c', '300', join(tmp, 'whole.tflite')]));
    const input = await page.$('input[type=file][data-action="load-file"]');
    await input?.uploadFile(bad);
    await page.waitForSelector('[data-error]');
    await idle(page);
    await shot(page, 'header', 'error');
  } finally {
    await browser.close();
    child.kill('SIGTERM');
    rmSync(tmp, { recursive: true, force: true });
  }
}

await main();
