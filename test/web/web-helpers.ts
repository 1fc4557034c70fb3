// Shared by the page tests: `mcusim web` started on a free port, Debian's chromium driven by
// puppeteer-core over the page contract (DESIGN.md §9: data-action / data-control / data-metric),
// and the CLI's --json for the same inputs. A suite skips, saying why, when chromium is absent.
import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { runMcusim } from '../cli/bin-helpers.ts';

/** What the callbacks run in the page read of an element (the test's tsconfig has no DOM types). */
interface PageElement {
  readonly dataset: Record<string, string | undefined>;
  value: string;
  readonly href: string;
  readonly download: string;
}


const BIN = join(import.meta.dirname, '../../bin/mcusim.mjs');
/** Launch, navigation and each wait: a hang guard (a verify of Tiny U-Net takes seconds here, minutes on a loaded CI machine). */
export const PAGE_HANG_GUARD_MS = 600_000;

function findChromium(): string | null {
  try {
    return execFileSync('sh', ['-c', 'command -v chromium || command -v chromium-browser'], { encoding: 'utf8' }).trim() || null;
  } catch {
    return null;
  }
}

export const CHROMIUM = findChromium();

/** describe(name, fn), skipped with the reason when there is no chromium on PATH. */
export function describeInChromium(name: string, fn: () => void): void {
  if (CHROMIUM === null) {
    console.warn(`${name}: SKIPPED, no chromium on PATH (apt-get install chromium; .ci/run installs it)`);
    describe.skip(`${name} [no chromium on PATH]`, fn);
  } else describe(name, fn);
}

export async function cliJson<T = Record<string, unknown>>(args: readonly string[]): Promise<T> {
  const r = await runMcusim([...args, '--json']);
  if (r.code !== 0) throw new Error(`mcusim ${args.join(' ')}: exit ${r.code}\n${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}

export const sha256 = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

/** `mcusim web --port 0`: the URL it prints, and the process (killed by stop()). */
export function startServer(): Promise<{ url: string; stdout: () => string; child: ChildProcess }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'web', '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => {
      out += s;
      const m = /^(http:\/\/\S+)\n/.exec(out);
      if (m?.[1] !== undefined) resolve({ url: m[1], stdout: () => out, child });
    });
    child.stderr.setEncoding('utf8').on('data', (s: string) => { err += s; });
    child.on('error', reject);
    child.on('exit', (code) => reject(new Error(`mcusim web exited ${code}: ${err}`)));
  });
}

/** The page under test: the server, a browser and one tab; console errors collected. */
export interface PageSession {
  readonly page: Page;
  readonly url: string;
  readonly errors: string[];
  readonly tmp: string;
}

/** Opens the page once for the file's tests (beforeAll) and closes everything after them. */
export function usePage(): () => PageSession {
  let session: PageSession | null = null;
  let browser: Browser | null = null;
  let server: ChildProcess | null = null;
  let profile = '';
  beforeAll(async () => {
    const s = await startServer();
    server = s.child;
    const { launch } = await import('puppeteer-core');
    profile = mkdtempSync(join(tmpdir(), 'mcusim-web-profile-'));
    browser = await launch({
      executablePath: CHROMIUM as string, headless: true, timeout: PAGE_HANG_GUARD_MS, protocolTimeout: PAGE_HANG_GUARD_MS,
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', `--user-data-dir=${profile}`],
    });
    const page = await browser.newPage();
    page.setDefaultTimeout(PAGE_HANG_GUARD_MS);
    await page.setViewport({ width: 1300, height: 900 });
    const errors: string[] = [];
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('request', (q) => { if (!q.url().startsWith(s.url) && !/^(blob|data):/.test(q.url())) errors.push(`request outside the page: ${q.url()}`); });
    await page.goto(s.url, { waitUntil: 'load' });
    session = { page, url: s.url, errors, tmp: mkdtempSync(join(tmpdir(), 'mcusim-web-')) };
  }, PAGE_HANG_GUARD_MS);
  afterAll(async () => {
    await browser?.close();
    server?.kill('SIGTERM');
    if (session !== null) rmSync(session.tmp, { recursive: true, force: true });
    if (profile !== '') rmSync(profile, { recursive: true, force: true });
  });
  return () => {
    if (session === null) throw new Error('page not open');
    return session;
  };
}

export const idle = (page: Page): Promise<unknown> => page.waitForFunction('document.body.dataset.busy !== "true"', { timeout: PAGE_HANG_GUARD_MS });

/** A figure's raw value once final. */
export async function metric(page: Page, name: string): Promise<string> {
  await page.waitForSelector(`[data-metric="${name}"][data-value]`);
  return page.$eval(`[data-metric="${name}"]`, (e) => (e as unknown as PageElement).dataset['value'] ?? '');
}

export async function selectAndWait(page: Page, selector: string, value: string): Promise<void> {
  await page.select(selector, value);
  await idle(page);
}

/** Types `passes` and presses Optimize. */
export async function optimizeOnPage(page: Page, passes: string): Promise<void> {
  await page.$eval('input[data-control="passes"]', (e) => { (e as unknown as PageElement).value = ''; });
  await page.type('input[data-control="passes"]', passes);
  await page.click('button[data-action="optimize"]');
  await idle(page);
}

export async function verifyOnPage(page: Page, seeds: number): Promise<string> {
  await page.$eval('input[data-control="seeds"]', (e, n) => { (e as unknown as PageElement).value = String(n); }, seeds);
  await page.click('button[data-action="verify"]');
  await idle(page);
  return metric(page, 'verify');
}

/** The bytes behind a link of the page (a blob: URL), fetched in the page. */
export async function linkBytes(page: Page, selector: string): Promise<{ bytes: Uint8Array; name: string }> {
  const { href, name } = await page.$eval(selector, (a) => ({ href: (a as unknown as PageElement).href, name: (a as unknown as PageElement).download }));
  const data = await page.evaluate(async (h) => Array.from(new Uint8Array(await (await fetch(h)).arrayBuffer())), href);
  return { bytes: Uint8Array.from(data), name };
}

export interface BoardRowFacts {
  readonly board: string;
  readonly latencyMs: number;
  readonly fits: string;
}

export function boardRows(page: Page): Promise<BoardRowFacts[]> {
  return page.$$eval('tr[data-board]', (rs) => rs.map((r) => {
    const d = (r as unknown as PageElement).dataset;
    return { board: d['board'] ?? '', latencyMs: Number(d['latencyMs']), fits: d['fits'] ?? '' };
  }));
}

/** Every summary figure against `inspect --board B [--kernels ...] --json` and `latency --board B --json`. */
export async function expectSummaryEqualsCli(page: Page, model: string, build: { readonly kernels: string; readonly cpu?: string; readonly board: string }): Promise<void> {
  const k = ['--kernels', build.kernels, ...(build.cpu === undefined ? [] : ['--cpu', build.cpu])];
  const ins = await cliJson<{ plan: { peakBytes: number }; arena: { totalBytes: number }; fit: { fits: boolean } }>(['inspect', model, '--arch', 'cortex-m', '--board', build.board, ...k]);
  const lat = await cliJson<{ totalMs: number }>(['latency', model, '--board', build.board, '--kernels', build.kernels]);
  expect(Number(await metric(page, 'planned-bytes'))).toBe(ins.plan.peakBytes);
  expect(Number(await metric(page, 'arena-bytes'))).toBe(ins.arena.totalBytes);
  expect(Math.abs(Number(await metric(page, 'latency-ms')) - lat.totalMs)).toBeLessThanOrEqual(0.05);
  const row = (await boardRows(page)).find((r) => r.board === build.board);
  expect(row?.fits).toBe(String(ins.fit.fits));
}

/** Optimize on the page and hold every figure, the file and the verdict against the CLI's. */
export async function expectOptimizeEqualsCli(s: PageSession, model: string, passes: string, seeds: number, build: { readonly board: string; readonly kernels: string }): Promise<string> {
  await optimizeOnPage(s.page, passes);
  const file = join(s.tmp, `${passes}-${Math.random().toString(36).slice(2)}.tflite`);
  const opt = await cliJson<{ before: { peakBytes: number }; after: { peakBytes: number; arena: { totalBytes: number } } }>(['optimize', model, '--passes', passes, '-o', file]);
  expect(Number(await metric(s.page, 'optimized-planned-bytes'))).toBe(opt.after.peakBytes);
  expect(Number(await metric(s.page, 'optimized-arena-bytes'))).toBe(opt.after.arena.totalBytes);
  const lat = await cliJson<{ totalMs: number }>(['latency', file, '--board', build.board, '--kernels', build.kernels]);
  expect(Math.abs(Number(await metric(s.page, 'optimized-latency-ms')) - lat.totalMs)).toBeLessThanOrEqual(0.05);
  const { bytes } = await linkBytes(s.page, 'a[data-download="optimized"]');
  const { readFileSync } = await import('node:fs');
  expect(sha256(bytes)).toBe(sha256(readFileSync(file)));
  expect(await verifyOnPage(s.page, seeds)).toBe('VERIFIED');
  return file;
}
