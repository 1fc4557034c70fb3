// `mcusim web [--port N] [--host H]`: serves the built page (dist/web/, written by `npm run build`,
// src/web) over HTTP on 127.0.0.1 by default and prints its URL as the only line on stdout. It
// serves those files and nothing else: GET and HEAD only (no upload endpoint: the page reads a
// model in the browser), no path outside dist/web/ (`..`, encoded or not, and links that leave it
// are 404), no directory listing. Runs until interrupted (Ctrl-C: exit 0).
import { createReadStream, existsSync, realpathSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { InternalError, UsageError } from '../../ir/index.ts';

export const DEFAULT_WEB_PORT = 8177;
export const DEFAULT_WEB_HOST = '127.0.0.1';

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json',
};

/** The built page's folder: dist/web beside the compiled CLI (or its bundle); from src in tests, the build's. */
export function webRoot(): string {
  const url = import.meta.url.endsWith('.ts') ? new URL('../../../dist/web/', import.meta.url) : new URL('../../web/', import.meta.url);
  return fileURLToPath(url);
}

/** The file a request path names inside `root`, or null when it names none there (or leaves it). */
export function resolveWebFile(root: string, urlPath: string): string | null {
  let path: string;
  try {
    path = decodeURIComponent(urlPath.split('?')[0]?.split('#')[0] ?? '');
  } catch {
    return null;
  }
  if (path.includes('\0') || !path.startsWith('/')) return null;
  const base = realpathSync(root);
  const file = resolve(base, `.${path === '/' ? '/index.html' : path}`);
  if (!file.startsWith(base + sep)) return null;
  if (!existsSync(file)) return null;
  const real = realpathSync(file);
  if (!real.startsWith(base + sep) || !statSync(real).isFile()) return null;
  return real;
}

function parsePort(text: string): number {
  const n = Number(text);
  if (text.trim() === '' || !Number.isSafeInteger(n) || n < 0 || n > 65535) throw new UsageError(`--port must be an integer from 0 to 65535, got '${text}'`);
  return n;
}

function respond(root: string, req: IncomingMessage, res: ServerResponse): void {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain' }).end('405: this server only serves the page\n');
    return;
  }
  const file = resolveWebFile(root, req.url ?? '/');
  if (file === null) {
    res.writeHead(404, { 'content-type': 'text/plain' }).end('404: not a file of the page\n');
    return;
  }
  res.writeHead(200, {
    'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
    'content-length': statSync(file).size,
    'cache-control': 'no-cache',
    'x-content-type-options': 'nosniff',
  });
  if (req.method === 'HEAD') res.end();
  else createReadStream(file).pipe(res);
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((done, fail) => {
    server.once('error', (e: NodeJS.ErrnoException) => fail(new UsageError(`cannot listen on ${host}:${port}: ${e.code ?? e.message}`)));
    server.listen(port, host, () => {
      const a = server.address();
      done(typeof a === 'object' && a !== null ? a.port : port);
    });
  });
}

export async function runWeb(opts: { readonly port: string; readonly host: string }): Promise<number> {
  const port = parsePort(opts.port);
  const root = webRoot();
  if (!existsSync(join(root, 'index.html'))) throw new InternalError(`the page is not built (${join(root, 'index.html')} is missing): run \`npm run build\``);
  const server = createServer((req, res) => respond(root, req, res));
  const bound = await listen(server, port, opts.host);
  const host = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  process.stdout.write(`http://${host}:${bound}/\n`);
  process.stderr.write(`mcusim web: serving ${root} (Ctrl-C stops)\n`);
  await new Promise<void>((done) => {
    const stop = (): void => {
      server.close(() => done());
      server.closeAllConnections();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  return 0;
}

export function registerWeb(program: Command, setExit: (code: number) => void): void {
  program
    .command('web')
    .description('serve the web page (drop a model, its arena on every board, optimize, verify, download) on 127.0.0.1')
    .option('--port <n>', `port to listen on (0: any free port)`, String(DEFAULT_WEB_PORT))
    .option('--host <host>', 'address to listen on', DEFAULT_WEB_HOST)
    .action(async (opts: { port: string; host: string }) => setExit(await runWeb(opts)));
}
