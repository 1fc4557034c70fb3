// Optimized files with mcusim's custom ops in REAL TFLM (issue 45): scripts/run-tflm.sh links the
// kernels `codegen --tflm` writes and runner.cc with the libtensorflow-microlite.a that
// scripts/build-tflm.sh built in MCUSIM_TFLM_DIR (built once per machine, never here), runs the
// file on seeded inputs and checks outputs == `mcusim run` == the original model's, and
// arena_used_bytes == `inspect --runtime tflm --arch host64`. Skipped, loudly, without the tree
// or its library, or without a built CLI (dist/).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildZooModel, exportTflite, importTflite } from '../../../src/ir/index.ts';
import type { Model } from '../../../src/ir/index.ts';
import { runPipeline } from '../../../src/optimizer/index.ts';
import { makeTempDir, removeDir } from '../codegen-helpers.ts';
import { microliteLib, tflmTree } from './tflm-helpers.ts';

const ROOT = join(import.meta.dirname, '../../..');
const KWS = join(ROOT, '../shared/oracle/models-real/mltk_kws_mobilenetv2.tflite');
const tree = tflmTree();
const lib = tree === null ? null : microliteLib(tree);
const built = existsSync(join(ROOT, 'dist/index.js'));
const skip = tree === null ? 'MCUSIM_TFLM_DIR not set' : lib === null ? `no libtensorflow-microlite.a in ${tree}/gen (run scripts/build-tflm.sh)` : built ? null : 'dist/ not built (npm run build)';
if (skip !== null) console.warn(`\n*** SKIPPING the real-TFLM tests of codegen --tflm: ${skip} ***\n`);

type Flags = Readonly<Record<string, boolean>>;
const CASES: readonly { readonly name: string; readonly original: () => Model; readonly passes: readonly string[]; readonly flags: Flags }[] = [
  { name: 'zoo:tiny-unet + tinyseg (Spill, FusedConv2D, scratch-free TRANSPOSE_CONV)', original: () => buildZooModel('tiny-unet'), passes: ['tinyseg'], flags: {} },
  { name: 'zoo:tiny-unet + tinyseg fusedFetching=false (Spill, Fetching)', original: () => buildZooModel('tiny-unet'), passes: ['tinyseg'], flags: { fusedFetching: false } },
  { name: 'mltk_kws_mobilenetv2 + fdt (MergeAccumulators)', original: () => importTflite(readFileSync(KWS)), passes: ['fdt'], flags: {} },
];

describe.skipIf(skip !== null)('codegen --tflm in real TFLM (host)', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach(removeDir));
  for (const c of CASES) {
    it(`${c.name}: outputs = mcusim run = original, arena_used_bytes = inspect --runtime tflm`, async () => {
      const dir = makeTempDir('tflm-real');
      dirs.push(dir);
      const original = c.original();
      const file = join(dir, 'optimized.tflite');
      const orig = join(dir, 'original.tflite');
      writeFileSync(orig, exportTflite(original));
      writeFileSync(file, exportTflite(runPipeline(original, c.passes, { flags: c.flags }).model));
      let out = '';
      try {
        // Asynchronous: a minute-long synchronous child would starve the vitest worker's RPC.
        out = (await promisify(execFile)('bash', [join(ROOT, 'scripts/run-tflm.sh'), file, orig, '1'], { encoding: 'utf8', env: { ...process.env, MCUSIM_TFLM_DIR: tree ?? '' } })).stdout;
      } catch (e) {
        const err = e as { stdout?: string; stderr?: string };
        throw new Error(`run-tflm.sh failed:\n${err.stdout ?? ''}${err.stderr ?? ''}`);
      }
      console.log(out.trim());
      expect(out).toMatch(/outputs identical (\d+)\/\1 .* arena_used_bytes (\d+), predicted \2 \(equal\)/);
    }, 600_000);
  }
});
