// The C port with CMSIS-NN-path specs (`codegen --kernels cmsis-nn`), end to end: each model's
// generated project is built with gcc (host) and arm-none-eabi-gcc (Cortex-M7, run under QEMU
// mps2-an500) and its outputs are byte-identical to the simulator with the same kernels and, where
// ../shared/oracle/cmsis-nn-m7 has the row, to the real TFLM + CMSIS-NN build's seed-1 outputs:
// originals covering every DSP code path (plus a synthetic model for the paths no original takes,
// also on the MVE and plain-C paths), a DMO file made for cmsis-nn (= the original's outputs, and
// smaller), and reference-planned DMO files the real build computes wrong (the port computes the same
// wrong bytes: the C keeps CMSIS-NN's access order). MCUSIM_SLOW=1 adds every original and every
// wrong file of the oracle. Skipped LOUDLY without the toolchains, and as [no data: FOLDER] without the oracle.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emitCProject } from '../../src/codegen/index.ts';
import type { Graph, Model } from '../../src/ir/index.ts';
import { exportTflite, importTflite } from '../../src/ir/index.ts';
import { kernelRegistry } from '../../src/kernels/index.ts';
import type { KernelRegistry } from '../../src/kernels/index.ts';
import type { PlannedModel, SingleOpSpec } from '../../src/optimizer/index.ts';
import { buildSingleOpGraph, preparePlannedModel, randomInputs, runPipeline, runPlanned } from '../../src/optimizer/index.ts';
import { CONV_PATH, DW_PATH } from '../../src/kernels/specs/cmsis-nn/conv-family.ts';
import { ORACLE, dataPath, describeWithData, fetchedParts, hasOracle } from '../oracle-paths.ts';
import { hasTool, hex, make, makeTempDir, removeDir, runHost, runQemu, writeProject } from './codegen-helpers.ts';

const DIR = join(ORACLE, 'cmsis-nn-m7');
const SLOW = process.env['MCUSIM_SLOW'] === '1';
const hasTools = hasTool('cc') && hasTool('make') && hasTool('arm-none-eabi-gcc') && hasTool('qemu-system-arm');
if (!hasTools) console.warn('\n*** SKIPPING the CMSIS-NN C port tests: cc, make, arm-none-eabi-gcc or qemu-system-arm missing ***\n');

interface Row { readonly name: string; readonly model: string; readonly kind: string; readonly outputs_equal_original?: boolean }
const ROWS: readonly Row[] = hasOracle('cmsis-nn-m7/models.json') ? (JSON.parse(readFileSync(join(DIR, 'models.json'), 'utf8')) as { models: Row[] }).models : [];
/** What the cases read: the build's folder, and every folder a row's model is in. */
const NEEDS = fetchedParts('cmsis-nn-m7', ...ROWS.map((r) => r.model));
const M7 = kernelRegistry('cmsis-nn', 'cortex-m7');

const rowModel = (name: string): Model => {
  const r = ROWS.find((x) => x.name === name);
  if (r === undefined) throw new Error(`no row ${name} in ${DIR}/models.json`);
  return importTflite(readFileSync(dataPath(r.model)));
};
/** A row's seed-1 files: input<i>.bin or output<i>.bin. */
const seedFiles = (name: string, what: 'input' | 'output'): Uint8Array[] => {
  const out: Uint8Array[] = [];
  for (let i = 0; existsSync(join(DIR, name, 'seed1', `${what}${i}.bin`)); i++) out.push(new Uint8Array(readFileSync(join(DIR, name, 'seed1', `${what}${i}.bin`))));
  return out;
};

/** Independent single-op graphs side by side in one graph (inputs and outputs concatenated). */
function sideBySide(name: string, graphs: readonly Graph[]): Model {
  const tensors: Graph['tensors'][number][] = [];
  const ops: Graph['ops'][number][] = [];
  const inputs: number[] = [];
  const outputs: number[] = [];
  for (const g of graphs) {
    const base = tensors.length;
    const shift = (t: number): number => (t < 0 ? t : t + base);
    tensors.push(...g.tensors);
    ops.push(...g.ops.map((op) => ({ ...op, inputs: op.inputs.map(shift), outputs: op.outputs.map(shift) })));
    inputs.push(...g.inputs.map(shift));
    outputs.push(...g.outputs.map(shift));
  }
  return { version: 3, description: name, graph: { name, tensors, ops, inputs, outputs }, metadata: [], signatureDefs: [] } as Model;
}

/** Shapes taking the paths no original model takes: depthwise opt and generic (and MVE's depthwise-as-conv), conv 1xN and dilated, mul. */
const PATH_OPS: readonly SingleOpSpec[] = [
  { kind: 'depthwiseConv2d', input: [1, 6, 7, 8], filter: [5, 5], padding: 'same' },
  { kind: 'depthwiseConv2d', input: [1, 5, 6, 3], filter: [3, 3], depthMultiplier: 2, padding: 'valid' },
  { kind: 'depthwiseConv2d', input: [1, 5, 5, 1], filter: [3, 3], depthMultiplier: 4, padding: 'same' },
  { kind: 'conv2d', input: [1, 1, 12, 8], filter: [1, 3], outChannels: 5, padding: 'valid' },
  { kind: 'conv2d', input: [1, 7, 7, 3], filter: [3, 3], dilation: [2, 2], outChannels: 6, padding: 'same' },
  { kind: 'mul', input: [1, 3, 4, 5] },
  { kind: 'maxPool2d', input: [1, 6, 6, 4], filter: [2, 2], stride: [2, 2], padding: 'valid' },
];
const pathModel = (): Model => sideBySide('cmsis-nn paths', PATH_OPS.map((s, i) => buildSingleOpGraph({ ...s, seed: `cmsis-nn-port-${i}` })));

/** mlperf_ic_resnet8 optimized by DMO for the CMSIS-NN build, written and read back as a file is. */
const resnetDmoForCmsis = (): Model => importTflite(exportTflite(runPipeline(rowModel('orig_real_mlperf_ic_resnet8'), ['dmo'], { flags: {}, registry: M7 }).model));
const DMO_CASE = 'mlperf_ic_resnet8, DMO made with --kernels cmsis-nn';

interface Case {
  readonly name: string;
  readonly model: () => Model;
  readonly registry: KernelRegistry;
  /** The oracle row whose seed-1 inputs are used and whose outputs the real build wrote (else seeded random inputs). */
  readonly row?: string;
  /** A reference-planned file the real build computes wrong: plan.libraryHazard set, outputs differ from `original`'s. */
  readonly wrongVersus?: string;
}

const original = (row: string): Case => ({ name: row, model: () => rowModel(row), registry: M7, row });
const wrong = (row: string, orig: string): Case => ({ name: row, model: () => rowModel(row), registry: M7, row, wrongVersus: orig });
/** The original row of an optimized one (`opt_<pass>_<set>_<model>` -> `orig_<set>_<model>`). */
const originalOf = (row: string): string => row.replace(/^opt_[a-z]+_/, 'orig_');

const DEFAULT_CASES: readonly Case[] = [
  original('orig_shared_person_detect'),
  original('orig_zoo_ds-cnn-kws'),
  original('orig_real_mlperf_ic_resnet8'),
  original('orig_zoo_tiny-unet'),
  original('orig_real_mlperf_kws_dscnn'),
  { name: 'depthwise opt / generic, conv 1xN / dilated, mul, max pool (cortex-m7, DSP)', model: pathModel, registry: M7 },
  { name: 'the same ops on cortex-m55 (MVE paths)', model: pathModel, registry: kernelRegistry('cmsis-nn', 'cortex-m55') },
  { name: 'the same ops on cortex-m0plus (plain C paths)', model: pathModel, registry: kernelRegistry('cmsis-nn', 'cortex-m0plus') },
  { name: DMO_CASE, model: resnetDmoForCmsis, registry: M7, row: 'orig_real_mlperf_ic_resnet8' },
  wrong('opt_dmo_real_mlperf_kws_dscnn', 'orig_real_mlperf_kws_dscnn'),
  wrong('opt_dmo_op_TRANSPOSE_CONV_CONCAT_1', 'orig_op_TRANSPOSE_CONV_CONCAT_1'),
];

/** MCUSIM_SLOW=1: every other original (not the op-models) and every other file the real build computes wrong. */
const CASES: readonly Case[] = [
  ...DEFAULT_CASES,
  ...(SLOW
    ? ROWS.filter((r) => !DEFAULT_CASES.some((c) => c.name === r.name) && ((r.kind !== 'optimized' && !r.name.startsWith('orig_op_')) || r.outputs_equal_original === false))
      .map((r) => (r.outputs_equal_original === false ? wrong(r.name, originalOf(r.name)) : original(r.name)))
    : []),
];

/** The DSP code paths the default cases must take between them (kind:path, as the instances' flags say). */
const DSP_PATHS: readonly string[] = [
  `conv2d:${CONV_PATH.im2col}`, `conv2d:${CONV_PATH.ntAllRows}`, `conv2d:${CONV_PATH.ntPerRow}`,
  `depthwiseConv2d:${DW_PATH.generic}`, `depthwiseConv2d:${DW_PATH.threeByThree}`, `depthwiseConv2d:${DW_PATH.optDsp}`, `depthwiseConv2d:${DW_PATH.mult4}`,
  'transposeConv:reverse', 'transposeConv:rows', 'fullyConnected', 'averagePool2d', 'maxPool2d', 'add', 'mul', 'softmax',
];

/** The MVE-only paths the synthetic model takes on cortex-m55: conv 1xN, depthwise opt (MVE) and depthwise-as-conv. */
const MVE_PATHS: readonly string[] = [`conv2d:${CONV_PATH.oneByNMve}`, `depthwiseConv2d:${DW_PATH.optMve}`, `depthwiseConv2d:${DW_PATH.toConv}`];

function pathsOf(pm: PlannedModel): string[] {
  return pm.runtime.instances.map((inst) => {
    const kind = pm.graph.ops[inst.opIndex]?.kind ?? '?';
    if (kind === 'transposeConv') return `${kind}:${inst.flags['reverse'] === 1 ? 'reverse' : 'rows'}`;
    return inst.flags['path'] === undefined ? kind : `${kind}:${inst.flags['path']}`;
  });
}

interface Built {
  readonly c: Case;
  readonly pm: PlannedModel;
  readonly dir: string;
  readonly inputs: readonly Uint8Array[];
}

/** Without the toolchains the suite is skipped as such, not counted as missing data. */
const describeWithTools = hasTools ? describeWithData : (_parts: readonly string[], name: string, fn: () => void): void => void describe.skip(name, fn);

describeWithTools(NEEDS, 'the CMSIS-NN C port (host gcc and Cortex-M7 under QEMU mps2-an500)', () => {
  const built = new Map<string, Built>();
  const dirs: string[] = [];
  afterAll(() => dirs.forEach(removeDir));

  // Every project is generated and built first (host and cortex-m7), then each case compares. A
  // macrotask turn between steps answers vitest's worker RPC (test/yield-between-tests.ts says why).
  beforeAll(async () => {
    const turn = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));
    for (const c of CASES) {
      const model = c.model();
      const pm = preparePlannedModel(model, { registry: c.registry });
      const project = emitCProject(pm, { target: 'cortex-m7', modelName: c.name, registry: c.registry });
      const dir = makeTempDir('cg-cmsis');
      dirs.push(dir);
      writeProject(project, dir);
      await turn();
      make(dir, 'host', ['HOST_OPT=-O1']);
      await turn();
      const size = (make(dir, 'cortex-m7').trim().split('\n').pop() ?? '').trim().split(/\s+/);
      await turn();
      console.log(`${c.name} (${c.registry.cpu}): arena ${project.summary.arenaBytes} B (plan peak ${pm.plan.peakBytes} B), cortex-m7 text ${size[0]} B, bss ${size[2]} B`);
      const inputs = c.row !== undefined ? seedFiles(c.row, 'input') : randomInputs(model.graph, 1);
      built.set(c.name, { c, pm, dir, inputs });
    }
  });

  it('the default cases take every DSP code path of the cmsis-nn specs, and the MVE-only ones on cortex-m55', () => {
    const taken = new Set([...built.values()].filter((b) => b.c.registry === M7).flatMap((b) => pathsOf(b.pm)));
    expect(DSP_PATHS.filter((p) => !taken.has(p))).toEqual([]);
    const mve = new Set([...built.values()].filter((b) => b.c.registry.cpu === 'cortex-m55').flatMap((b) => pathsOf(b.pm)));
    expect(MVE_PATHS.filter((p) => !mve.has(p))).toEqual([]);
  });

  for (const c of CASES) {
    it(`${c.name}: host and QEMU outputs = simulator${c.row !== undefined ? ' = real CMSIS-NN build' : ''}`, () => {
      const b = built.get(c.name);
      if (b === undefined) throw new Error(`${c.name} was not built`);
      const sim = runPlanned(b.pm, { inputs: b.inputs }).outputs;
      const host = runHost(b.dir, b.inputs, sim.length);
      const qemu = runQemu(b.dir, b.inputs, sim.length);
      sim.forEach((s, i) => {
        expect(hex(host[i] as Uint8Array), `${c.name} output ${i}: host vs simulator`).toBe(hex(s));
        expect(hex(qemu[i] as Uint8Array), `${c.name} output ${i}: Cortex-M7 vs simulator`).toBe(hex(s));
      });
      const readme = readFileSync(join(b.dir, 'README.md'), 'utf8');
      expect(readme).toContain(`--kernels cmsis-nn --cpu ${c.registry.cpu}`);
      if (c.row === undefined) return;
      const real = seedFiles(c.row, 'output');
      expect(real.length).toBe(sim.length);
      real.forEach((r, i) => expect(hex(host[i] as Uint8Array), `${c.name} output ${i} vs the real build`).toBe(hex(r)));
      if (c.wrongVersus !== undefined) {
        // The real build's outputs of this file are wrong, and so are the port's: the same wrong bytes.
        expect(b.pm.plan.libraryHazard, 'planned for the reference kernels only').toMatch(/safe for the reference kernels only/);
        expect(readme).toContain('**Warning**');
        const right = seedFiles(c.wrongVersus, 'output');
        expect(real.map(hex)).not.toEqual(right.map(hex));
      } else {
        expect(b.pm.plan.libraryHazard).toBeUndefined();
      }
    });
  }

  it('the DMO file made for cmsis-nn gives the original\'s real outputs and still saves memory', () => {
    const dmo = built.get(DMO_CASE);
    const orig = built.get('orig_real_mlperf_ic_resnet8');
    if (dmo === undefined || orig === undefined) throw new Error('not built');
    expect(dmo.pm.plan.peakBytes).toBeLessThan(orig.pm.plan.peakBytes);
    console.log(`mlperf_ic_resnet8 cmsis-nn port: plan peak ${orig.pm.plan.peakBytes} B original, ${dmo.pm.plan.peakBytes} B after DMO for cmsis-nn`);
  });
});
