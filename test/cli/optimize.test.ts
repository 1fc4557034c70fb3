// `mcusim optimize` through the real bin: JSON shape, the written model carries the plan, and an
// unknown pass is bad input (exit 2) naming the available passes.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const BIN = join(import.meta.dirname, '../../bin/mcusim.mjs');
const tmp = mkdtempSync(join(tmpdir(), 'mcusim-optimize-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function mcusim(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 120_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('mcusim optimize', () => {
  it('runs replacement on the CIFAR-10 CNN, prints one JSON document and writes a model verify accepts', () => {
    const out = join(tmp, 'cifar.tflite');
    const r = mcusim('optimize', 'zoo:cifar10-cnn', '--passes', 'replacement', '-o', out, '--json');
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc).toMatchObject({ before: { peakBytes: 40_960 }, after: { peakBytes: 35_840 }, passes: [{ pass: 'replacement', applied: true }] });
    expect(existsSync(out)).toBe(true);
    const inspect = JSON.parse(mcusim('inspect', out, '--json').stdout);
    expect(inspect.plan.peakBytes).toBe(35_840);
    const text = mcusim('optimize', 'zoo:cifar10-cnn', '--passes', 'replacement', '-o', join(tmp, 'c2.tflite'));
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/pass replacement/);
  });

  it('rejects an unknown pass and a missing -o with exit 2', () => {
    const r = mcusim('optimize', 'zoo:cifar10-cnn', '--passes', 'dmo,bogus', '-o', join(tmp, 'x.tflite'));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^E_USAGE: .*bogus.*dmo/);
    expect(mcusim('optimize', 'zoo:cifar10-cnn', '--passes', 'dmo').code).toBe(2);
  });
});
