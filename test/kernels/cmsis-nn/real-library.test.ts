// mcusim's cmsis-nn specs against ARM's real CMSIS-NN (issue 46 item 7): the tree in MCUSIM_CMSIS_NN_DIR
// built per CPU (scripts/build-cmsis-nn-harness.sh, cached), real/harness.c calling what TFLM 90b983c's
// kernels/cmsis_nn/*.cc call on seeded cases under QEMU (M7 DSP, M55 MVE, M3 plain C): outputs, the
// *_get_buffer_size results, and the whole arena after a run with the output overlapping the input
// (the access order, clobbers included) against the spec. Skipped loudly without tree or tools.
import { createHash } from 'node:crypto';
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import seedrandom from 'seedrandom';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KernelSpec } from '../../../src/kernels/index.ts';
import { checkConstraints, kernelRegistry, makeOpContext } from '../../../src/kernels/index.ts';
import { CONV_PATH, DW_PATH } from '../../../src/kernels/specs/cmsis-nn/conv-family.ts';
import { convCase, int, randomConvShape, randomTransposeShape, transposeConvCase } from './helpers.ts';
import type { RealCase, RealKind, RealResult, Placement } from './real-cases.ts';
import {
  decodeResults, elementwiseGraph, encodeBatch, fullyConnectedGraph, placements, poolGraph, realCase, runSpecOnArena, softmaxGraph,
} from './real-cases.ts';

const PIN = '4ab83cc3cc98fb85ed6dafb55e8ca02f1628dcae';
const SEED = 'cmsis-nn-real-1';
const ROOT = join(import.meta.dirname, '..', '..', '..');
const SCRIPT = join(ROOT, 'scripts', 'build-cmsis-nn-harness.sh');
const DIR = process.env['MCUSIM_CMSIS_NN_DIR'];
const has = (cmd: string): boolean => { try { execFileSync(cmd, ['--version'], { stdio: 'ignore' }); return true; } catch { return false; } };
const why = DIR === undefined || DIR === '' ? 'MCUSIM_CMSIS_NN_DIR is not set'
  : !existsSync(join(DIR, 'Include', 'arm_nnfunctions.h')) ? `MCUSIM_CMSIS_NN_DIR=${DIR} is not a CMSIS-NN tree`
  : !has('arm-none-eabi-gcc') ? 'arm-none-eabi-gcc is not installed (Debian gcc-arm-none-eabi, libnewlib-arm-none-eabi)'
  : !has('qemu-system-arm') ? 'qemu-system-arm is not installed (Debian qemu-system-arm)' : null;
const HOW = `git clone https://github.com/ARM-software/CMSIS-NN && git -C CMSIS-NN checkout ${PIN}, then MCUSIM_CMSIS_NN_DIR=$PWD/CMSIS-NN npx vitest run test/kernels/cmsis-nn/real-library.test.ts`;
if (why !== null) console.warn(`\n*** SKIPPING the real CMSIS-NN library check: ${why}. To run it: ${HOW} ***\n`);
/** QEMU's machine list (an older QEMU may lack mps3-an547: that CPU is then skipped, saying so). */
const MACHINES = why === null ? execFileSync('qemu-system-arm', ['-M', 'help'], { encoding: 'utf8' }) : '';

/** A CPU the check runs on: its QEMU machine, its cmsis-nn registry, the paths that must be exercised. */
interface Target {
  readonly cpu: 'cortex-m7' | 'cortex-m55' | 'cortex-m3';
  readonly machine: string;
  readonly feature: 'DSP' | 'MVE' | 'plain C';
  readonly paths: Readonly<Partial<Record<RealKind, readonly string[]>>>;
}
const TARGETS: readonly Target[] = [
  {
    cpu: 'cortex-m7', machine: 'mps2-an500', feature: 'DSP',
    paths: {
      conv2d: ['1x1 fast', '1x1 strided', 'im2col (arm_convolve_s8)', 'im2col via arm_convolve_1_x_n_s8'],
      depthwiseConv2d: ['3x3', 'opt (DSP)', 'mult 4', 'generic'],
      transposeConv: ['row buffer (arm_transpose_conv_s8)', 'reverse conv'],
    },
  },
  {
    cpu: 'cortex-m55', machine: 'mps3-an547', feature: 'MVE',
    paths: {
      conv2d: ['1x1 fast', '1x1 strided', 'im2col (arm_convolve_s8)', '1xN MVE'],
      depthwiseConv2d: ['opt MVE', 'as conv', 'mult 4', 'generic'],
      transposeConv: ['row buffer (arm_transpose_conv_s8)', 'reverse conv'],
    },
  },
  {
    cpu: 'cortex-m3', machine: 'mps2-an385', feature: 'plain C',
    paths: {
      conv2d: ['1x1 fast', '1x1 strided', 'im2col (arm_convolve_s8)', 'im2col via arm_convolve_1_x_n_s8'],
      depthwiseConv2d: ['3x3', 'mult 4', 'generic'],
      transposeConv: ['row buffer (arm_transpose_conv_s8)', 'reverse conv'],
    },
  },
];

/** Cases per op kind (each run apart and with 4 overlapped placements). */
const CASES: Readonly<Record<RealKind, number>> = { conv2d: 70, depthwiseConv2d: 70, fullyConnected: 30, averagePool2d: 30, maxPool2d: 30, add: 20, mul: 20, softmax: 20, transposeConv: 30 };

const CONV_NAMES: Record<number, string> = { [CONV_PATH.im2col]: 'im2col (arm_convolve_s8)', [CONV_PATH.ntAllRows]: '1x1 fast', [CONV_PATH.ntPerRow]: '1x1 strided', [CONV_PATH.oneByNMve]: '1xN MVE' };
const DW_NAMES: Record<number, string> = { [DW_PATH.generic]: 'generic', [DW_PATH.threeByThree]: '3x3', [DW_PATH.optDsp]: 'opt (DSP)', [DW_PATH.mult4]: 'mult 4', [DW_PATH.optMve]: 'opt MVE', [DW_PATH.toConv]: 'as conv' };

function pathName(kind: RealKind, p: ReturnType<KernelSpec['prepare']>, feature: string): string {
  const s = p.scalars;
  if (kind === 'conv2d') {
    const name = CONV_NAMES[p.flags?.path ?? -1] ?? '?';
    // arm_convolve_wrapper_s8 sends 1xN shapes to arm_convolve_1_x_n_s8 (= arm_convolve_s8 off MVE).
    const oneByN = s.inH === 1 && s.dilW === 1 && s.fH === 1 && (s.strideW! * s.inD!) % 4 === 0 && p.flags?.path === CONV_PATH.im2col;
    return oneByN ? 'im2col via arm_convolve_1_x_n_s8' : name;
  }
  if (kind === 'depthwiseConv2d') return DW_NAMES[p.flags?.path ?? -1] ?? '?';
  if (kind === 'transposeConv') return s.bufSize !== undefined ? 'row buffer (arm_transpose_conv_s8)' : 'reverse conv';
  return feature;
}

/** Seeded cases of every kind as harness records; those the spec refuses (constraints) are counted. */
function makeCases(t: Target): { cases: RealCase[]; refused: Map<string, number> } {
  const r = seedrandom(SEED);
  const out: RealCase[] = [];
  const refused = new Map<string, number>();
  const registry = kernelRegistry('cmsis-nn', t.cpu);
  const add = (kind: RealKind, graph: RealCase['graph'] | null | undefined): void => {
    if (!graph) return;
    const spec = registry.specs[kind] as KernelSpec;
    const issues = checkConstraints(spec, makeOpContext(graph, 0));
    if (issues.length > 0) {
      for (const i of issues) refused.set(`${kind}: ${i.message}`, (refused.get(`${kind}: ${i.message}`) ?? 0) + 1);
      return;
    }
    out.push(realCase(kind, spec, graph, (p) => pathName(kind, p, t.feature)));
  };
  for (const kind of ['conv2d', 'depthwiseConv2d'] as const) {
    for (let i = 0; i < CASES[kind]; i++) {
      const shape = randomConvShape(r, kind);
      // Every fifth conv a 1xN shape (arm_nn_is_convolve_1_x_n), every seventh a 1x1 of stride 1,
      // every ninth a wide one (more than 16 channels: whole vectors and blocks), every fourth
      // depthwise a 3x3, every sixth one with one input channel (MVE: as a conv), every tenth one
      // with more than CH_IN_BLOCK_MVE (124) channels.
      const s = kind === 'conv2d' && i % 5 === 0 ? { ...shape, h: 1, fh: 1, dw: 1, ic: 4 * int(r, 1, 2), w: int(r, 3, 12) }
        : kind === 'conv2d' && i % 9 === 8 ? { ...shape, ic: int(r, 17, 40), oc: int(r, 8, 20), h: int(r, 1, 5), w: int(r, 1, 5) }
        : kind === 'depthwiseConv2d' && i % 10 === 9 ? { ...shape, ic: int(r, 100, 140), h: int(r, 1, 4), w: int(r, 1, 4), depthMult: 1 }
        : kind === 'conv2d' && i % 7 === 3 ? { ...shape, fh: 1, fw: 1, sh: 1, sw: 1, dh: 1, dw: 1 }
        : kind === 'depthwiseConv2d' && i % 4 === 0 ? { ...shape, n: 1, fh: 3, fw: 3, dh: 1, dw: 1, depthMult: 1, h: int(r, 3, 8), w: int(r, 3, 8) }
        : kind === 'depthwiseConv2d' && i % 6 === 1 ? { ...shape, n: 1, dh: 1, dw: 1, ic: 1, depthMult: int(r, 2, 8) } : shape;
      add(kind, convCase(r, kind, s)?.graph);
    }
  }
  for (let i = 0; i < CASES.transposeConv; i++) add('transposeConv', transposeConvCase(r, randomTransposeShape(r, i % 2 === 0)).graph);
  for (let i = 0; i < CASES.fullyConnected; i++) add('fullyConnected', fullyConnectedGraph(r));
  for (const kind of ['averagePool2d', 'maxPool2d'] as const) for (let i = 0; i < CASES[kind]; i++) add(kind, poolGraph(r, kind));
  for (const kind of ['add', 'mul'] as const) for (let i = 0; i < CASES[kind]; i++) add(kind, elementwiseGraph(r, kind));
  for (let i = 0; i < CASES.softmax; i++) add('softmax', softmaxGraph(r));
  return { cases: out, refused };
}

/**
 * Overlap distances k for a case: equal starts, ends as close as possible, a small k after, two
 * random k after and one before; multiples of 4, as in a plan (TFLM and mcusim place tensors at multiples of 16; the specs'
 * memcpy model takes tensors to start 4-aligned).
 */
function overlapKs(r: () => number, rc: RealCase): number[] {
  const bytes = (t: number): number => rc.graph.tensors[t]!.shape.reduce((a, b) => a * b, 1);
  const inB = bytes(rc.inputs[0]!), outB = bytes(rc.output);
  const w = (n: number): number => Math.max(1, Math.ceil(n / 4));
  return [...new Set([0, 4 * Math.floor((inB - outB) / 4), 4 * int(r, 1, 4), 4 * int(r, 1, w(inB)), 4 * int(r, 1, w(inB)), -4 * int(r, 1, w(outB))])];
}

/** The harness ELF for this tree and these flags, built once into a cache directory. */
async function harnessElf(dir: string, cpu: string): Promise<string> {
  const h = createHash('sha256');
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.[ch]$/.test(e.name)) { const st = statSync(p); h.update(`${p} ${st.size} ${st.mtimeMs}\n`); }
    }
  };
  walk(join(dir, 'Source'));
  walk(join(dir, 'Include'));
  for (const f of [SCRIPT, join(ROOT, 'test/codegen/tflm/startup_m7.c'), join(ROOT, 'test/codegen/tflm/mps2_an500.ld')]) h.update(readFileSync(f));
  for (const f of readdirSync(join(import.meta.dirname, 'real')).sort()) h.update(readFileSync(join(import.meta.dirname, 'real', f)));
  h.update(cpu);
  const out = join(tmpdir(), 'mcusim-cmsis-nn-real', h.digest('hex').slice(0, 16));
  const elf = join(out, 'harness.elf');
  if (!existsSync(elf)) {
    mkdirSync(out, { recursive: true });
    await promisify(execFile)('bash', [SCRIPT, dir, out, cpu], { timeout: 900_000 });
  }
  return elf;
}

interface Row { cases: number; runs: number; output: number; scratch: number; overlap: number; control: number }

const KINDS: readonly RealKind[] = ['conv2d', 'depthwiseConv2d', 'transposeConv', 'fullyConnected', 'averagePool2d', 'maxPool2d', 'add', 'mul', 'softmax'];
const REFERENCE = kernelRegistry('reference');
const run = promisify(execFile);
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

if (why !== null) {
  describe('real CMSIS-NN library check', () => {
    it.skip(`SKIPPED: ${why}; to run it: ${HOW}`, () => {});
  });
} else {
  for (const t of TARGETS.filter((x) => !MACHINES.includes(x.machine))) {
    describe(`real CMSIS-NN on ${t.cpu}`, () => it.skip(`SKIPPED: this qemu-system-arm has no ${t.machine} machine`, () => {}));
  }
  describe.each(TARGETS.filter((x) => MACHINES.includes(x.machine)))(`real CMSIS-NN ${PIN.slice(0, 8)} under QEMU against the cmsis-nn specs: $cpu ($machine, $feature)`, (t) => {
    let cases: RealCase[] = [];
    let refused = new Map<string, number>();
    let runs: [RealCase, Placement][] = [];
    let results: RealResult[] = [];
    let work = '';
    const table = new Map<string, Row>();
    beforeAll(async () => {
      const elf = await harnessElf(DIR as string, t.cpu);
      ({ cases, refused } = makeCases(t));
      const r = seedrandom(`${SEED}-placements`);
      runs = cases.flatMap((rc) => placements(r, rc, overlapKs(r, rc), rc.inputs.length > 1 && r() < 0.5 ? 1 : 0).map((pl) => [rc, pl] as [RealCase, Placement]));
      work = mkdtempSync(join(tmpdir(), 'mcusim-cmsis-real-'));
      writeFileSync(join(work, 'cases.bin'), encodeBatch(runs));
      const args = `arg=harness,arg=${join(work, 'cases.bin')},arg=${join(work, 'results.bin')}`;
      await run('qemu-system-arm', ['-M', t.machine, '-nographic', '-monitor', 'none', '-semihosting-config', `enable=on,target=native,${args}`, '-kernel', elf], { timeout: 900_000 });
      results = decodeResults(new Uint8Array(readFileSync(join(work, 'results.bin'))), runs.length);
    });
    afterAll(() => {
      if (work) rmSync(work, { recursive: true, force: true });
      const lines = [...table].sort().map(([k, v]) =>
        `${k}: ${v.cases} cases, ${v.runs - v.cases} overlapped runs; mismatches: output ${v.output}, scratch ${v.scratch}, overlapped arena ${v.overlap} (reference spec on the same overlaps: ${v.control})`);
      const refusedLines = [...refused].map(([k, n]) => `refused by the spec (${n}): ${k}`);
      console.log(`real CMSIS-NN vs cmsis-nn specs, ${t.cpu} (${runs.length} runs of ${cases.length} cases, seed ${SEED}):\n  ${[...lines, ...refusedLines].join('\n  ')}`);
    });

    it.each(KINDS)('%s: outputs, scratch sizes and overlapped arenas identical on every path', async (kind) => {
      const failures: string[] = [];
      let control = 0;
      for (const [i, [rc, pl]] of runs.entries()) {
        if (rc.kind !== kind) continue;
        if (i % 50 === 0) await new Promise((done) => setImmediate(done));
        const key = `${rc.kind} / ${rc.path}`;
        const row = table.get(key) ?? { cases: 0, runs: 0, output: 0, scratch: 0, overlap: 0, control: 0 };
        table.set(key, row);
        const res = results[i]!;
        const where = `${key} case ${cases.indexOf(rc)} (${pl.name}) shapes ${JSON.stringify(rc.graph.tensors.map((t) => t.shape))} options ${JSON.stringify((rc.graph.ops[0] as { options?: unknown }).options)}`;
        row.runs++;
        if (res.status !== 0) failures.push(`${where}: CMSIS-NN returned status ${res.status}`);
        const want = runSpecOnArena(rc, pl);
        const same = hex(res.arena) === hex(want);
        if (pl.name === 'apart') {
          row.cases++;
          if (!same) (row.output++, failures.push(`${where}: outputs differ`));
          if (JSON.stringify(res.scratch) !== JSON.stringify(rc.specBuffers)) (row.scratch++, failures.push(`${where}: buffers real ${JSON.stringify(res.scratch)} spec ${JSON.stringify(rc.specBuffers)}`));
          continue;
        }
        if (!same) {
          row.overlap++;
          failures.push(`${where}: overlapped arena differs at bytes ${[...res.arena].map((b, k) => (b !== want[k] ? `${k} (real ${b}, spec ${want[k]})` : '')).filter((x) => x).slice(0, 8).join(', ')}`);
        }
        // Control: the reference kernel's order on the same placement (shows the check can fail).
        if (hex(runSpecOnArena({ ...rc, spec: REFERENCE.specs[kind] as KernelSpec }, pl)) !== hex(res.arena)) (row.control++, control++);
      }
      for (const path of t.paths[kind] ?? []) expect(table.get(`${kind} / ${path}`)?.cases ?? 0, `${kind} / ${path} cases`).toBeGreaterThan(2);
      expect(failures.slice(0, 20).join('\n')).toBe('');
      // Where CMSIS-NN's order differs from the reference kernels', some overlap must show it.
      if (kind === 'conv2d' || kind === 'depthwiseConv2d' || kind === 'transposeConv') expect(control, `${kind}: reference-order clobbers`).toBeGreaterThan(0);
    });
  });
}
