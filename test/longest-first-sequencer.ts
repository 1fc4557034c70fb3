// vitest sequencer: the longest test files start first, so the two forks finish together (the
// longest file bounds the wall time; a long file started last would run alone at the end).
// A file's expected time is vitest's own cached duration from the previous local run when there is
// one, else the measured figure below (CI runs a clean clone: no cache), else 0 (small files, run
// last, largest first as vitest does by default).
import { relative } from 'node:path';
import { BaseSequencer } from 'vitest/node';
import type { TestSpecification } from 'vitest/node';

/**
 * Wall seconds of the heaviest files on a loaded 2-core machine (issue 15: measured in full runs
 * at load 14-16, split files pro rata to their tests; files not yet measured are estimates from
 * their model runs).
 * Only the order matters: a stale figure costs balance, never correctness.
 */
export const EXPECTED_SECONDS: Readonly<Record<string, number>> = {
  'test/report/report-chromium-mobilenet-v2.test.ts': 298,
  'test/cli/verify-storage-remote.test.ts': 195,
  'test/report/report-chromium-tiny-unet.test.ts': 148,
  'test/codegen/host-optimized.test.ts': 139,
  'test/cli/verify-storage-external.test.ts': 135,
  'test/cli/verify-jobs.test.ts': 135,
  'test/cli/verify-storage.test.ts': 130,
  'test/cli/verify-jobs-storage.test.ts': 120,
  'test/cli/latency.test.ts': 103,
  'test/kernels/property.test.ts': 102,
  'test/codegen/host-oracle.test.ts': 100,
  'test/report/report-chromium-person-detect.test.ts': 90,
  'test/codegen/host-zoo.test.ts': 90,
  'test/pack-install.test.ts': 90,
  'test/codegen/cortex-m7.test.ts': 81,
  'test/cli/verify.test.ts': 80,
  'test/kernels/emit-c-all.test.ts': 60,
  'test/optimizer/tinyseg/tinyseg-all-models.test.ts': 60,
  'test/ir/fuzz.test.ts': 51,
  'test/optimizer/auto-pass.test.ts': 50,
  'test/optimizer/real-models-passes.test.ts': 46,
  'test/optimizer/tinyseg/tinyseg.test.ts': 30,
  'test/kernels/elementwise.test.ts': 20,
  'test/kernels/data-movement.test.ts': 19,
  'test/kernels/transpose-conv.test.ts': 16,
  'test/api/api.test.ts': 16,
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
