// `mcusim verify` on a TinySeg model (DESIGN.md §4, §9): the spilled blocks make the round trip
// through each storage device (`--storage`, `--compress`) and are reported. Split from
// verify.test.ts (issue 15): traced Tiny U-Net runs, its longest part, run in the other fork.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BinRun } from './bin-helpers.ts';
import { runMcusim, testTempDir } from './bin-helpers.ts';
import { buildZooModel, exportTflite } from '../../src/ir/index.ts';
import { runPipeline } from '../../src/optimizer/index.ts';
import { verifyModels, verifyPassed } from '../../src/api/index.ts';

const tmp = testTempDir('mcusim-verify-storage-');

const mcusim = (...args: string[]): BinRun => runMcusim(args);

describe('verify runs the TinySeg storage round trip on the chosen device', () => {
  const unet = buildZooModel('tiny-unet');
  const spilled = runPipeline(unet, ['tinyseg'], { flags: {} }).model;

  // Without fused fetching the slot is read by a plain Fetching, which decodes MFV as it streams.
  let plainModel: ReturnType<typeof runPipeline>['model'] | null = null;
  const plain = (): ReturnType<typeof runPipeline>['model'] => (plainModel ??= runPipeline(unet, ['tinyseg'], { flags: { fusedFetching: false } }).model);
  for (const storage of ['internal', 'external', 'remote'] as const) {
    it(`in process: ${storage}${storage !== 'internal' ? ', compressed' : ''}: round trip clean and reported`, () => {
      const r = verifyModels(unet, plain(), 1, { storage, compress: storage !== 'internal' });
      expect(verifyPassed(r), storage).toBe(true);
      expect(r.storage, storage).toMatchObject({ transfers: 2, violations: [], compressed: storage !== 'internal' });
      if (storage === 'internal') expect(r.storage?.storedBytes).toBe(76800);
      else expect(r.storage?.storedBytes).toBeLessThan(76800);
    });
  }

  it('in process: a model without storage ops reports no storage', () => {
    expect(verifyModels(unet, unet, 1).storage).toBeNull();
  });

  it('through the CLI: --storage names the device; a bad kind is a usage error', () => {
    const orig = join(tmp, 'unet.tflite');
    const opt = join(tmp, 'unet-tinyseg.tflite');
    writeFileSync(orig, exportTflite(unet));
    writeFileSync(opt, exportTflite(spilled));
    const r = mcusim('verify', orig, opt, '--seeds', '1', '--storage', 'external', '--compress');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/storage: qspi-flash, MFV-compressed; 2 transfers/);
    expect(mcusim('verify', orig, opt, '--storage', 'usb').code).toBe(2);
  });
});
