// Issue 14 item 3: a flag that does not apply to the chosen pass, device or mode is a usage error
// naming the flag and why (it used to be ignored silently), and output paths are checked before
// any work starts (a missing folder, a folder where a file goes, a file where a folder goes).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BinRun } from './bin-helpers.ts';
import { runMcusim, testTempDir } from './bin-helpers.ts';

const tmp = testTempDir('mcusim-flag-rules-');
const mcusim = (...args: string[]): Promise<BinRun> => runMcusim(args, 180_000);

function refused(r: BinRun, flag: string, why: RegExp): void {
  expect(r.code, r.stderr).toBe(2);
  expect(r.stderr).toMatch(new RegExp(`^E_USAGE: ${flag.replace(/[-/]/g, '\\$&')}`));
  expect(r.stderr).toMatch(why);
}

describe('flags that do not apply', () => {
  const out = join(tmp, 'o.tflite');
  it('optimize: tinyseg-only flags without tinyseg, --storage without auto', async () => {
    refused((await mcusim('optimize', 'zoo:tiny-unet', '--passes', 'dmo', '-o', out, '--spill-percent', '50')), '--spill-percent', /only the tinyseg pass .*--passes is dmo/);
    refused((await mcusim('optimize', 'zoo:tiny-unet', '--passes', 'dmo', '-o', out, '--no-scratch-quant')), '--no-scratch-quant', /tinyseg/);
    refused((await mcusim('optimize', 'zoo:tiny-unet', '--passes', 'tinyseg', '-o', out, '--storage', 'remote')), '--storage', /only auto/);
    expect((await mcusim('optimize', 'zoo:tiny-unet', '--passes', 'tinyseg', '-o', out, '--spill-percent', '50', '--quiet')).code).toBe(0);
  });

  it('latency: --async-erase with remote storage, --seed without --compress, storage flags on a model that spills nothing', async () => {
    const tu = join(tmp, 'tu.tflite');
    expect((await mcusim('optimize', 'zoo:tiny-unet', '--passes', 'tinyseg', '-o', tu, '--quiet')).code).toBe(0);
    refused((await mcusim('latency', tu, '--storage', 'remote', '--async-erase')), '--async-erase', /remote storage/);
    refused((await mcusim('latency', tu, '--storage', 'internal', '--seed', '3')), '--seed', /add --compress/);
    refused((await mcusim('latency', 'zoo:tiny-unet', '--storage', 'external', '--compress')), '--storage, --compress', /spills no tensor/);
    expect((await mcusim('latency', tu, '--storage', 'external', '--compress', '--async-erase')).code).toBe(0);
  });

  it('sweep, verify, run, inspect, overlap', async () => {
    refused((await mcusim('sweep', 'zoo:tiny-unet', '--storage', 'remote', '--async-erase')), '--async-erase', /remote storage/);
    refused((await mcusim('sweep', 'zoo:tiny-unet', '--zero-input')), '--zero-input', /add --compress/);
    refused((await mcusim('verify', 'zoo:cifar10-cnn', 'zoo:cifar10-cnn', '--compress')), '--compress', /--storage/);
    refused((await mcusim('verify', 'zoo:cifar10-cnn', 'zoo:cifar10-cnn', '--storage', 'external')), '--storage', /spills no tensor/);
    const input = join(tmp, 'in.bin');
    writeFileSync(input, new Uint8Array(32 * 32 * 3));
    refused((await mcusim('run', 'zoo:cifar10-cnn', '--input', input, '--seed', '2')), '--seed', /--input gives the inputs/);
    refused((await mcusim('run', 'zoo:cifar10-cnn', '--force')), '--force', /--trace-out/);
    refused((await mcusim('inspect', 'zoo:cifar10-cnn', '--json', '--ascii')), '--ascii', /--json/);
    refused((await mcusim('inspect', 'zoo:cifar10-cnn', '--json', '--tensors')), '--tensors', /--json/);
    refused((await mcusim('overlap', '--op', 'add', '--input', '1x4x4x2', '--filter', '3x3')), '--filter', /add has no such parameter/);
    refused((await mcusim('overlap', '--op', 'conv2d', '--input', '1x4x4x2', '--depth-multiplier', '2')), '--depth-multiplier', /depthwiseConv2d/);
  });
});

describe('output paths checked before any work', () => {
  const missing = join(tmp, 'no-such-folder', 'x');
  const folder = join(tmp, 'a-folder');
  mkdirSync(folder, { recursive: true });
  const file = join(tmp, 'a-file');
  writeFileSync(file, 'x');
  it('refuses a missing parent folder or a folder as the file, naming the flag, with no progress printed', async () => {
    const cases: [string[], string][] = [
      [['optimize', 'zoo:tiny-unet', '--passes', 'tinyseg', '-o', `${missing}.tflite`], '-o/--output'],
      [['optimize', 'zoo:tiny-unet', '--passes', 'tinyseg', '-o', folder], '-o/--output'],
      [['optimize', 'zoo:tiny-unet', '--passes', 'tinyseg', '-o', join(tmp, 'ok.tflite'), '--svg-after', `${missing}.svg`], '--svg-after'],
      [['report', 'zoo:tiny-unet', '-o', `${missing}.html`], '-o/--output'],
      [['inspect', 'zoo:tiny-unet', '--svg', folder], '--svg'],
      [['latency', 'zoo:tiny-unet', '--svg', `${missing}.svg`], '--svg'],
      [['sweep', 'zoo:tiny-unet', '--svg', `${missing}.svg`], '--svg'],
      [['run', 'zoo:tiny-unet', '--trace-out', `${missing}.jsonl`], '--trace-out'],
      [['run', 'zoo:tiny-unet', '--trace-svg', folder], '--trace-svg'],
      [['run', 'zoo:tiny-unet', '--out-dir', file], '--out-dir'],
      [['codegen', 'zoo:tiny-unet', '--out-dir', join(file, 'sub')], '--out-dir'],
      [['zoo', 'export', 'tiny-unet', '-o', folder], '-o/--output'],
      [['overlap', '--op', 'conv2d', '--input', '1x4x4x2', '--svg', `${missing}.svg`], '--svg'],
    ];
    for (const [args, flag] of cases) {
      const r = (await mcusim(...args));
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(new RegExp(`^E_USAGE: ${flag.replace(/[-/]/g, '\\$&')} '`));
      expect(r.stderr, args.join(' ')).not.toMatch(/running|sweep 1|report: /);
    }
  });
});
