// Optimized files with mcusim's custom ops in REAL TFLM (issue 45): scripts/run-tflm.sh links the
// kernels `codegen --tflm` writes and runner.cc with the libtensorflow-microlite.a that
// scripts/build-tflm.sh built in MCUSIM_TFLM_DIR (built once per machine, never here), runs the
// file on seeded inputs and checks outputs == `mcusim run` == the original model's, and
// arena_used_bytes == `inspect --runtime tflm --arch host64` (host) or `--arch cortex-m` (Cortex-M7
// build under QEMU mps2-an500). The TFLM + CMSIS-NN build (MCUSIM_TFLM_KERNEL_LIB=cmsis-nn, Cortex-M7)
// runs files made with --kernels cmsis-nn (kernels from `codegen --tflm --kernels cmsis-nn`): outputs
// == `mcusim run --kernels cmsis-nn` == the original's on that same real build, arena_used_bytes ==
// `inspect --runtime tflm --kernels cmsis-nn`. Skipped, loudly, without the tree or its library,
// without a built CLI (dist/), or (Cortex-M7) without arm-none-eabi-g++ / qemu-system-arm.
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildZooModel, exportTflite, importTflite } from '../../../src/ir/index.ts';
import { kernelRegistry } from '../../../src/kernels/index.ts';
import type { Model } from '../../../src/ir/index.ts';
import { runPipeline } from '../../../src/optimizer/index.ts';
import { makeTempDir, removeDir } from '../codegen-helpers.ts';
import { microliteLib, tflmTree } from './tflm-helpers.ts';
import { ORACLE } from '../../oracle-paths.ts';

const ROOT = join(import.meta.dirname, '../../..');
const KWS = join(ORACLE, 'models-real/mltk_kws_mobilenetv2.tflite');
const MCUNET_DET = join(ORACLE, 'models-real/mcunet_detection.tflite');
const tree = tflmTree();
const lib = tree === null ? null : microliteLib(tree);
const built = existsSync(join(ROOT, 'dist/index.js'));
const skip = tree === null ? 'MCUSIM_TFLM_DIR not set' : lib === null ? `no libtensorflow-microlite.a in ${tree}/gen (run scripts/build-tflm.sh)` : built ? null : 'dist/ not built (npm run build)';
if (skip !== null) console.warn(`\n*** SKIPPING the real-TFLM tests of codegen --tflm: ${skip} ***\n`);

type Flags = Readonly<Record<string, boolean>>;
type Case = {
  readonly name: string; readonly original: () => Model; readonly passes: readonly string[]; readonly flags: Flags;
  /** The device `codegen --storage` lays Spill blocks out for (run-tflm.sh --storage; default internal). */
  readonly storage?: 'internal' | 'external';
  /** The kernel library the file is optimized for and run with (default reference). */
  readonly kernels?: 'cmsis-nn';
};
const tinyUnet = (): Model => buildZooModel('tiny-unet');
const kws = (): Model => importTflite(readFileSync(KWS));
const mcunetDet = (): Model => importTflite(readFileSync(MCUNET_DET));
/** TinySeg on Nicla Vision's internal flash (128 KB sectors, 32-byte flash words; the runner's RAM device enforces its NOR rules). */
const TINYSEG_INTERNAL: Case = { name: 'zoo:tiny-unet + tinyseg, internal flash (Spill, FusedConv2D, scratch-free TRANSPOSE_CONV)', original: tinyUnet, passes: ['tinyseg'], flags: {}, storage: 'internal' };
const AUTO_INTERNAL: Case = { name: 'zoo:tiny-unet + auto, internal flash (Spill, FusedConv2D, scratch-free TRANSPOSE_CONV)', original: tinyUnet, passes: ['auto'], flags: {}, storage: 'internal' };
const KWS_FDT: Case = { name: 'mltk_kws_mobilenetv2 + fdt (MergeAccumulators)', original: kws, passes: ['fdt'], flags: {} };
const CASES: readonly Case[] = [
  TINYSEG_INTERNAL,
  AUTO_INTERNAL,
  { name: 'zoo:tiny-unet + tinyseg, QSPI NOR (external: 4 KB sectors, 256-byte pages)', original: tinyUnet, passes: ['tinyseg'], flags: {}, storage: 'external' },
  { name: 'zoo:tiny-unet + tinyseg fusedFetching=false (Spill, Fetching)', original: tinyUnet, passes: ['tinyseg'], flags: { fusedFetching: false } },
  KWS_FDT,
];

const onPath = (tool: string): boolean => {
  try {
    execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};
const libM7 = tree === null ? null : microliteLib(tree, 'cortex-m');
const tools = ['arm-none-eabi-g++', 'qemu-system-arm'].filter((t) => !onPath(t));
const skipM7 = skip ?? (tools.length > 0 ? `${tools.join(', ')} not found`
  : libM7 === null ? `no Cortex-M7 libtensorflow-microlite.a in ${tree}/gen (run MCUSIM_TFLM_TARGET=cortex-m7 scripts/build-tflm.sh)` : null);
if (skipM7 !== null && skip === null) console.warn(`\n*** SKIPPING the real-TFLM Cortex-M7 (QEMU) tests of codegen --tflm: ${skipM7} ***\n`);

/** The Cortex-M7 acceptance: TinySeg and auto on internal flash, FDT on both real models. */
const CASES_M7: readonly Case[] = [
  TINYSEG_INTERNAL,
  AUTO_INTERNAL,
  KWS_FDT,
  { name: 'mcunet_detection + fdt (MergeAccumulators)', original: mcunetDet, passes: ['fdt'], flags: {} },
];

const libCmsis = tree === null ? null : microliteLib(tree, 'cortex-m', 'cmsis-nn');
const skipCmsis = skipM7 ?? (libCmsis === null
  ? `no TFLM + CMSIS-NN libtensorflow-microlite.a in ${tree}/gen (run MCUSIM_TFLM_TARGET=cortex-m7 MCUSIM_TFLM_KERNEL_LIB=cmsis-nn [MCUSIM_CMSIS_NN_DIR=DIR] scripts/build-tflm.sh)` : null);
if (skipCmsis !== null && skipM7 === null) console.warn(`\n*** SKIPPING the real TFLM + CMSIS-NN (Cortex-M7, QEMU) tests of codegen --tflm --kernels cmsis-nn: ${skipCmsis} ***\n`);

/**
 * The CMSIS-NN acceptance: files made with --kernels cmsis-nn --cpu cortex-m7, each with mcusim
 * custom ops (checked: with --runtime tflm, fdt and tiling keep these two models builtin-only).
 */
const cmsis = (name: string, original: () => Model, passes: readonly string[]): Case => ({ name: `${name} (--kernels cmsis-nn)`, original, passes, flags: {}, kernels: 'cmsis-nn' });
const CASES_CMSIS: readonly Case[] = [
  { ...cmsis('zoo:tiny-unet + tinyseg, internal flash (Spill, FusedConv2D)', tinyUnet, ['tinyseg']), storage: 'internal' },
  { ...cmsis('zoo:tiny-unet + auto, internal flash', tinyUnet, ['auto']), storage: 'internal' },
  cmsis('mcunet_detection + fdt (MergeAccumulators)', mcunetDet, ['fdt']),
  cmsis('mcunet_detection + tiling', mcunetDet, ['tiling']),
  cmsis('mcunet_detection + auto', mcunetDet, ['auto']),
  cmsis('mltk_kws_mobilenetv2 + fdt (MergeAccumulators)', kws, ['fdt']),
  cmsis('mltk_kws_mobilenetv2 + auto', kws, ['auto']),
  cmsis('mltk_kws_mobilenetv2 + tiling', kws, ['tiling']),
];

async function runTflm(c: Case, arch: 'host64' | 'cortex-m', dirs: string[]): Promise<string> {
  const dir = makeTempDir('tflm-real');
  dirs.push(dir);
  const original = c.original();
  const file = join(dir, 'optimized.tflite');
  const orig = join(dir, 'original.tflite');
  writeFileSync(orig, exportTflite(original));
  const registry = c.kernels === undefined ? {} : { registry: kernelRegistry(c.kernels, 'cortex-m7') };
  const optimized = runPipeline(original, c.passes, { flags: c.flags, ...registry }).model;
  expect(optimized.graph.ops.some((op) => ['merge', 'spill', 'fetching', 'fetchingConv2d'].includes(op.kind)), `${c.name}: no mcusim custom op`).toBe(true);
  writeFileSync(file, exportTflite(optimized));
  try {
    // Asynchronous: a minute-long synchronous child would starve the vitest worker's RPC.
    const args = [join(ROOT, 'scripts/run-tflm.sh'), '--arch', arch, '--kernels', c.kernels ?? 'reference', '--storage', c.storage ?? 'internal', file, orig, '1'];
    return (await promisify(execFile)('bash', args, { encoding: 'utf8', env: { ...process.env, MCUSIM_TFLM_DIR: tree ?? '' } })).stdout;
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string };
    throw new Error(`run-tflm.sh --arch ${arch} failed:\n${err.stdout ?? ''}${err.stderr ?? ''}`);
  }
}

const AGREES = /outputs identical (\d+)\/\1 .* arena_used_bytes (\d+), predicted \2 \(equal\)/;
/** The runner's storage line: the device geometry codegen laid the blocks out for, and at least one erase and program. */
const STORAGE = {
  internal: /storage internal \(RAM device, 131072 B sectors, 32 B program units: [1-9]\d* erase\(s\), [1-9]\d* program\(s\)/,
  external: /storage external \(RAM device, 4096 B sectors, 256 B program units: [1-9]\d* erase\(s\), [1-9]\d* program\(s\)/,
} as const;

describe.skipIf(skip !== null)('codegen --tflm in real TFLM (host)', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach(removeDir));
  for (const c of CASES) {
    it(`${c.name}: outputs = mcusim run = original, arena_used_bytes = inspect --runtime tflm`, async () => {
      const out = await runTflm(c, 'host64', dirs);
      console.log(out.trim());
      expect(out).toMatch(AGREES);
      if (c.storage !== undefined) expect(out).toMatch(STORAGE[c.storage]);
    }, 600_000);
  }
});

describe.skipIf(skipM7 !== null)('codegen --tflm in real TFLM (Cortex-M7, QEMU mps2-an500)', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach(removeDir));
  for (const c of CASES_M7) {
    it(`${c.name}: outputs = mcusim run = original, arena_used_bytes = inspect --runtime tflm --arch cortex-m`, async () => {
      const out = await runTflm(c, 'cortex-m', dirs);
      console.log(out.trim());
      expect(out).toMatch(/\(cortex-m, reference\)/);
      expect(out).toMatch(AGREES);
      if (c.storage !== undefined) expect(out).toMatch(STORAGE[c.storage]);
    }, 1_800_000);
  }
});

describe.skipIf(skipCmsis !== null)('codegen --tflm --kernels cmsis-nn in real TFLM + CMSIS-NN (Cortex-M7, QEMU mps2-an500)', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach(removeDir));
  for (const c of CASES_CMSIS) {
    it(`${c.name}: outputs = mcusim run --kernels cmsis-nn = original on that build, arena_used_bytes = inspect --runtime tflm --kernels cmsis-nn`, async () => {
      const out = await runTflm(c, 'cortex-m', dirs);
      console.log(out.trim());
      expect(out).toMatch(/\(cortex-m, cmsis-nn\): outputs identical \d+\/\d+ \(TFLM = mcusim run = original = original on this TFLM build\)/);
      expect(out).toMatch(AGREES);
      if (c.storage !== undefined) expect(out).toMatch(STORAGE[c.storage]);
    }, 1_800_000);
  }
});
