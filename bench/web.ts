// `npm run bench:web`: the web page's speed, as ratios measured in one run (issue 52), written to
// bench/results/web.json and web.md:
//   - a drop: a zoo model's .tflite dropped on the page (a real drop event) until its summary and
//     plan picture are drawn, against `mcusim inspect MODEL --board nicla-vision --json` (wall time);
//   - verify: zoo:mobilenet-v1-0.25-128 dmo on 4 seeds, Verify pressed until the verdict is drawn,
//     against `mcusim verify` in Node on the same files (default --jobs, wall time); goal <= 1.5x;
//   - the page's size: every file of dist/web gzipped, and main.js (the UI thread's script) alone.
// Medians of RUNS alternating runs; the page is reloaded (fresh workers) before each page run.
// Chromium is Debian's (puppeteer-core); the build is rebuilt first so dist/web is current.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { Page } from 'puppeteer-core';

const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '..');
const BIN = join(ROOT, 'bin', 'mcusim.mjs');
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const MODEL = 'mobilenet-v1-0.25-128';
const SEEDS = 4;
export const TARGET_VERIFY_RATIO = 1.5;

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? (s[s.length >> 1] as number) : ((s[s.length / 2 - 1] as number) + (s[s.length / 2] as number)) / 2;
};

function cliMs(args: readonly string[]): number {
  const t0 = process.hrtime.bigint();
  execFileSync(process.execPath, [BIN, ...args], { stdio: 'ignore' });
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

function startServer(): Promise<{ url: string; stop: () => void }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [BIN, 'web', '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => {
      out += s;
      const m = /^(http:\/\/\S+)\n/.exec(out);
      if (m?.[1] !== undefined) done({ url: m[1], stop: () => child.kill('SIGTERM') });
    });
    child.on('exit', (code) => fail(new Error(`mcusim web exited ${code}`)));
  });
}

/** In the page: drops a file made of `bytes` on the body, resolves with ms until the summary and plan are drawn. */
const DROP = `async (bytes, name) => {
  const file = new File([new Uint8Array(bytes)], name);
  const dt = new DataTransfer(); dt.items.add(file);
  const t0 = performance.now();
  document.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  await new Promise((ok) => { const tick = () => (document.querySelector('[data-metric="planned-bytes"][data-value]') && document.querySelector('#plan-picture svg') && document.body.dataset.busy !== 'true' ? ok() : requestAnimationFrame(tick)); tick(); });
  return performance.now() - t0;
}`;

/** In the page: presses Verify, resolves with ms until the verdict is drawn. */
const VERIFY = `async (seeds) => {
  document.querySelector('input[data-control="seeds"]').value = String(seeds);
  const t0 = performance.now();
  document.querySelector('button[data-action="verify"]').click();
  await new Promise((ok) => { const tick = () => (document.querySelector('[data-metric="verify"][data-value]') && document.body.dataset.busy !== 'true' ? ok() : setTimeout(tick, 5)); tick(); });
  return { ms: performance.now() - t0, verdict: document.querySelector('[data-metric="verify"]').dataset.value };
}`;

async function idle(page: Page): Promise<void> {
  await page.waitForFunction('document.body.dataset.busy !== "true"', { timeout: 600_000 });
}

async function main(): Promise<void> {
  execFileSync(process.execPath, [join(ROOT, 'scripts', 'build.mjs')], { stdio: 'inherit' });
  const tmp = mkdtempSync(join(tmpdir(), 'mcusim-bench-web-'));
  const tflite = join(tmp, `${MODEL}.tflite`);
  execFileSync(process.execPath, [BIN, 'zoo', 'export', MODEL, '-o', tflite], { stdio: 'ignore' });
  const dmo = join(tmp, 'dmo.tflite');
  execFileSync(process.execPath, [BIN, 'optimize', `zoo:${MODEL}`, '--passes', 'dmo', '-o', dmo], { stdio: 'ignore' });
  const server = await startServer();
  const { launch } = await import('puppeteer-core');
  const profile = join(tmp, 'profile');
  mkdirSync(profile);
  const browser = await launch({ executablePath: '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', `--user-data-dir=${profile}`] });
  const rows = { drop: [] as number[], inspect: [] as number[], pageVerify: [] as number[], cliVerify: [] as number[] };
  const verdicts = new Set<string>();
  try {
    const page = await browser.newPage();
    page.setDefaultTimeout(600_000);
    const bytes = Array.from(readFileSync(tflite));
    for (let i = 0; i < RUNS; i++) {
      await page.goto(server.url, { waitUntil: 'load' });
      rows.drop.push(await page.evaluate(`(${DROP})(${JSON.stringify(bytes)}, ${JSON.stringify(`${MODEL}.tflite`)})`) as number);
      rows.inspect.push(cliMs(['inspect', tflite, '--board', 'nicla-vision', '--json']));
      await page.select('select[data-action="zoo"]', `zoo:${MODEL}`);
      await idle(page);
      await page.$eval('input[data-control="passes"]', (e) => { (e as unknown as { value: string }).value = 'dmo'; });
      await page.click('button[data-action="optimize"]');
      await idle(page);
      const v = await page.evaluate(`(${VERIFY})(${SEEDS})`) as { ms: number; verdict: string };
      rows.pageVerify.push(v.ms);
      verdicts.add(v.verdict);
      rows.cliVerify.push(cliMs(['verify', `zoo:${MODEL}`, dmo, '--seeds', String(SEEDS)]));
    }
  } finally {
    await browser.close();
    server.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
  const web = join(ROOT, 'dist', 'web');
  const files = readdirSync(web);
  const gz = (f: string): number => gzipSync(readFileSync(join(web, f)), { level: 9 }).byteLength;
  const result = {
    date: new Date().toISOString(), node: process.version, cpu: `${cpus()[0]?.model ?? 'unknown'} (${cpus().length} cores)`,
    chromium: execFileSync('/usr/bin/chromium', ['--version'], { encoding: 'utf8' }).trim(), runs: RUNS,
    dropToSummaryMs: median(rows.drop), inspectCliMs: median(rows.inspect), dropOverInspect: median(rows.drop) / median(rows.inspect),
    verifyPageMs: median(rows.pageVerify), verifyCliMs: median(rows.cliVerify), verifyPageOverCli: median(rows.pageVerify) / median(rows.cliVerify),
    verifyTarget: TARGET_VERIFY_RATIO, verdicts: [...verdicts],
    gzipBytes: files.reduce((s, f) => s + gz(f), 0), gzipMainBytes: gz('main.js'), rawBytes: files.reduce((s, f) => s + readFileSync(join(web, f)).byteLength, 0),
    samples: rows,
  };
  const md = [
    '# The web page (`npm run bench:web`)',
    '',
    `date: ${result.date}  \nnode: ${result.node}  \ncpu: ${result.cpu}  \n${result.chromium}, headless; medians of ${RUNS} alternating runs`,
    '',
    '| measure | page | CLI in Node | page / CLI | goal |',
    '| --- | ---: | ---: | ---: | --- |',
    `| a dropped zoo:${MODEL} .tflite until its summary and plan are drawn, vs \`mcusim inspect FILE --board nicla-vision --json\` | ${result.dropToSummaryMs.toFixed(0)} ms | ${result.inspectCliMs.toFixed(0)} ms | ${result.dropOverInspect.toFixed(2)}x | |`,
    `| verify zoo:${MODEL} dmo, ${SEEDS} seeds (page: Verify until the verdict, ${[...verdicts].join('/')}; CLI: \`mcusim verify\`, default --jobs) | ${result.verifyPageMs.toFixed(0)} ms | ${result.verifyCliMs.toFixed(0)} ms | ${result.verifyPageOverCli.toFixed(2)}x | <= ${TARGET_VERIFY_RATIO}x |`,
    '',
    `Page size: ${files.length} files, ${(result.rawBytes / 1024).toFixed(0)} KB, ${(result.gzipBytes / 1024).toFixed(0)} KB gzipped (gzip -9); main.js (the UI thread's script, no library code) ${(result.gzipMainBytes / 1024).toFixed(1)} KB gzipped.`,
    '',
  ].join('\n');
  mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true });
  writeFileSync(join(ROOT, 'bench', 'results', 'web.json'), `${JSON.stringify(result, null, 2)}\n`);
  writeFileSync(join(ROOT, 'bench', 'results', 'web.md'), md);
  process.stdout.write(md);
}

await main();
