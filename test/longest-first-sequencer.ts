// vitest sequencer: the longest test files start first, so the two forks finish together (the
// longest file bounds the wall time; a long file started last would run alone at the end).
// A file's expected time is vitest's own cached duration from the previous local run when there is
// one, else the measured figure below (CI runs a clean clone: no cache), else 0 (small files, run
// last, largest first as vitest does by default).
import { relative } from 'node:path';
import { BaseSequencer } from 'vitest/node';
import type { TestSpecification } from 'vitest/node';

/**
 * Wall seconds of the heaviest files in `bash .ci/run` on 2 cores with a busy loop beside it
 * (issue 15; 2026-11-26, the kernel property test estimated after its kernels moved to V8's
 * baseline tier). Only the order matters: a stale figure costs balance, never correctness.
 */
export const EXPECTED_SECONDS: Readonly<Record<string, number>> = {
  'test/ir/fuzz.test.ts': 112,
  'test/kernels/property.test.ts': 100,
  'test/pack-install.test.ts': 83,
  'test/codegen/cmsis-nn-port.test.ts': 60,
  'test/codegen/host-compressed.test.ts': 54,
  'test/codegen/cortex-m7.test.ts': 35,
  'test/optimizer/total-guard.test.ts': 30,
  'test/kernels/emit-c-all.test.ts': 29,
  'test/cli/worker-pool.test.ts': 27,
  'test/cli/latency.test.ts': 27,
  'test/optimizer/overlap/safe-overlap.test.ts': 24,
  'test/cli/progress.test.ts': 23,
  'test/cli/flag-rules.test.ts': 22,
  'test/optimizer/arena-totals.test.ts': 21,
  'test/cli/flag-names.test.ts': 21,
  'test/report/report-chromium-mobilenet-v2.test.ts': 20,
  'test/kernels/elementwise.test.ts': 18,
  'test/cli/verify-jobs.test.ts': 18,
  'test/report/report-chromium-tiny-unet.test.ts': 17,
  'test/optimizer/auto-pass.test.ts': 17,
  'test/cli/verify-jobs-storage.test.ts': 17,
  'test/report/report-chromium-person-detect.test.ts': 15,
  'test/kernels/data-movement.test.ts': 14,
  'test/cli/optimize.test.ts': 14,
  'test/codegen/host-optimized.test.ts': 13,
  'test/cli/verify-storage.test.ts': 13,
  'test/cli/run.test.ts': 13,
  'test/cli/inspect-arena.test.ts': 13,
  'test/sim/conformance.test.ts': 12,
  'test/kernels/transpose-conv.test.ts': 12,
  'test/cli/target-gap.test.ts': 12,
};

export function expectedMs(file: string, cachedMs: number | undefined): number {
  return cachedMs ?? (EXPECTED_SECONDS[file] ?? 0) * 1000;
}

export default class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const cache = this.ctx.cache;
    // vitest's default order (cached failures first, then longest; unknown files by size) breaks ties.
    const base = await super.sort(files);
    const rank = new Map(base.map((f, i) => [f, i]));
    const estimate = (f: TestSpecification): number => {
      const file = relative(root, f.moduleId);
      return expectedMs(file, cache.getFileTestResults(`${f.project.name}:${file}`)?.duration);
    };
    const ms = new Map(files.map((f) => [f, estimate(f)]));
    return [...files].sort((a, b) => (ms.get(b) ?? 0) - (ms.get(a) ?? 0) || (rank.get(a) ?? 0) - (rank.get(b) ?? 0));
  }
}
