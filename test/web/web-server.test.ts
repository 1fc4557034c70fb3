// `mcusim web`: the URL is the only stdout line; only the built page's files are served (GET and
// HEAD; no upload endpoint), never a path outside dist/web/ (.., encoded .., absolute, NUL, links);
// resolveWebFile directly on a folder with a link leaving it; bad --port is a usage error.
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveWebFile } from '../../src/cli/commands/web.ts';
import { runMcusim } from '../cli/bin-helpers.ts';
import { startServer } from './web-helpers.ts';

/** A raw request (the path sent as given, not normalized by a URL parser). */
function send(url: string, method: string, path: string): Promise<{ status: number; type: string; body: string }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, method, path }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (s: string) => { body += s; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type'] ?? ''), body }));
    });
    req.on('error', reject);
    req.end(method === 'POST' || method === 'PUT' ? 'x' : undefined);
  });
}

describe('mcusim web', () => {
  let server: Awaited<ReturnType<typeof startServer>> | null = null;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => {
    server?.child.kill('SIGTERM');
  });
  const url = (): string => server?.url ?? '';

  it('prints its URL on 127.0.0.1 as the only stdout line', () => {
    expect(url()).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(server?.stdout()).toBe(`${url()}\n`);
  });

  it('serves the page and its scripts', async () => {
    const index = await send(url(), 'GET', '/');
    expect(index.status).toBe(200);
    expect(index.type).toContain('text/html');
    expect(index.body).toContain('data-action="load-file"');
    expect(index.body).not.toMatch(/https?:\/\//);
    for (const f of ['main.js', 'engine-worker.js', 'verify-worker.js', 'style.css']) {
      const r = await send(url(), 'GET', `/${f}`);
      expect(r.status, f).toBe(200);
      expect(r.body, f).not.toMatch(/(src|href)=["']?https?:/);
    }
    expect((await send(url(), 'HEAD', '/main.js')).status).toBe(200);
  });

  it('has no upload endpoint and serves nothing outside dist/web', async () => {
    for (const m of ['POST', 'PUT', 'DELETE']) expect((await send(url(), m, '/')).status, m).toBe(405);
    for (const p of ['/../package.json', '/../../package.json', '/%2e%2e/%2e%2e/package.json', '/..%2f..%2fpackage.json', '/%2e%2e%5c%2e%2e%5cpackage.json', '//etc/passwd', '/%00', '/%E0%A4%A', '/cli/main.js', '/nope.js']) {
      expect((await send(url(), 'GET', p)).status, p).toBe(404);
    }
  });

  it('resolveWebFile keeps to its folder, links included', () => {
    const root = mkdtempSync(join(tmpdir(), 'mcusim-webroot-'));
    const outside = mkdtempSync(join(tmpdir(), 'mcusim-outside-'));
    writeFileSync(join(root, 'index.html'), 'x');
    writeFileSync(join(outside, 'secret.txt'), 'secret');
    mkdirSync(join(root, 'sub'));
    symlinkSync(join(outside, 'secret.txt'), join(root, 'link.txt'));
    symlinkSync(outside, join(root, 'sub', 'out'));
    expect(resolveWebFile(root, '/')).toMatch(/index\.html$/);
    expect(resolveWebFile(root, '/index.html?x=1')).toMatch(/index\.html$/);
    for (const p of ['/link.txt', '/sub/out/secret.txt', '/sub', '/../' + outside.split('/').pop() + '/secret.txt', 'index.html', '/%2e%2e/x']) {
      expect(resolveWebFile(root, p), p).toBeNull();
    }
  });

  it('refuses a bad --port with E_USAGE and lists web in --help', async () => {
    const r = await runMcusim(['web', '--port', '70000']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^E_USAGE: --port/);
    expect(r.stdout).toBe('');
    const help = await runMcusim(['--help']);
    expect(help.stdout).toMatch(/web \[options\]\s+serve the web page/);
  });
});
