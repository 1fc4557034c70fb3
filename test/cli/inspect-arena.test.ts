// `mcusim inspect --arch / --board` through the real bin: the whole-arena JSON (DESIGN.md §9), the
// text report, board fit with margins (person_detect fits the Nicla Vision's AXI SRAM,
// MobileNetV2 224 does not, and latency warns about it), both runtimes for a scratch-free
// TransposeConv file, and bad --arch / --board values refused with exit 2.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ORACLE_MODELS, itWithData } from '../oracle-paths.ts';
import { runMcusim, testTempDir } from './bin-helpers.ts';

const PERSON = join(ORACLE_MODELS, 'person_detect.tflite');
const MOBILENET = join(ORACLE_MODELS, 'mobilenet_v2_quantized_1x3x224x224.tflite');

describe('mcusim inspect --arch --board', () => {
  itWithData('models', 'reports TFLM\'s whole arena for the host build', async () => {
    const r = (await runMcusim(['inspect', PERSON, '--arch', 'host64', '--json']));
    expect(r.code).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.arena).toMatchObject({ plannedBytes: 55296, persistentBytes: 29728, totalBytes: 85024, outsideArenaBytes: 0 });
    expect(j.fit).toBeUndefined();
  });

  itWithData('models', 'defaults to the Cortex-M build and says it in text form', async () => {
    const j = JSON.parse((await runMcusim(['inspect', PERSON, '--json'])).stdout);
    expect(j.arena).toMatchObject({ arch: 'cortex-m', persistentBytes: 26996, totalBytes: 82292 });
    const text = (await runMcusim(['inspect', PERSON, '--ascii'])).stdout;
    expect(text).toMatch(/persistent: +26996 B/);
    expect(text).toMatch(/total: +82292 B/);
  });

  itWithData('models', 'says person_detect fits the board, with its margin', async () => {
    const j = JSON.parse((await runMcusim(['inspect', PERSON, '--board', 'nicla-vision', '--json'])).stdout);
    // The arena to declare (82,296 B: the tail's alignment needs 4 B beyond arena_used_bytes) must fit.
    expect(j.arena).toMatchObject({ runtime: 'tflm', kernels: 'reference', totalBytes: 82292, declareBytes: 82296 });
    expect(j.fit).toMatchObject({ board: 'nicla-vision', fits: true, ramBytes: 524288, marginBytes: 524288 - 82296, flashFits: true });
    const text = (await runMcusim(['inspect', PERSON, '--board', 'nicla-vision', '--ascii'])).stdout;
    expect(text).toContain('fits: 82296 B');
    expect(text).toContain('441992 B');
    expect(text).toContain('uint8_t tensor_arena[82296]');
  });

  itWithData('models', 'says MobileNetV2 224 does not fit (2.6 MB arena > 512 KB AXI SRAM)', async () => {
    const j = JSON.parse((await runMcusim(['inspect', MOBILENET, '--board', 'nicla-vision', '--json'])).stdout);
    expect(j.fit.fits).toBe(false);
    expect(j.fit.marginBytes).toBe(524288 - j.arena.declareBytes);
    expect(j.arena.totalBytes).toBe(2600548);
    expect((await runMcusim(['inspect', MOBILENET, '--board', 'nicla-vision', '--ascii'])).stdout).toContain('does NOT fit');
  });

  it('shows both runtimes, and stock TFLM with its own kernels, for a scratch-free TransposeConv file', async () => {
    const out = join(testTempDir('mcusim-arena-'), 'tu0.tflite');
    expect((await runMcusim(['optimize', 'zoo:tiny-unet', '--passes', 'tinyseg', '--spill-percent', '0', '-o', out, '--json'])).code).toBe(0);
    const j = JSON.parse((await runMcusim(['inspect', out, '--json'])).stdout);
    // Stock TFLM's TRANSPOSE_CONV requests its int32 scratch whatever the metadata says: the original plan.
    expect(j.runtimes.stockTflm).toMatchObject({ runtime: 'tflm', plannedBytes: 307200, totalBytes: 314068 });
    // With the generated kernels (codegen --tflm) TFLM runs the scratch-free form: the file's plan.
    expect(j.runtimes.tflm).toMatchObject({ runtime: 'tflm', kernels: 'reference', plannedBytes: j.plan.peakBytes });
    expect(j.runtimes.mcusim).toMatchObject({ runtime: 'mcusim', plannedBytes: j.plan.peakBytes, persistentBytes: 0 });
    expect(j.arena).toEqual(j.runtimes.tflm);
    expect(j.runtimes.mcusimKernels.join(' ')).toMatch(/transposeConv \(scratchFree\)/);
    const c = JSON.parse((await runMcusim(['inspect', out, '--runtime', 'mcusim', '--json'])).stdout);
    expect(c.arena).toEqual(j.runtimes.mcusim);
  });

  itWithData('models', 'makes latency warn on stderr when the model does not fit the board', async () => {
    const r = (await runMcusim(['latency', MOBILENET, '--json']));
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^warning: the model does not fit nicla-vision: arena 2600548 B > AXI SRAM 524288 B/);
    expect(JSON.parse(r.stdout).totalMs).toBeGreaterThan(0);
    expect((await runMcusim(['latency', PERSON, '--json', '--quiet'])).stderr).toBe('');
  });

  itWithData('models', 'refuses an unknown --arch or --board with exit 2', async () => {
    for (const args of [['--arch', 'arm64'], ['--board', 'nope']]) {
      const r = (await runMcusim(['inspect', PERSON, '--json', ...args]));
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/E_USAGE/);
    }
  });
});
