// --kernels / --cpu on the CLI: usage errors exit 2 with E_USAGE, every --json names the library
// and CPU, and overlap --kernels cmsis-nn reports the library's O_s beside the reference one.
import { describe, expect, it } from 'vitest';
import { ORACLE_MODELS, itWithData } from '../oracle-paths.ts';
import { runMcusim } from './bin-helpers.ts';
import type { BinRun } from './bin-helpers.ts';

const mcusim = (...args: string[]): Promise<BinRun> => runMcusim(args);
const HELLO = `${ORACLE_MODELS}/hello_world_int8.tflite`;

describe('--kernels and --cpu', () => {
  itWithData('models', 'refuses an unknown library, an unknown CPU and --cpu without cmsis-nn (exit 2, E_USAGE)', async () => {
    for (const args of [['--kernels', 'arm'], ['--kernels', 'cmsis-nn', '--cpu', 'cortex-a53'], ['--cpu', 'cortex-m7']]) {
      const r = await mcusim('inspect', HELLO, ...args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toContain('E_USAGE');
    }
  });

  itWithData('models', 'inspect and run name the library and CPU; the CMSIS-NN build keeps more persistent data for fully connected', async () => {
    const ref = JSON.parse((await mcusim('inspect', HELLO, '--arch', 'cortex-m', '--json')).stdout);
    const cmsis = JSON.parse((await mcusim('inspect', HELLO, '--kernels', 'cmsis-nn', '--arch', 'cortex-m', '--cpu', 'cortex-m7', '--json')).stdout);
    expect([ref.kernels, ref.cpu, cmsis.kernels, cmsis.cpu]).toEqual(['reference', null, 'cmsis-nn', 'cortex-m7']);
    // Three FULLY_CONNECTED ops, each OpData 48 -> 80 B in the 16-aligned tail.
    expect(cmsis.arena.persistentBytes - ref.arena.persistentBytes).toBe(96);
    const run = JSON.parse((await mcusim('run', HELLO, '--kernels', 'cmsis-nn', '--json', '-q')).stdout);
    expect([run.kernels, run.cpu]).toEqual(['cmsis-nn', 'cortex-m7']);
  });

  it('overlap --kernels cmsis-nn gives the library O_s beside the reference one (no analytic for its own spec)', async () => {
    const r = await mcusim('overlap', '--op', 'maxPool2d', '--input', '1x8x8x8', '--filter', '2x2', '--stride', '2', '--kernels', 'cmsis-nn', '--cpu', 'cortex-m55', '--json');
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect([doc.kernels, doc.cpu]).toEqual(['cmsis-nn', 'cortex-m55']);
    expect(Object.keys(doc.os).sort()).toEqual(['algorithmic', 'trace']);
    expect(Object.keys(doc.referenceOs).sort()).toEqual(['algorithmic', 'analytic', 'trace']);
    expect(doc.os.trace).toBe(doc.os.algorithmic);
  });
});
