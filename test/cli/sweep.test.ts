// Spawns the real bin for `mcusim sweep`: JSON rows and the SVG plot, one progress line per point on
// stderr, the human table, a model spilling cannot help, and exit code 2 with a coded message.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BinRun } from './bin-helpers.ts';
import { runMcusim, testTempDir } from './bin-helpers.ts';

const tmp = testTempDir('mcusim-sweep-');

const mcusim = (...args: string[]): Promise<BinRun> => runMcusim(args);

describe('mcusim sweep', () => {
  it('prints the rows as JSON, progress on stderr, and writes the Figure 14 plot', async () => {
    const svg = join(tmp, 'sweep.svg');
    const r = (await mcusim('sweep', 'zoo:tiny-unet', '--steps', '4', '--storage', 'remote', '--json', '--svg', svg));
    expect(r.code).toBe(0);
    expect(r.stderr.trim().split('\n')).toHaveLength(5);
    expect(r.stderr).toMatch(/^sweep 1\/5: 0% -> none/);
    const doc = JSON.parse(r.stdout);
    expect(doc).toMatchObject({ model: 'zoo:tiny-unet', storage: 'remote', spillingHelps: true });
    expect(doc.rows.map((row: { requestedPercent: number }) => row.requestedPercent)).toEqual([0, 25, 50, 75, 100]);
    expect(Object.keys(doc.rows[4].breakdown).sort()).toEqual(['codecMs', 'computeMs', 'fetchMs', 'spillMs', 'stallMs']);
    expect(doc.rows[4].latencyMs).toBeGreaterThan(doc.rows[0].latencyMs);
    expect(readFileSync(svg, 'utf8')).toMatch(/^<svg[\s\S]*Partial spilling: zoo:tiny-unet \(remote storage\)/);
  });

  it('prints a table; on a model spilling cannot help it says so and shows the 0% row', async () => {
    const ok = (await mcusim('sweep', 'zoo:tiny-unet', '--steps', '2', '--async-erase'));
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/^partial spilling sweep of zoo:tiny-unet: internal storage, async erase/);
    expect(ok.stdout).toMatch(/\n100% +8\/8 ch \(100%\) +76800 /);
    const none = (await mcusim('sweep', 'zoo:mobilenet-v1-0.25-128', '--steps', '2'));
    expect(none.code).toBe(0);
    expect(none.stdout).toMatch(/\n0% +none /);
    expect(none.stdout).not.toMatch(/\n50% /);
    expect(none.stdout).toMatch(/spilling cannot help/);
  });

  it('times its points on a --target-file profile', async () => {
    const file = join(tmp, 'slow-usb.json');
    writeFileSync(file, JSON.stringify({ name: 'slow-usb', remoteHost: { readCyclesPerByte: 3300 } }));
    const run = async (...args: string[]): Promise<{ target: string; rows: { latencyMs: number; breakdown: { fetchMs: number } }[] }> =>
      JSON.parse((await mcusim('sweep', 'zoo:tiny-unet', '--steps', '1', '--storage', 'remote', '--json', ...args)).stdout);
    const base = await run();
    const slow = await run('--target-file', file);
    expect(base.target).toBe('nicla-vision');
    expect(slow.target).toBe('slow-usb');
    // 3,000 more cycles per received byte at 480 MHz: the block is received at least twice (CRC
    // read-back through the I/O buffer, then the FetchingConv2D kernel's requests).
    const receivedBytes = (((slow.rows[1]?.breakdown.fetchMs ?? 0) - (base.rows[1]?.breakdown.fetchMs ?? 0)) * 480_000) / 3000;
    expect(receivedBytes).toBeGreaterThan(2 * 76_800);
  });

  it('exits 2 with a coded message for bad options', async () => {
    for (const args of [['--steps', '0'], ['--steps', 'ten'], ['--steps', '101'], ['--storage', 'sdcard']]) {
      const r = (await mcusim('sweep', 'zoo:tiny-unet', ...args));
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/^E_USAGE: /);
    }
    expect((await mcusim('sweep', 'zoo:no-such-model')).code).toBe(2);
  });
});
