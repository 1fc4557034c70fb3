// `mcusim verify` on a TinySeg model (DESIGN.md §4, §9): the spilled blocks make the round trip
// through each storage device (`--storage`, `--compress`) and are reported. Split from
// verify.test.ts (issue 15) so the forks share the traced Tiny U-Net runs: the internal device
// here, external and remote in verify-storage-external / -remote.test.ts (verify-storage-helpers.ts).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BinRun } from './bin-helpers.ts';
import { runMcusim, testTempDir } from './bin-helpers.ts';
import { buildZooModel, exportTflite } from '../../src/ir/index.ts';
import { runPipeline } from '../../src/optimizer/index.ts';
import { verifyModels } from '../../src/api/index.ts';
import { describeStorageRoundTrip } from './verify-storage-helpers.ts';

const tmp = testTempDir('mcusim-verify-storage-');

const mcusim = (...args: string[]): Promise<BinRun> => runMcusim(args);

describeStorageRoundTrip(['internal']);

describe('verify on Tiny U-Net: no storage without storage ops; the device through the CLI', () => {
  const unet = buildZooModel('tiny-unet');
  const spilled = runPipeline(unet, ['tinyseg'], { flags: {} }).model;

  it('in process: a model without storage ops reports no storage', async () => {
    expect(verifyModels(unet, unet, 1).storage).toBeNull();
  });

  it('through the CLI: --storage names the device; a bad kind is a usage error', async () => {
    const orig = join(tmp, 'unet.tflite');
    const opt = join(tmp, 'unet-tinyseg.tflite');
    writeFileSync(orig, exportTflite(unet));
    writeFileSync(opt, exportTflite(spilled));
    const r = (await mcusim('verify', orig, opt, '--seeds', '1', '--storage', 'external', '--compress'));
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/storage: qspi-flash, MFV-compressed; 2 transfers/);
    expect((await mcusim('verify', orig, opt, '--storage', 'usb')).code).toBe(2);
  });
});
