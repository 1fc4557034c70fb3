// A file's own kernel library (the like-with-like issue, item 3): a plan recorded for CMSIS-NN is
// read with CMSIS-NN by every command without --kernels; naming a library its plan breaks with is
// E_PLAN_LIBRARY, exit 1, naming the library the plan was made for, the op and the tensors.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runMcusim, testTempDir } from './bin-helpers.ts';

describe('a file read with the library its plan records', () => {
  const dir = testTempDir('mcusim-plan-library-');
  const file = join(dir, 'vww-dmo-cmsis.tflite');

  it('inspect, run and verify read a cmsis-nn DMO file with cmsis-nn; --kernels reference is refused naming the op', async () => {
    const made = await runMcusim(['optimize', 'zoo:mlperf-vww', '--passes', 'dmo', '--kernels', 'cmsis-nn', '--cpu', 'cortex-m7', '-o', file, '-q']);
    expect(made.code, made.stderr).toBe(0);
    const own = await runMcusim(['inspect', file, '--json', '-q']);
    expect(own.code, own.stderr).toBe(0);
    const j = JSON.parse(own.stdout) as { kernels: string; cpu: string; arena: { kernels: string; runtime: string } };
    expect([j.kernels, j.cpu, j.arena.kernels, j.arena.runtime]).toEqual(['cmsis-nn', 'cortex-m7', 'cmsis-nn', 'tflm']);
    const other = await runMcusim(['inspect', file, '--kernels', 'reference', '--json', '-q']);
    expect(other.code).toBe(1);
    expect(other.stdout).toBe('');
    expect(other.stderr).toMatch(/^E_PLAN_LIBRARY: .*'s plan was made for the cmsis-nn \(cortex-m7\) kernels and breaks with reference: op \d+ \(\w+\): input tensor \d+ '.*' and output tensor \d+ '.*' share [\d,]+ B, where reference's access order allows [\d,]+ B/);
    const run = await runMcusim(['run', file, '--kernels', 'reference', '-q']);
    expect([run.code, run.stderr.split(':')[0]]).toEqual([1, 'E_PLAN_LIBRARY']);
    // The same code path on another DSP core reads it as planned.
    expect((await runMcusim(['inspect', file, '--kernels', 'cmsis-nn', '--cpu', 'cortex-m4', '--json', '-q'])).code).toBe(0);
    const v = await runMcusim(['verify', 'zoo:mlperf-vww', file, '--seeds', '1', '--json', '-q']);
    expect(v.code, v.stderr).toBe(0);
    expect(JSON.parse(v.stdout)).toMatchObject({ kernels: 'cmsis-nn', cpu: 'cortex-m7', plannedForMismatch: false, identical: true, traceClean: true });
  }, 600_000);
});
