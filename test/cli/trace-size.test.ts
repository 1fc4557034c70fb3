// Issue 14 item 3: `run --trace-out` estimates the dump before the run (the kernels' cost walk bounds
// the arena accesses; one dump line each), refuses above 1 GB without --force, and states the
// estimate on stderr when it writes. The estimate is checked against a real dump.
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadModel } from '../../src/cli/load-model.ts';
import { ORACLE_MODELS, itWithData } from '../oracle-paths.ts';
import { preparePlannedModel } from '../../src/optimizer/index.ts';
import { estimateTraceDump } from '../../src/cli/trace-estimate.ts';
import type { BinRun } from './bin-helpers.ts';
import { runMcusim, testTempDir } from './bin-helpers.ts';

const tmp = testTempDir('mcusim-trace-size-');
const mcusim = (...args: string[]): Promise<BinRun> => runMcusim(args, 300_000);

describe('run --trace-out size', () => {
  it('refuses a dump estimated over 1 GB without --force, naming the estimate, before running', async () => {
    const dump = join(tmp, 'tu.csv');
    const r = (await mcusim('run', 'zoo:tiny-unet', '--trace-out', dump));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^E_USAGE: --trace-out '.*tu\.csv': about [\d.]+ GB \(at most [\d,]+ arena accesses, one line each\) is over 1\.0 GB; add --force/);
    expect(r.stderr).not.toMatch(/op \d+\//);
    expect(existsSync(dump)).toBe(false);
  });

  itWithData('models', 'states the estimate when it writes, and the estimate matches the real dump within 5%', async () => {
    for (const [model, name] of [['hello_world_int8', 'hw.jsonl'], ['simple_add_model', 'add.csv']] as const) {
      const file = `${ORACLE_MODELS}/${model}.tflite`;
      const dump = join(tmp, name);
      const r = (await mcusim('run', file, '--trace-out', dump));
      expect(r.code, r.stderr).toBe(0);
      const m = /writing --trace-out '.*': about ([\d.]+) (MB|KB)/.exec(r.stderr);
      expect(m, r.stderr).not.toBeNull();
      const pm = preparePlannedModel(loadModel(file));
      const est = estimateTraceDump(pm.graph, name.endsWith('.csv') ? 'csv' : 'jsonl', pm.arenaBytes);
      const real = statSync(dump).size;
      expect(est.bytes / real).toBeGreaterThan(0.95);
      expect(est.bytes / real).toBeLessThan(1.05);
    }
  });
});
