// `codegen --tflm` without a TFLM build: the generated folder (header, registrations, sites) for
// optimized files with every kind of mcusim op, its C compiled with cc -std=c99 -Werror, its C++
// checked with g++ -fsyntax-only against stand-ins of the TFLM headers it includes (a syntax check
// only, NOT proof it links or runs: the recorded real-TFLM runs are, tflm-replay.test.ts), and the
// arena prediction's shape (one McusimOpData per custom op; a stock-only file predicts stock TFLM).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generateTflmKernels } from '../../../src/codegen/index.ts';
import type { Model } from '../../../src/ir/index.ts';
import { buildZooModel, exportTflite, importTflite, readOfflinePlan } from '../../../src/ir/index.ts';
import { runPipeline } from '../../../src/optimizer/index.ts';
import { inspectModel } from '../../../src/api/index.ts';
import { ORACLE, itWithData } from '../../oracle-paths.ts';
import { getTflmArch, modelPersistent } from '../../../src/sim/index.ts';
import { kernelRegistry } from '../../../src/kernels/index.ts';
import { hasTool, makeTempDir, removeDir } from '../codegen-helpers.ts';
import { STAND_IN_HEADERS } from './stand-in-headers.ts';
import { TFLM_CXXFLAGS, optimizedFile, writeKernels } from './tflm-helpers.ts';

const KWS = join(ORACLE, 'models-real/mltk_kws_mobilenetv2.tflite');
const hasCc = hasTool('cc') && hasTool('g++');
if (!hasCc) console.warn('cc or g++ not found: SKIPPING the compile checks of codegen --tflm');

interface Case {
  readonly name: string;
  readonly model: () => Model;
  readonly kinds: readonly string[];
  readonly customCodes: readonly string[];
  /** Parts of the oracle folder the case reads (none for zoo models). */
  readonly data?: readonly string[];
}

const CASES: readonly Case[] = [
  {
    name: 'zoo:tiny-unet + tinyseg',
    model: () => optimizedFile('tiny-unet', ['tinyseg']).model,
    kinds: ['spill', 'fetchingConv2d', 'transposeConv'],
    customCodes: ['Spill', 'FusedConv2D'],
  },
  {
    name: 'zoo:tiny-unet + tinyseg fusedFetching=false',
    model: () => importTflite(exportTflite(runPipeline(buildZooModel('tiny-unet'), ['tinyseg'], { flags: { fusedFetching: false } }).model)),
    kinds: ['spill', 'fetching', 'transposeConv'],
    customCodes: ['Spill', 'Fetching'],
  },
  {
    // Scored on the C port, where MergeAccumulators costs no TFLM tail: the fdt search picks merges
    // (on the TFLM total FDT keeps this model builtin-only: testdata/real-builds/tflm).
    name: 'mltk_kws_mobilenetv2 + fdt (C-port scored)',
    data: ['models-real/mltk_kws_mobilenetv2.tflite'],
    model: () => importTflite(exportTflite(runPipeline(importTflite(readFileSync(KWS)), ['fdt'], { flags: {}, runtime: 'mcusim' }).model)),
    kinds: ['merge'],
    customCodes: ['MergeAccumulators'],
  },
];

// Asynchronous: a compile taking a minute on a busy machine must not starve the vitest worker's RPC.
const run = promisify(execFile);

async function compileAll(dir: string): Promise<void> {
  for (const c of ['mcusim_kernels.c', 'mcusim_storage_ram.c', 'mcusim_storage_host.c']) {
    await run('cc', ['-std=c99', '-O1', '-Wall', '-Wextra', '-Werror', '-fno-strict-aliasing', '-c', c, '-o', `${c}.o`], { cwd: dir });
  }
  await run('g++', [...TFLM_CXXFLAGS, '-fsyntax-only', '-I.', '-Istand-in', 'mcusim_ops.cc'], { cwd: dir });
}

describe('codegen --tflm', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach(removeDir));
  for (const c of CASES) {
    itWithData(c.data ?? [], `${c.name}: AddMcusimOps registers every mcusim op; the sources compile`, async () => {
      const model = c.model();
      const kernels = generateTflmKernels(model);
      const sites = model.graph.ops.flatMap((op, i) => (op.kind === 'transposeConv' ? (op.options.scratchFree || op.options.scratchInt16 ? [i] : []) : ['merge', 'spill', 'fetching', 'fetchingConv2d'].includes(op.kind) ? [i] : []));
      expect(kernels.summary.sites.map((s) => s.opIndex)).toEqual(sites);
      expect([...new Set(kernels.summary.sites.map((s) => s.kind))].sort()).toEqual([...c.kinds].sort());
      const header = kernels.files.find((f) => f.path === 'mcusim_ops.h')?.text ?? '';
      expect(header).toContain('TfLiteStatus AddMcusimOps(tflite::MicroMutableOpResolver<tOpCount>& resolver)');
      for (const code of c.customCodes) expect(header).toContain(`resolver.AddCustom("${code}"`);
      expect(header).toContain(`#define MCUSIM_OPS_REPLACE_TRANSPOSE_CONV ${c.kinds.includes('transposeConv') ? 1 : 0}`);
      expect(header).toContain(`#define MCUSIM_OPS_COUNT ${c.kinds.length}`);
      // The arena to declare, per build, as inspect --runtime tflm predicts it; the storage geometry in reach.
      for (const a of ['cortex-m', 'host64'] as const) {
        const arena = inspectModel(model, 'tflm-greedy', {}, { arch: getTflmArch(a), runtime: 'tflm' }).report.arena;
        const suffix = a === 'cortex-m' ? 'CORTEX_M' : 'HOST64';
        expect(header).toContain(`#define MCUSIM_TENSOR_ARENA_BYTES_${suffix} ${arena.declareBytes}u`);
        expect(header).toContain(`#define MCUSIM_ARENA_USED_BYTES_${suffix} ${arena.totalBytes}u`);
      }
      expect(header).toContain('#include "mcusim_kernels.h"');
      expect(generateTflmKernels(model).files).toEqual(kernels.files);
      if (!hasCc) return;
      const dir = makeTempDir('tflm-kernels');
      dirs.push(dir);
      writeKernels(kernels, dir);
      writeKernels({ files: Object.entries(STAND_IN_HEADERS).map(([path, text]) => ({ path: `stand-in/${path}`, text })), summary: kernels.summary }, dir);
      await compileAll(dir);
    }, 600_000);
  }

  it('the TFLM prediction keeps one McusimOpData per custom op and nothing for mcusim-only TRANSPOSE_CONV Prepare', () => {
    const model = CASES[0]?.model() as Model;
    const arch = getTflmArch('cortex-m');
    const tail = modelPersistent(model.graph, arch, readOfflinePlan(model), undefined, 'generated');
    expect(tail.nonStock).toEqual([]);
    const opData = tail.allocations.filter((a) => a.what.startsWith('McusimOpData'));
    const custom = model.graph.ops.filter((op) => op.kind === 'spill' || op.kind === 'fetchingConv2d').length;
    expect(opData.map((a) => a.sizeBytes)).toEqual(new Array(custom).fill(16));
    const tcPrepare = tail.allocations.filter((a) => a.what.includes('transposeConv Prepare'));
    expect(tcPrepare).toEqual([]);
    const report = inspectModel(model, 'tflm-greedy', {}, { arch, runtime: 'tflm' }).report.arena;
    expect(report.persistentBytes).toBe(tail.persistentBytes);
    expect(report.totalBytes).toBe(report.plannedBytes + tail.persistentBytes);
  });

  it('a stock-only file: --runtime tflm (the default) predicts what stock TFLM uses, the C port keeps no TFLM structures, and no op is generated', () => {
    const model = buildZooModel('cifar10-cnn');
    for (const a of ['cortex-m', 'host64'] as const) {
      const t = inspectModel(model, 'tflm-greedy', {}, { arch: getTflmArch(a), runtime: 'tflm' }).report.arena;
      const d = inspectModel(model, 'tflm-greedy', {}, { arch: getTflmArch(a) }).report.arena;
      const m = inspectModel(model, 'tflm-greedy', {}, { arch: getTflmArch(a), runtime: 'mcusim' }).report.arena;
      expect(d).toEqual(t);
      expect([t.runtime, m.runtime]).toEqual(['tflm', 'mcusim']);
      expect(m.persistentBytes).toBe(0);
      expect(t.totalBytes).toBe(m.totalBytes + t.persistentBytes);
    }
    expect(generateTflmKernels(model).summary.sites).toEqual([]);
  });

  it('--kernels cmsis-nn: sites from the cmsis-nn registry, TRANSPOSE_CONV left to stock cmsis_nn, the arena its prediction', async () => {
    const model = CASES[0]?.model() as Model;
    const registry = kernelRegistry('cmsis-nn', 'cortex-m7');
    const kernels = generateTflmKernels(model, { registry });
    expect(kernels.summary.kernelsLabel).toBe('cmsis-nn (cortex-m7: DSP)');
    // Spill and FusedConv2D only: cmsis_nn/transpose_conv.cc runs every TRANSPOSE_CONV (no output-sized scratch to save).
    expect(kernels.summary.sites.map((x) => x.kind)).toEqual(['spill', 'fetchingConv2d']);
    const header = kernels.files.find((f) => f.path === 'mcusim_ops.h')?.text ?? '';
    expect(header).toContain('#define MCUSIM_OPS_REPLACE_TRANSPOSE_CONV 0');
    expect(header).toContain('#define MCUSIM_OPS_COUNT 2');
    expect(kernels.files.find((f) => f.path === 'mcusim_kernels.h')?.text).toContain('kernel library cmsis-nn (cortex-m7: DSP)');
    const arch = getTflmArch('cortex-m');
    const tail = modelPersistent(model.graph, arch, readOfflinePlan(model), registry, 'generated');
    const stock = modelPersistent(model.graph, arch, readOfflinePlan(model), registry);
    // Every TRANSPOSE_CONV allocates what stock cmsis_nn's does (its Prepare's per-channel arrays included).
    const tc = (t: typeof tail): string[] => t.allocations.filter((a) => a.what.includes('transposeConv')).map((a) => `${a.what} ${a.sizeBytes}`);
    expect(tc(tail)).toEqual(tc(stock));
    expect(tc(tail).some((a) => a.includes('Prepare'))).toBe(true);
    const report = inspectModel(model, 'tflm-greedy', {}, { arch, runtime: 'tflm', kernels: registry }).report.arena;
    expect(report.persistentBytes).toBe(tail.persistentBytes);
    // The reference build replaces TRANSPOSE_CONV: a different total (the two builds differ).
    expect(report.totalBytes).not.toBe(inspectModel(model, 'tflm-greedy', {}, { arch, runtime: 'tflm' }).report.arena.totalBytes);
    if (!hasCc) return;
    const dir = makeTempDir('tflm-kernels-cmsis');
    dirs.push(dir);
    writeKernels(kernels, dir);
    writeKernels({ files: Object.entries(STAND_IN_HEADERS).map(([path, text]) => ({ path: `stand-in/${path}`, text })), summary: kernels.summary }, dir);
    await compileAll(dir);
  }, 600_000);

  it.skipIf(!hasTool('arm-none-eabi-gcc'))('the STM32H7 internal-flash / QSPI driver compiles for Cortex-M7 (it is not executed: no emulator of that flash controller)', async () => {
    const kernels = generateTflmKernels(CASES[0]?.model() as Model);
    const dir = makeTempDir('tflm-stm32h7');
    dirs.push(dir);
    writeKernels(kernels, dir);
    await run('arm-none-eabi-gcc', ['-std=c99', '-O2', '-Wall', '-Wextra', '-Werror', '-mcpu=cortex-m7', '-mthumb', '-c', 'mcusim_storage_stm32h7.c', '-o', 'stm32h7.o'], { cwd: dir });
    expect(readFileSync(join(dir, 'stm32h7.o')).length).toBeGreaterThan(0);
  });

  it('an unknown custom op is E_MODEL_UNSUPPORTED_OP', () => {
    const model = buildZooModel('cifar10-cnn');
    const op = model.graph.ops[0];
    if (op === undefined) throw new Error('no op');
    const bad: Model = { ...model, graph: { ...model.graph, ops: [{ kind: 'custom', customCode: 'Mystery', customOptions: new Uint8Array(0), inputs: op.inputs, outputs: op.outputs }, ...model.graph.ops.slice(1)] } };
    expect(() => generateTflmKernels(bad)).toThrow(expect.objectContaining({ code: 'E_MODEL_UNSUPPORTED_OP' }));
  });
});
