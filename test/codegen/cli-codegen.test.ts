// Spawns the real bin for `mcusim codegen`: one JSON document with --json, the project files on
// disk (regenerating into a second folder gives identical bytes), exit 2 with a coded message
// for a bad target, a bad planner or a missing -o; --kernels cmsis-nn names the library and warns
// about a file planned for the reference kernels.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { BinRun } from '../cli/bin-helpers.ts';
import { runMcusim } from '../cli/bin-helpers.ts';
import { ORACLE_MODELS, itWithData } from '../oracle-paths.ts';
import { PLAN_KERNELS_METADATA_NAME, exportTflite, importTflite } from '../../src/ir/index.ts';
import { makeTempDir, removeDir } from './codegen-helpers.ts';

const HELLO = `${ORACLE_MODELS}/hello_world_int8.tflite`;
const tmp = makeTempDir('cg-cli');
afterAll(() => removeDir(tmp));

const mcusim = (...args: string[]): Promise<BinRun> => runMcusim(args);

describe('mcusim codegen', () => {
  itWithData('models', 'writes the project, prints one JSON document and regenerates identical bytes', async () => {
    const a = (await mcusim('codegen', HELLO, '-o', join(tmp, 'a'), '--target', 'cortex-m7', '--json'));
    expect(a.stderr).toBe('');
    expect(a.code).toBe(0);
    const doc = JSON.parse(a.stdout);
    expect(doc).toMatchObject({ target: 'cortex-m7', planner: 'tflm-greedy', ops: 3, inputBytes: [1], outputBytes: [1] });
    expect(doc.files).toContain('src/model.c');
    expect(readFileSync(join(tmp, 'a', 'Makefile'), 'utf8')).toContain('all: cortex-m7');
    const b = (await mcusim('codegen', HELLO, '-o', join(tmp, 'b'), '--target', 'cortex-m7'));
    expect(b.code).toBe(0);
    for (const f of doc.files as string[]) expect(readFileSync(join(tmp, 'b', f)).equals(readFileSync(join(tmp, 'a', f))), f).toBe(true);
  });

  it('--kernels cmsis-nn names the library in the JSON and text; a file recorded for the reference kernels is refused, an unrecorded one gets run\'s warning', async () => {
    const dmo = join(tmp, 'kws-dmo.tflite');
    expect((await mcusim('optimize', 'zoo:ds-cnn-kws', '--passes', 'dmo', '-o', dmo, '--quiet')).code).toBe(0);
    const refused = await mcusim('codegen', dmo, '--kernels', 'cmsis-nn', '--cpu', 'cortex-m7', '--out-dir', join(tmp, 'kws-refused'), '--json', '--quiet');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^E_PLAN_LIBRARY: .*made for the reference kernels and breaks with cmsis-nn \(cortex-m7\): op \d+ \(\w+\): input tensor \d+ '.*' and output tensor \d+ '.*' share [\d,]+ B, where cmsis-nn's access order allows [\d,]+ B/);
    // A file without the record (an older mcusim, another tool) is taken as reference-planned: a warning.
    const bare = join(tmp, 'kws-dmo-unrecorded.tflite');
    const m = importTflite(new Uint8Array(readFileSync(dmo)));
    writeFileSync(bare, exportTflite({ ...m, metadata: m.metadata.filter((x) => x.name !== PLAN_KERNELS_METADATA_NAME) }));
    const r = await mcusim('codegen', bare, '--kernels', 'cmsis-nn', '--cpu', 'cortex-m7', '--out-dir', join(tmp, 'kws-cmsis'), '--json', '--quiet');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^warning: the plan is safe for the reference kernels only; with cmsis-nn \(cortex-m7\) kernels/);
    const doc = JSON.parse(r.stdout);
    expect(doc).toMatchObject({ kernels: 'cmsis-nn', cpu: 'cortex-m7', kernelsDescription: 'cmsis-nn (cortex-m7: DSP)' });
    expect(doc.planHazard).toMatch(/safe for the reference kernels only/);
    const text = await mcusim('codegen', 'zoo:ds-cnn-kws', '--kernels', 'cmsis-nn', '--out-dir', join(tmp, 'kws-text'), '--quiet');
    expect(text.code, text.stderr).toBe(0);
    expect(text.stderr).toBe('');
    expect(text.stdout).toContain('kernels: cmsis-nn (cortex-m7: DSP)');
    const ref = await mcusim('codegen', dmo, '--out-dir', join(tmp, 'kws-ref'), '--json', '--quiet');
    expect(ref.stderr).toBe('');
    expect(JSON.parse(ref.stdout).planHazard).toBeUndefined();
  });

  itWithData('models', 'exits 2 with a coded message for bad arguments', async () => {
    for (const args of [['--target', 'riscv'], ['--planner', 'nope'], []]) {
      const r = (await mcusim('codegen', HELLO, ...(args.length ? ['-o', join(tmp, 'bad'), ...args] : [])));
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/^E_[A-Z_]+: /);
    }
  });

  itWithData('models', '--storage and --compress: the spill slots of a TinySeg model go MFV-compressed to the chosen flash; refused where they cannot apply', async () => {
    const tu = join(tmp, 'tu.tflite');
    expect((await mcusim('optimize', 'zoo:tiny-unet', '--passes', 'tinyseg', '-o', tu, '--quiet')).code).toBe(0);
    const json = async (dir: string, ...flags: string[]): Promise<{ storageSlots: number; ioUnitBytes: number; header: string }> => {
      const r = await mcusim('codegen', tu, '--out-dir', join(tmp, dir), '--json', '--quiet', ...flags);
      expect(r.code, r.stderr).toBe(0);
      return { ...JSON.parse(r.stdout), header: readFileSync(join(tmp, dir, 'src', 'model.h'), 'utf8') };
    };
    const plain = await json('tu-plain');
    const mfv = await json('tu-mfv', '--storage', 'external', '--compress');
    expect(plain.storageSlots).toBeGreaterThan(0);
    expect(plain.header).not.toContain('MODEL_STORAGE_MFV');
    expect(mfv.header).toContain('MODEL_STORAGE_MFV');
    // nicla-vision's QSPI flash programs 256-B pages, its internal flash 32-B words.
    expect([plain.ioUnitBytes, mfv.ioUnitBytes]).toEqual([32, 256]);
    for (const [args, pattern] of [
      [[tu, '--storage', 'remote'], /--storage must be internal or external/],
      [[HELLO, '--compress'], /^E_USAGE: --compress does not apply: the model spills no tensor/],
      [[HELLO, '--storage', 'external'], /^E_USAGE: --storage does not apply/],
    ] as const) {
      const r = await mcusim('codegen', ...args, '--out-dir', join(tmp, 'refused'));
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(pattern);
    }
  });
});
