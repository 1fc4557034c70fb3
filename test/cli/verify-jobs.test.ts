// `mcusim verify --jobs N` (issue 15): the same report as one thread, in seed order, on a failing
// DMO plan. Split from verify.test.ts so its runs go to the other fork; a TinySeg model's storage
// transfers over the threads: verify-jobs-storage.test.ts.
import { writeFileSync } from 'node:fs';
import { MessageChannel } from 'node:worker_threads';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BinRun } from './bin-helpers.ts';
import { runMcusim, testTempDir } from './bin-helpers.ts';
import type { Model } from '../../src/ir/index.ts';
import { buildZooModel, exportTflite, readOfflinePlan, withOfflinePlan } from '../../src/ir/index.ts';
import { computeModelBufferRequests, dmoPass } from '../../src/optimizer/index.ts';
import { verifyModels } from '../../src/api/index.ts';
import type { VerifyRun } from '../../src/cli/verify-pool.ts';
import { kernelFeed, startVerifyThreads, VERIFY_BLOCK_SEEDS, verifyItems, verifyRunAt } from '../../src/cli/verify-pool.ts';
import { newCounter, STOP } from '../../src/cli/worker-pool.ts';
import { InternalError, UsageError } from '../../src/ir/index.ts';

const tmp = testTempDir('mcusim-verify-jobs-');

const mcusim = (...args: string[]): Promise<BinRun> => runMcusim(args);

describe('verify --jobs N: the same report as one thread, in seed order', () => {
  const model = buildZooModel('ds-cnn-kws');
  const dmo = dmoPass.run(model, { flags: {} });
  const requests = computeModelBufferRequests(model);
  const offsets = Array.from(readOfflinePlan(dmo.model) ?? []);
  // Every DMO pair's input moved onto its output's start: clobbers on every seed, so the report
  // carries per-seed violations whose order the threads must not change.
  const clobbered = (): Model => {
    const next = [...offsets];
    const details = dmo.report.details as { pairs: { inputId: number; outputId: number }[] };
    for (const p of details.pairs) {
      const i = requests[p.inputId]?.tensor;
      const o = requests[p.outputId]?.tensor;
      if (i !== undefined && i !== null && o !== undefined && o !== null) next[i] = offsets[o] ?? 0;
    }
    return withOfflinePlan(dmo.model, next);
  };

  // Let vitest's worker RPC through between long blocking child runs.
  const breathe = (): Promise<unknown> => new Promise((resolve) => setTimeout(resolve, 0));

  it('a failing plan: identical JSON for --jobs 1, 2 and 3, exit 1 each time', async () => {
    const orig = join(tmp, 'kws-j.tflite');
    const bad = join(tmp, 'kws-clobbered.tflite');
    writeFileSync(orig, exportTflite(model));
    writeFileSync(bad, exportTflite(clobbered()));
    const runs: BinRun[] = [];
    for (const j of ['1', '2', '3']) {
      await breathe();
      runs.push((await mcusim('verify', orig, bad, '--seeds', '5', '--jobs', j, '--json')));
    }
    for (const r of runs) expect(r.code).toBe(1);
    const doc = JSON.parse(runs[0]?.stdout ?? '');
    expect(doc.traceClean).toBe(false);
    expect(new Set(doc.violations.map((v: { seed: number }) => v.seed))).toEqual(new Set([1, 2, 3, 4, 5]));
    expect(runs[1]?.stdout).toBe(runs[0]?.stdout);
    expect(runs[2]?.stdout).toBe(runs[0]?.stdout);
    // The text report too, and the in-process library report.
    await breathe();
    const text2 = (await mcusim('verify', orig, bad, '--seeds', '5', '--jobs', '2')).stdout;
    await breathe();
    expect(text2).toBe((await mcusim('verify', orig, bad, '--seeds', '5', '--jobs', '1')).stdout);
    expect(JSON.stringify(verifyModels(model, clobbered(), 5))).toBe(runs[0]?.stdout.trim());
  });
});

describe('the run order of verify --jobs', () => {
  it('models this thread refuses after the workers got them: one UsageError, every thread stopped', async () => {
    const threads = startVerifyThreads(2, 4);
    await expect(threads.run(buildZooModel('ds-cnn-kws'), buildZooModel('cifar10-cnn'), {})).rejects.toThrow(UsageError);
  });

  it('a worker\'s kernel feed: the batches in the order posted, then null; a stopped verification throws instead of waiting', () => {
    const { port1, port2 } = new MessageChannel();
    const posted = new Int32Array(new SharedArrayBuffer(4));
    const counter = newCounter();
    const feed = kernelFeed(port2, posted, counter);
    const batch = (key: string) => ({ original: [{ key, lowered: null, unsupported: 'x', module: null }], optimized: [] });
    for (const k of [batch('fast'), batch('traced'), null]) {
      port1.postMessage(k);
      Atomics.add(posted, 0, 1);
    }
    expect(feed()?.original[0]?.key).toBe('fast');
    expect(feed()?.original[0]?.key).toBe('traced');
    expect(feed()).toBeNull();
    Atomics.store(counter, STOP, 1);
    expect(() => feed()).toThrow(InternalError);
    port1.close();
    port2.close();
  });

  it('covers every seed\'s traced and reference run and the header once, a block\'s traced runs before its reference runs', () => {
    for (const seeds of [1, 2, 8, VERIFY_BLOCK_SEEDS, VERIFY_BLOCK_SEEDS + 1, 2 * VERIFY_BLOCK_SEEDS + 5]) {
      const order = Array.from({ length: verifyItems(seeds) }, (_, i) => verifyRunAt(i, seeds));
      const key = (r: VerifyRun): string => (r.kind === 'header' ? 'H' : `${r.kind}${r.seed}`);
      expect(new Set(order.map(key)).size).toBe(2 * seeds + 1);
      for (const r of order) if (r.kind !== 'header') expect(r.seed >= 1 && r.seed <= seeds).toBe(true);
      // A seed's reference run comes after its traced run, and no later than the end of its block:
      // at most one block of traced outputs waits for its reference.
      order.forEach((r, i) => {
        if (r.kind !== 'reference') return;
        const t = order.findIndex((x) => x.kind === 'traced' && x.seed === r.seed);
        expect(t).toBeLessThan(i);
        expect(i - t).toBeLessThan(2 * VERIFY_BLOCK_SEEDS);
      });
      // The header after the last traced run, and the last items are reference runs (short: they
      // even out when the threads finish).
      const h = order.findIndex((r) => r.kind === 'header');
      expect(order.map((r) => r.kind).lastIndexOf('traced')).toBe(h - 1);
      expect(order.slice(h + 1).every((r) => r.kind === 'reference')).toBe(true);
      expect(order.at(-1)?.kind).toBe('reference');
    }
    expect(Array.from({ length: 7 }, (_, i) => verifyRunAt(i, 3))).toEqual([
      { kind: 'traced', seed: 1 }, { kind: 'traced', seed: 2 }, { kind: 'traced', seed: 3 }, { kind: 'header' },
      { kind: 'reference', seed: 1 }, { kind: 'reference', seed: 2 }, { kind: 'reference', seed: 3 },
    ]);
  });
});
