// Issue 14 item 3: a missed memory target (--target-bytes) exits 1 and states the gap, auto's
// "no pipeline meets the target" included; the best model is still written, and --json carries
// the verdict as `target`. A met target exits 0.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BinRun } from './bin-helpers.ts';
import { runMcusim, testTempDir } from './bin-helpers.ts';

const tmp = testTempDir('mcusim-target-gap-');
const mcusim = (...args: string[]): Promise<BinRun> => runMcusim(args, 300_000);

describe('optimize --target-bytes', () => {
  it('exits 1 with "target ... missed by ...: best ..." when the passes cannot reach it, 0 when they do', async () => {
    const out = join(tmp, 'c.tflite');
    const met = (await mcusim('optimize', 'zoo:cifar10-cnn', '--passes', 'replacement', '-o', out, '--target-bytes', '1000000', '--json'));
    expect(met.code, met.stderr).toBe(0);
    const metDoc = JSON.parse(met.stdout);
    expect(metDoc.target).toMatchObject({ bytes: 1_000_000, met: true, gapBytes: 0 });

    const missed = (await mcusim('optimize', 'zoo:cifar10-cnn', '--passes', 'replacement', '-o', out, '--target-bytes', '30000', '--json'));
    expect(missed.code).toBe(1);
    const doc = JSON.parse(missed.stdout);
    expect(doc.target).toMatchObject({ bytes: 30_000, met: false });
    const { achievedBytes, gapBytes } = doc.target as { achievedBytes: number; gapBytes: number };
    expect(gapBytes).toBe(achievedBytes - 30_000);
    const n = (x: number): string => x.toLocaleString('en-US');
    expect(missed.stderr).toContain(`target 30,000 B missed by ${n(gapBytes)} B: best ${n(achievedBytes)} B`);
    expect(existsSync(out)).toBe(true);
  });

  it('auto: "no pipeline meets the target" is exit 1 with the gap', async () => {
    const r = (await mcusim('optimize', 'zoo:cifar10-cnn', '--passes', 'auto', '-o', join(tmp, 'a.tflite'), '--target-bytes', '1000'));
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/auto: no pipeline meets the target; target 1,000 B missed by [\d,]+ B: best [\d,]+ B/);
  });
});
