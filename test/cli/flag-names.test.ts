// Issue 14 item 3, one meaning per flag name: --target-bytes (memory), --board (a board),
// --make-goal (codegen's Makefile goal), -o/--output FILE and --out-dir DIR. The old spellings
// DESIGN.md §9 promises keep working as hidden aliases; both spellings at once is exit 2.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BinRun } from './bin-helpers.ts';
import { runMcusim, testTempDir } from './bin-helpers.ts';

const tmp = testTempDir('mcusim-flag-names-');
const mcusim = (...args: string[]): Promise<BinRun> => runMcusim(args, 180_000);

function usage(r: BinRun, pattern: RegExp): void {
  expect(r.code, r.stderr).toBe(2);
  expect(r.stderr).toMatch(/^E_USAGE: /);
  expect(r.stderr).toMatch(pattern);
}

describe('renamed flags and their old spellings', () => {
  it('optimize: --target-bytes and its alias --target give the same result; both at once is exit 2', async () => {
    const run = async (...flag: string[]): Promise<unknown> => {
      const r = (await mcusim('optimize', 'zoo:cifar10-cnn', '--passes', 'dmo', '-o', join(tmp, 'c.tflite'), '--json', '--quiet', ...flag));
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout);
    };
    expect(await run('--target-bytes', '900000')).toEqual(await run('--target', '900000'));
    usage((await mcusim('optimize', 'zoo:cifar10-cnn', '--passes', 'dmo', '-o', join(tmp, 'c.tflite'), '--target-bytes', '1', '--target', '1')), /--target is the old spelling of --target-bytes/);
    const help = (await mcusim('optimize', '--help')).stdout;
    expect(help).toContain('--target-bytes');
    expect(help).not.toMatch(/--target </);
  });

  it('latency and sweep: --board names the board, --target stays as its alias', async () => {
    const total = async (...flag: string[]): Promise<number> => {
      const r = (await mcusim('latency', 'zoo:cifar10-cnn', '--json', ...flag));
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout).totalMs as number;
    };
    expect(await total('--board', 'nicla-vision')).toBe(await total('--target', 'nicla-vision'));
    const file = join(tmp, 'slow.json');
    writeFileSync(file, JSON.stringify({ base: 'nicla-vision', computeCalibration: { 'cmsis-nn': { scale: 2, source: 'test: twice as slow' } } }));
    const slow = await total('--board-file', file);
    expect(slow).toBe(await total('--target-file', file));
    expect(slow).toBeGreaterThan(await total('--board', 'nicla-vision'));
    usage((await mcusim('latency', 'zoo:cifar10-cnn', '--board', 'esp32')), /esp32/);
    usage((await mcusim('latency', 'zoo:cifar10-cnn', '--board-file', file, '--target-file', file)), /--target-file is the old spelling of --board-file/);
    usage((await mcusim('latency', 'zoo:cifar10-cnn', '--board', 'nicla-vision', '--target', 'nicla-vision')), /--target is the old spelling of --board/);
    usage((await mcusim('sweep', 'zoo:tiny-unet', '--board', 'nicla-vision', '--target', 'nicla-vision')), /--target is the old spelling of --board/);
    for (const cmd of ['latency', 'sweep']) {
      const help = (await mcusim(cmd, '--help')).stdout;
      expect(help).toContain('--board <name>');
      expect(help).not.toMatch(/--target/);
    }
  });

  it('codegen: --out-dir and --make-goal, with -o DIR and --target GOAL as the old spellings', async () => {
    const a = (await mcusim('codegen', 'zoo:cifar10-cnn', '--out-dir', join(tmp, 'cg-new'), '--make-goal', 'cortex-m7', '--json'));
    expect(a.code, a.stderr).toBe(0);
    const b = (await mcusim('codegen', 'zoo:cifar10-cnn', '-o', join(tmp, 'cg-old'), '--target', 'cortex-m7', '--json'));
    expect(b.code, b.stderr).toBe(0);
    expect(JSON.parse(a.stdout).target).toBe('cortex-m7');
    expect(readFileSync(join(tmp, 'cg-new', 'Makefile'), 'utf8')).toBe(readFileSync(join(tmp, 'cg-old', 'Makefile'), 'utf8'));
    usage((await mcusim('codegen', 'zoo:cifar10-cnn', '--out-dir', join(tmp, 'x'), '-o', join(tmp, 'y'))), /-o\/--out is the old spelling of --out-dir/);
    usage((await mcusim('codegen', 'zoo:cifar10-cnn', '--out-dir', join(tmp, 'x'), '--make-goal', 'host', '--target', 'host')), /--target is the old spelling of --make-goal/);
    usage((await mcusim('codegen', 'zoo:cifar10-cnn', '--out-dir', join(tmp, 'x'), '--make-goal', 'esp32')), /--make-goal must be host or cortex-m7/);
    usage((await mcusim('codegen', 'zoo:cifar10-cnn')), /codegen needs --out-dir DIR/);
  });

  it('run: --out-dir DIR, with --out DIR as the old spelling', async () => {
    expect((await mcusim('run', 'zoo:cifar10-cnn', '--out-dir', join(tmp, 'run-new'), '--quiet')).code).toBe(0);
    expect((await mcusim('run', 'zoo:cifar10-cnn', '--out', join(tmp, 'run-old'), '--quiet')).code).toBe(0);
    expect(readFileSync(join(tmp, 'run-new', 'output0.bin'))).toEqual(readFileSync(join(tmp, 'run-old', 'output0.bin')));
    usage((await mcusim('run', 'zoo:cifar10-cnn', '--out-dir', join(tmp, 'a'), '--out', join(tmp, 'b'))), /--out is the old spelling of --out-dir/);
    expect(existsSync(join(tmp, 'a'))).toBe(false);
  });
});
