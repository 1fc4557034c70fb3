// The generated project itself: the emitted C of hello_world_int8 (and the storage side of a
// tinyseg model, raw and MFV-compressed) is kept as reviewable file snapshots, regenerating gives identical bytes, unsupported ops and targets fail with codes,
// the files name their kernel library (and a plan's hazard with it), and the host storage device enforces the simulator's erase/program rules (its C self-test).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { codegenIssues, emitCProject, generateCProject, parseCodegenTarget } from '../../src/codegen/index.ts';
import type { Model } from '../../src/ir/index.ts';
import { buildZooModel, exportTflite, importTflite, McusimError } from '../../src/ir/index.ts';
import { kernelRegistry } from '../../src/kernels/index.ts';
import { preparePlannedModel, runPipeline } from '../../src/optimizer/index.ts';
import { ORACLE, ORACLE_MODELS, itWithData } from '../oracle-paths.ts';
import { hasTool, make, makeTempDir, removeDir, writeProject } from './codegen-helpers.ts';

const hello = (): Model => importTflite(readFileSync(join(ORACLE_MODELS, 'hello_world_int8.tflite')));

function codeOf(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    return e instanceof McusimError ? e.code : `not coded: ${String(e)}`;
  }
  return 'no error';
}

describe('generated C project', () => {
  itWithData('models', 'keeps the emitted C of hello_world_int8 stable (file snapshots)', async () => {
    const project = generateCProject(hello(), { modelName: 'hello_world_int8' });
    for (const path of ['src/model.h', 'src/model.c', 'src/model_data.c', 'Makefile']) {
      const f = project.files.find((x) => x.path === path);
      expect(f, path).toBeDefined();
      await expect(f?.text).toMatchFileSnapshot(`./__snapshots__/hello_world_int8/${path.replace('src/', '')}`);
    }
  });

  it('keeps the storage side of a tinyseg model reviewable (model.h and model_run snapshots)', async () => {
    const tiny = importTflite(exportTflite(runPipeline(buildZooModel('tiny-unet'), ['tinyseg'], { flags: {} }).model));
    const project = generateCProject(tiny, { modelName: 'tiny-unet+tinyseg' });
    const text = (path: string): string => project.files.find((f) => f.path === path)?.text ?? '';
    const model = text('src/model.c');
    const run = model.slice(model.indexOf('int model_run(void) {'));
    await expect(text('src/model.h')).toMatchFileSnapshot('./__snapshots__/tiny-unet-tinyseg/model.h');
    await expect(run).toMatchFileSnapshot('./__snapshots__/tiny-unet-tinyseg/model_run.c');
    // No staging array: the spilled tensor is streamed through the arena's I/O buffer, and
    // FetchingConv2D's rows are copied from the mapped view into its planned row window, row by row.
    expect(model).not.toMatch(/staging/);
    expect(model).toMatch(/model_storage->mapped \+ s->addr \+ SPILL_HEADER_BYTES/);
    expect(run).toMatch(/model_fill_rows\(&model_slots\[0\], arena \+ \d+, 960u, 3u, 80u, &filled/);
    expect(project.summary.storageSlots).toBe(1);
  });

  it('keeps the MFV storage side of a compressed tinyseg model reviewable (storage C and model_run snapshots)', async () => {
    const tiny = importTflite(exportTflite(runPipeline(buildZooModel('tiny-unet'), ['tinyseg'], { flags: {} }).model));
    const project = generateCProject(tiny, { modelName: 'tiny-unet+tinyseg (MFV)', compress: true });
    // The same C as emitting the simulator's compressed plan.
    const emitted = emitCProject(preparePlannedModel(tiny, { compress: true }), { modelName: 'tiny-unet+tinyseg (MFV)' });
    project.files.forEach((f, i) => expect(emitted.files[i]?.text === f.text, f.path).toBe(true));
    const model = project.files.find((f) => f.path === 'src/model.c')?.text ?? '';
    const storage = model.slice(model.indexOf('typedef struct {\n  uint32_t id;'), model.indexOf('static const int32_t op0_p'));
    const run = model.slice(model.indexOf('int model_run(void) {'));
    await expect(storage).toMatchFileSnapshot('./__snapshots__/tiny-unet-tinyseg-mfv/storage.c');
    await expect(run).toMatchFileSnapshot('./__snapshots__/tiny-unet-tinyseg-mfv/model_run.c');
    // The histogram is the Spill's planned scratch; the row window is filled by the decoder, no raw copy.
    expect(run).toMatch(/rc = model_spill\(&model_slots\[0\], arena \+ \d+, arena \+ \d+, \(int32_t\*\)\(void\*\)\(arena \+ \d+\)\);/);
    expect(run).toMatch(/model_fill_rows\(&dec, arena \+ \d+, 960u, 3u, 80u, &filled/);
    expect(project.files.find((f) => f.path === 'src/model.h')?.text).toContain('#define MODEL_STORAGE_MFV 1u');
  });

  it('is deterministic: regenerating gives identical bytes', () => {
    const a = generateCProject(buildZooModel('mobilenet-v1-0.25-128'));
    const b = generateCProject(buildZooModel('mobilenet-v1-0.25-128'));
    expect(b.files.map((f) => f.path)).toEqual(a.files.map((f) => f.path));
    a.files.forEach((f, i) => expect(b.files[i]?.text === f.text, f.path).toBe(true));
  });

  it('declares one 16-aligned static arena sized by the plan and constants as aligned const arrays', () => {
    const p = generateCProject(buildZooModel('mobilenet-v1-0.25-128'));
    const model = p.files.find((f) => f.path === 'src/model.c')?.text ?? '';
    const data = p.files.find((f) => f.path === 'src/model_data.c')?.text ?? '';
    expect(model.match(/static uint8_t arena\[MODEL_ARENA_BYTES\] __attribute__\(\(aligned\(16\)\)\);/g)?.length).toBe(1);
    expect(p.files.find((f) => f.path === 'src/model.h')?.text).toContain(`#define MODEL_ARENA_BYTES ${p.summary.arenaBytes}u`);
    expect(data).toMatch(/^const uint8_t mcusim_const_t\d+\[\] __attribute__\(\(aligned\(16\)\)\) =$/m);
    expect(p.summary.constantBytes).toBeGreaterThan(400_000);
  });

  itWithData('models', 'rejects ops it cannot emit with E_MODEL_UNSUPPORTED_OP, listing each', () => {
    const m = hello();
    const ops = m.graph.ops.map((op, i) => (i === 1 ? { kind: 'custom' as const, customCode: 'Spill', customOptions: new Uint8Array(0), inputs: op.inputs, outputs: op.outputs } : op));
    const bad: Model = { ...m, graph: { ...m.graph, ops } };
    expect(codegenIssues(bad.graph).map((i) => i.opIndex)).toEqual([1]);
    expect(codeOf(() => generateCProject(bad))).toBe('E_MODEL_UNSUPPORTED_OP');
  });

  itWithData('models', 'names the kernel library and code path in README, model.h and the summary; refuses a registry the plan was not prepared with', () => {
    const m7 = kernelRegistry('cmsis-nn', 'cortex-m7');
    const p = generateCProject(buildZooModel('ds-cnn-kws'), { registry: m7 });
    const text = (path: string): string => p.files.find((f) => f.path === path)?.text ?? '';
    expect(p.summary).toMatchObject({ kernels: 'cmsis-nn', cpu: 'cortex-m7', kernelsDescription: 'cmsis-nn (cortex-m7: DSP)' });
    expect(p.summary.planHazard).toBeUndefined();
    expect(text('src/model.h')).toContain('#define MODEL_KERNELS "cmsis-nn (cortex-m7: DSP)"');
    expect(text('README.md')).toContain('mcusim run MODEL --kernels cmsis-nn --cpu cortex-m7');
    expect(generateCProject(hello()).summary).toMatchObject({ kernels: 'reference', cpu: null, kernelsDescription: 'reference' });
    // The reference plan's kernels emitted under the cmsis-nn name would be mislabelled: refused.
    expect(codeOf(() => emitCProject(preparePlannedModel(buildZooModel('ds-cnn-kws')), { registry: m7 }))).toBe('E_INTERNAL');
  });

  it('carries plan.libraryHazard of a file planned for the reference kernels into the summary, README and model.c', () => {
    const file = importTflite(exportTflite(runPipeline(buildZooModel('ds-cnn-kws'), ['dmo'], { flags: {} }).model));
    const p = generateCProject(file, { registry: kernelRegistry('cmsis-nn', 'cortex-m7') });
    expect(p.summary.planHazard).toMatch(/safe for the reference kernels only/);
    expect(p.files.find((f) => f.path === 'README.md')?.text).toContain('**Warning**: the plan is safe for the reference kernels only');
    expect(p.files.find((f) => f.path === 'src/model.c')?.text).toMatch(/^ \* WARNING: the plan is safe for the reference kernels only/m);
    expect(generateCProject(file).summary.planHazard).toBeUndefined();
  });

  itWithData('models-real', 'refuses a file planned for cmsis-nn whose overlaps the reference kernels break, naming the flags it was planned for', () => {
    const m7 = kernelRegistry('cmsis-nn', 'cortex-m7');
    const resnet = importTflite(readFileSync(join(ORACLE, 'models-real', 'mlperf_ic_resnet8.tflite')));
    const file = importTflite(exportTflite(runPipeline(resnet, ['dmo'], { flags: {}, registry: m7 }).model));
    let err: unknown;
    try {
      generateCProject(file);
    } catch (e) {
      err = e;
    }
    expect(err instanceof McusimError ? err.code : String(err)).toBe('E_PLAN_OVERLAP');
    expect((err as Error).message).toMatch(/the file was planned for cmsis-nn \(cortex-m7\) kernels: generate its port with --kernels cmsis-nn --cpu cortex-m7$/);
    expect(generateCProject(file, { registry: m7 }).summary.planHazard).toBeUndefined();
  });

  itWithData('models', 'rejects unknown targets and planners with E_USAGE', () => {
    expect(codeOf(() => parseCodegenTarget('riscv'))).toBe('E_USAGE');
    expect(codeOf(() => generateCProject(hello(), { planner: 'nope' }))).toBe('E_USAGE');
  });
});

const hasCc = hasTool('cc') && hasTool('make');
describe.skipIf(!hasCc)('host storage device (C)', () => {
  const dir = makeTempDir('cg-storage');
  afterAll(() => removeDir(dir));
  itWithData('models', 'enforces erase-before-program, whole aligned units and no double program', () => {
    writeProject(generateCProject(hello()), dir);
    make(dir, 'storage-test');
    const out = execFileSync(join(dir, 'build/host/storage_test'), [join(dir, 'flash.bin')], { encoding: 'utf8' });
    expect(out.trim()).toBe('storage ok');
  });
});
