// Optimized files with mcusim's custom ops as they ran in REAL TFLM, recorded once
// (testdata/real-builds/tflm/, README there: TFLM 90b983c host reference, Cortex-M7 reference and
// Cortex-M7 TFLM + CMSIS-NN builds, the kernels of `codegen --tflm`, seed-1 inputs). Each recorded
// run is replayed: the recorded optimize command makes the file again (same sha256), `run` on the
// recorded inputs gives the outputs the build gave, and `inspect --runtime tflm` for that build
// predicts the arena_used_bytes it reported; on the CMSIS-NN build the original model too (its
// outputs and arena on that build). Runs of files made from fetched models skip without the oracle.
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadModel, optimizeWithReport, runModel, zooModel } from '../../../src/api/index.ts';
import type { Model } from '../../../src/ir/index.ts';
import { runMcusim, testTempDir } from '../../cli/bin-helpers.ts';
import { ORACLE, TESTDATA, describeWithData } from '../../oracle-paths.ts';

const DIR = join(TESTDATA, 'real-builds', 'tflm');

/** A recorded file: how it is made (an optimize command, or for a flag the CLI has no spelling of, the API call) and its sha256. */
interface FileJson {
  readonly id: string;
  /** `zoo:NAME`, or a path under the oracle folder with its sha256. */
  readonly model: string;
  readonly modelSha256?: string;
  /** mcusim's argv; `$ORACLE/` = the oracle folder, `OUT.tflite` = the file written. */
  readonly optimize?: readonly string[];
  readonly api?: { readonly passes: readonly string[]; readonly options: Parameters<typeof optimizeWithReport>[2] };
  readonly sha256: string;
  readonly bytes: number;
  /** mcusim's ops in the file (TRANSPOSE_CONV only when it carries an mcusim-only variant). */
  readonly mcusimOps: Readonly<Record<string, number>>;
}
interface RunJson {
  readonly id: string;
  readonly build: keyof typeof BUILDS;
  readonly file: string;
  readonly storage: 'internal' | 'external';
  /** sha256 keys of blobs.json. */
  readonly inputs: readonly string[];
  readonly outputs: readonly string[];
  readonly arenaUsedBytes: number;
  readonly original?: { readonly arenaUsedBytes: number; readonly outputs: readonly string[] };
}

/** Each build's `inspect` flags and `run` kernels. */
const BUILDS = {
  'host64-reference': { inspect: ['--arch', 'host64'], kernels: {} },
  'cortex-m7-reference': { inspect: ['--arch', 'cortex-m'], kernels: {} },
  'cortex-m7-cmsis-nn': { inspect: ['--arch', 'cortex-m', '--kernels', 'cmsis-nn', '--cpu', 'cortex-m7'], kernels: { kernels: 'cmsis-nn', cpu: 'cortex-m7' } },
} as const;

const { files, runs } = JSON.parse(readFileSync(join(DIR, 'runs.json'), 'utf8')) as { files: FileJson[]; runs: RunJson[] };
const BLOBS = JSON.parse(readFileSync(join(DIR, 'blobs.json'), 'utf8')) as Record<string, string>;
const FILES = new Map(files.map((f) => [f.id, f]));
const sha256 = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');
const blob = (key: string): Uint8Array => {
  const b64 = BLOBS[key];
  if (b64 === undefined) throw new Error(`blobs.json has no ${key}`);
  return new Uint8Array(Buffer.from(b64, 'base64'));
};
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const fetched = (f: FileJson): boolean => !f.model.startsWith('zoo:');

function mcusimOps(model: Model): Record<string, number> {
  const n: Record<string, number> = {};
  for (const op of model.graph.ops) {
    const k = op.kind === 'transposeConv'
      ? (op.options.scratchFree ? 'transposeConv (scratch-free)' : op.options.scratchInt16 ? 'transposeConv (int16 scratch)' : null)
      : ['merge', 'spill', 'fetching', 'fetchingConv2d'].includes(op.kind) ? op.kind : null;
    if (k !== null) n[k] = (n[k] ?? 0) + 1;
  }
  return n;
}

const tmp = testTempDir('mcusim-tflm-replay-');
const made = new Map<string, Promise<string>>();

/** The file's path after its recorded command made it again (once per file), the sha256 checked. */
function makeFile(f: FileJson): Promise<string> {
  const known = made.get(f.id);
  if (known !== undefined) return known;
  const out = join(tmp, `${createHash('sha256').update(f.id).digest('hex').slice(0, 12)}.tflite`);
  const p = (async (): Promise<string> => {
    if (fetched(f)) expect(sha256(readFileSync(join(ORACLE, f.model))), `${f.model} is not the file the evidence was recorded with`).toBe(f.modelSha256);
    if (f.optimize !== undefined) {
      const argv = f.optimize.map((a) => a.replace('$ORACLE/', `${ORACLE}/`).replace(/^OUT\.tflite$/, out));
      const r = await runMcusim([...argv, '-q']);
      expect(r.code, r.stderr).toBe(0);
    } else if (f.api !== undefined) {
      const bytes = optimizeWithReport(zooModel(f.model.slice(4)), f.api.passes, f.api.options).bytes;
      if (bytes === null) throw new Error(`${f.id}: optimize wrote nothing`);
      writeFileSync(out, bytes);
    }
    const bytes = readFileSync(out);
    expect(sha256(bytes), `${f.id}: the recorded command now makes another file (${f.optimize?.join(' ') ?? 'api'}); its evidence no longer applies`).toBe(f.sha256);
    return out;
  })();
  made.set(f.id, p);
  return p;
}

async function inspectTotal(file: string, build: RunJson['build']): Promise<number> {
  const r = await runMcusim(['inspect', file, '--runtime', 'tflm', ...BUILDS[build].inspect, '--json', '-q']);
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { arena: { totalBytes: number } }).arena.totalBytes;
}

function originalOf(f: FileJson): { readonly model: Model; readonly arg: string } {
  return fetched(f) ? { model: loadModel(new Uint8Array(readFileSync(join(ORACLE, f.model)))), arg: join(ORACLE, f.model) } : { model: zooModel(f.model.slice(4)), arg: f.model };
}

async function replay(run: RunJson): Promise<void> {
  const f = FILES.get(run.file);
  if (f === undefined) throw new Error(`run ${run.id} names file ${run.file}, absent from runs.json`);
  const path = await makeFile(f);
  const inputs = run.inputs.map(blob);
  const kernels = BUILDS[run.build].kernels;
  const model = loadModel(new Uint8Array(readFileSync(path)));
  expect(mcusimOps(model), `${run.id}: mcusim's ops in the file`).toEqual(f.mcusimOps);
  const outputs = runModel(model, { inputs, ...kernels }).outputs;
  expect(outputs.map(hex), `${run.id}: mcusim run = the real build's outputs`).toEqual(run.outputs.map((k) => hex(blob(k))));
  expect(await inspectTotal(path, run.build), `${run.id}: inspect --runtime tflm = the build's arena_used_bytes`).toBe(run.arenaUsedBytes);
  if (run.original === undefined) return;
  const orig = originalOf(f);
  expect(runModel(orig.model, { inputs, ...kernels }).outputs.map(hex), `${run.id}: the original's outputs on the build`).toEqual(run.original.outputs.map((k) => hex(blob(k))));
  expect(await inspectTotal(orig.arg, run.build), `${run.id}: the original's arena_used_bytes on the build`).toBe(run.original.arenaUsedBytes);
}

const title = (r: RunJson): string => `${r.id} ${r.file}${r.storage === 'external' ? ', QSPI storage' : ''}`;

it('every run names a recorded file, every recorded file ran', () => {
  expect(runs.length).toBeGreaterThan(10);
  for (const r of runs) expect(FILES.has(r.file), r.id).toBe(true);
  for (const f of files) expect(runs.some((r) => r.file === f.id), f.id).toBe(true);
  for (const b of Object.keys(BUILDS)) expect(runs.filter((r) => r.build === b).length, b).toBeGreaterThan(2);
});

for (const build of Object.keys(BUILDS) as RunJson['build'][]) {
  const mine = runs.filter((r) => r.build === build);
  const fromZoo = mine.filter((x) => !fetched(FILES.get(x.file)!));
  if (fromZoo.length > 0) {
    describe(`recorded real TFLM, ${build}: files made from zoo models`, () => {
      for (const r of fromZoo) it(title(r), () => replay(r), 900_000);
    });
  }
  const fromFetched = mine.filter((x) => fetched(FILES.get(x.file)!));
  const models = [...new Set(fromFetched.map((x) => FILES.get(x.file)!.model))];
  if (fromFetched.length > 0) {
    describeWithData(models, `recorded real TFLM, ${build}: files made from fetched models`, () => {
      for (const r of fromFetched) it(title(r), () => replay(r), 900_000);
    });
  }
}

it('blobs.json holds every recorded input and output', () => {
  const keys = runs.flatMap((r) => [...r.inputs, ...r.outputs, ...(r.original?.outputs ?? [])]);
  for (const k of keys) expect(BLOBS[k] === undefined ? k : sha256(blob(k))).toBe(k);
});
