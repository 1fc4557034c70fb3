// Shared by the CLI tests: run the real bin (bin/mcusim.mjs, on the compiled dist/ that
// test/global-build.ts rebuilds before every test run) in a child Node process, and a temporary
// folder removed after the file's tests.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

const BIN = join(import.meta.dirname, '../../bin/mcusim.mjs');

export interface BinRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * A hang guard for one bin run (the test's own timeout is 900 s). At least 5x the slowest bin run of the suite on a loaded 2-core machine (a traced Tiny U-Net
 * `verify --seeds 2`, about 2 minutes there).
 */
export const BIN_HANG_GUARD_MS = 600_000;

/**
 * `mcusim ARGS...`: exit code and output; a run that hangs is killed after `timeoutMs`. The child
 * runs asynchronously: a blocking spawn kept the test worker's event loop busy for whole CLI runs
 * (a minute and more on a loaded machine), and vitest's worker RPC then timed out ("Timeout
 * calling onTaskUpdate"), failing the suite.
 */
export function runMcusim(args: readonly string[], timeoutMs = BIN_HANG_GUARD_MS): Promise<BinRun> {
  return runNode([BIN, ...args], { timeoutMs });
}

/** `node ARGV...` in `cwd` (default: this process's), asynchronously, as runMcusim runs the bin. */
export function runNode(argv: readonly string[], opts: { readonly cwd?: string; readonly timeoutMs?: number } = {}): Promise<BinRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, argv, { stdio: ['ignore', 'pipe', 'pipe'], timeout: opts.timeoutMs ?? BIN_HANG_GUARD_MS, ...(opts.cwd !== undefined ? { cwd: opts.cwd } : {}) });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => { stdout += s; });
    child.stderr.setEncoding('utf8').on('data', (s: string) => { stderr += s; });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A fresh temporary folder, removed when the calling test file's tests are done. */
export function testTempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * `mcusim ARGS...` whose stdout reader goes away after the first chunk (as `| head -c 100`
 * does): the parent closes its end of the pipe, so the bin's later writes hit EPIPE.
 */
export function runMcusimClosedStdout(args: readonly string[], timeoutMs = BIN_HANG_GUARD_MS): Promise<BinRun & { readonly signal: NodeJS.Signals | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'], timeout: timeoutMs });
    let stdout = '';
    let stderr = '';
    child.stdout.once('data', (chunk: Buffer) => {
      stdout = chunk.toString('utf8');
      child.stdout.destroy();
    });
    child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString('utf8'); });
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}
