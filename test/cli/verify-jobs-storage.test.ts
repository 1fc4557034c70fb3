// `mcusim verify --jobs N` on a TinySeg model (issue 15): the storage transfers are summed over the
// threads and the report is the one-thread report; a bad --jobs is a usage error. A file of its own
// (from verify-jobs.test.ts) so the forks share the traced Tiny U-Net runs.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BinRun } from './bin-helpers.ts';
import { runMcusim, testTempDir } from './bin-helpers.ts';
import { buildZooModel, exportTflite } from '../../src/ir/index.ts';
import { runPipeline } from '../../src/optimizer/index.ts';

const tmp = testTempDir('mcusim-verify-jobs-storage-');

const mcusim = (...args: string[]): Promise<BinRun> => runMcusim(args);

describe('verify --jobs N: the same report as one thread, in seed order', () => {
  // Let vitest's worker RPC through between long blocking child runs.
  const breathe = (): Promise<unknown> => new Promise((resolve) => setTimeout(resolve, 0));

  it('storage transfers summed over the threads; a bad --jobs is a usage error', async () => {
    const unet = buildZooModel('tiny-unet');
    const orig = join(tmp, 'unet-j.tflite');
    const opt = join(tmp, 'unet-j-tinyseg.tflite');
    writeFileSync(orig, exportTflite(unet));
    writeFileSync(opt, exportTflite(runPipeline(unet, ['tinyseg'], { flags: {} }).model));
    await breathe();
    const one = (await mcusim('verify', orig, opt, '--seeds', '2', '--jobs', '1', '--json'));
    await breathe();
    const two = (await mcusim('verify', orig, opt, '--seeds', '2', '--jobs', '2', '--json'));
    expect(one.code).toBe(0);
    expect(JSON.parse(one.stdout).storage).toMatchObject({ transfers: 4 });
    expect(two.stdout).toBe(one.stdout);
    const bad = (await mcusim('verify', orig, opt, '--jobs', '0'));
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^E_USAGE: --jobs/);
  });
});
