// The real CMSIS-NN functions behind transpose, pad, maximum / minimum and svdf, compiled for the
// host with gcc (plain-C path: no __ARM_FEATURE_DSP / MVE on the host) from the tree named by
// MCUSIM_CMSIS_NN_DIR (e.g. a CMSIS-NN 4ab83cc3 checkout; none of its source is kept here), run
// on seeded random cases against mcusim's cmsis-nn specs on the plain-C path (cortex-m3): same
// output bytes (and svdf's final state), and for transpose and maximum / minimum the same bytes
// when output and input share memory at several overlaps (at and beyond O_s): equal clobbered
// results mean equal access order. pad is not run overlapped (its memcpy would be glibc's).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import { byteSize } from '../../../src/ir/index.ts';
import type { KernelSpec } from '../../../src/kernels/index.ts';
import { compileKernel, kernelRegistry, makeArenaViews, makeOpContext } from '../../../src/kernels/index.ts';
import { safeOverlap } from '../../../src/optimizer/index.ts';
import { hasGcc } from '../replay-helpers.ts';
import { svdfCase } from '../stateful-generators.ts';
import { opCase, shuffled } from './data-op-cases.ts';
import type { OpCase, Rng } from './helpers.ts';
import { instanceFor, int } from './helpers.ts';

const DIR = process.env.MCUSIM_CMSIS_NN_DIR ?? '';
const ready = DIR !== '' && existsSync(join(DIR, 'Include', 'arm_nnfunctions.h')) && hasGcc;
if (!ready) console.warn('[cmsis-nn host-c] SKIPPED: set MCUSIM_CMSIS_NN_DIR to a CMSIS-NN tree (4ab83cc3) and have gcc to compile arm_transpose_s8, arm_pad_s8, arm_maximum_s8 / arm_minimum_s8 and arm_svdf_* for the host');

const SEED = 'cmsis-nn-host-c';
const PLAIN = kernelRegistry('cmsis-nn', 'cortex-m3');
const SOURCES = [
  'TransposeFunctions/arm_transpose_s8.c', 'PadFunctions/arm_pad_s8.c', 'BasicMathFunctions/arm_maximum_s8.c', 'BasicMathFunctions/arm_minimum_s8.c',
  'SVDFunctions/arm_svdf_s8.c', 'SVDFunctions/arm_svdf_state_s16_s8.c', 'NNSupportFunctions/arm_nn_vec_mat_mult_t_s8.c', 'NNSupportFunctions/arm_nn_vec_mat_mult_t_svdf_s8.c',
];
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const bytesC = (b: Uint8Array): string => `{ ${b.length ? Array.from(b).join(', ') : '0'} }`;
const dims4 = (s: readonly number[]): string => `{ ${[...s, 1, 1, 1, 1].slice(0, 4).join(', ')} }`;
const ext4 = (s: readonly number[]): number[] => [...Array.from({ length: Math.max(0, 4 - s.length) }, () => 1), ...s];

/** Compile the driver with the CMSIS-NN sources, run it: one hex line per printed buffer. */
function runHost(body: string): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'mcusim-cmsis-host-'));
  try {
    const src = `#include <stdio.h>\n#include <string.h>\n#include "arm_nnfunctions.h"\nstatic void dump(const void* p, int n) { const unsigned char* b = p; for (int i = 0; i < n; ++i) printf("%02x", b[i]); printf("\\n"); }\nstatic int8_t buf[1 << 16];\nint main(void) {\n${body}  return 0;\n}\n`;
    writeFileSync(join(dir, 'main.c'), src);
    execFileSync('gcc', ['-O2', '-std=c99', '-I', join(DIR, 'Include'), '-o', join(dir, 'main'), join(dir, 'main.c'), ...SOURCES.map((s) => join(DIR, 'Source', s))], { stdio: 'pipe' });
    return execFileSync(join(dir, 'main'), { encoding: 'utf8', maxBuffer: 1 << 26 }).trim().split('\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The spec run on `c` in a layout (tensor -> offset); the bytes of `read` tensors afterwards. */
function runLaidOut(spec: KernelSpec, c: OpCase, read: readonly number[], offsets?: ReadonlyMap<number, number>): string[] {
  const { inst, tensorOffsets, arenaBytes } = instanceFor(spec, c, offsets);
  const views = makeArenaViews(new ArrayBuffer(arenaBytes));
  for (const [t, b] of c.inputs) views.u8.set(b, tensorOffsets[t] ?? 0);
  compileKernel(inst, views).run();
  return read.map((t) => {
    const x = c.graph.tensors[t]!;
    const o = tensorOffsets[t] ?? 0;
    return hex(views.u8.slice(o, o + byteSize(x.dtype, x.shape)));
  });
}

interface Check { readonly c: string; readonly want: string }

/** `call(in, out)` at overlap s: output at buf, input at buf + OB - s (s = null: apart). */
function overlapped(c: OpCase, spec: KernelSpec, s: number | null, call: (inp: string, out: string) => string, copyOthers = ''): Check {
  const input = c.graph.inputs[0]!;
  const x = c.inputs.get(input)!;
  const out = c.graph.tensors[c.output]!;
  const ob = byteSize(out.dtype, out.shape);
  const inOff = s === null ? ob + 64 : ob - s;
  const code = `  { static const int8_t x[] = ${bytesC(x)}; memset(buf, 0, sizeof buf); memcpy(buf + ${inOff}, x, ${x.length});\n${copyOthers}    ${call(`buf + ${inOff}`, 'buf')};\n    dump(buf, ${ob}); }\n`;
  const offsets = new Map([[input, inOff], [c.output, 0]]);
  return { c: code, want: runLaidOut(spec, c, [c.output], offsets)[0]! };
}

const overlaps = (c: OpCase, os: number): (number | null)[] => {
  const ob = byteSize(c.graph.tensors[c.output]!.dtype, c.graph.tensors[c.output]!.shape);
  const ib = c.inputs.get(c.graph.inputs[0]!)!.length;
  return [...new Set([null, os, os + 1, Math.min(ob, ib), Math.floor(os / 2)].filter((v) => v === null || (v >= 0 && v <= Math.min(ob, ib))))];
};

function transposeChecks(r: Rng): Check[] {
  const spec = PLAIN.specs.transpose as KernelSpec;
  const out: Check[] = [];
  for (let i = 0; i < 25; i++) {
    const rank = int(r, 1, 4);
    const input = Array.from({ length: rank }, () => int(r, 1, 7));
    const perm = shuffled(r, rank);
    const c = opCase(r, { kind: 'transpose', input, perm });
    const os = safeOverlap(c.graph, 0, { registry: PLAIN });
    const outShape = perm.map((d) => input[d]!);
    for (const s of overlaps(c, os)) {
      out.push(overlapped(c, spec, s, (inp, o) =>
        `static const uint32_t perm${i}[] = { ${perm.join(', ')} }; const cmsis_nn_dims a = ${dims4(input)}, b = ${dims4(outShape)}; const cmsis_nn_transpose_params tp = { ${rank}, perm${i} }; arm_transpose_s8(${inp}, ${o}, &a, &b, &tp)`));
    }
  }
  return out;
}

function maxMinChecks(r: Rng): Check[] {
  const out: Check[] = [];
  for (let i = 0; i < 30; i++) {
    const kind = i % 2 === 0 ? 'maximum' : 'minimum';
    const spec = PLAIN.specs[kind] as KernelSpec;
    const input = [int(r, 1, 2), int(r, 1, 4), int(r, 1, 5), int(r, 1, 9)];
    const second = i % 5 === 0 ? input : input.map((d) => (r() < 0.4 ? 1 : d)).slice(int(r, 0, 3));
    const c = opCase(r, { kind, input, second });
    if (spec.constraints.some((k) => !k.holds(makeOpContext(c.graph, 0)))) continue;
    const y = c.inputs.get(c.graph.inputs[1]!)!;
    const os = safeOverlap(c.graph, 0, { registry: PLAIN });
    for (const s of overlaps(c, os)) {
      const call = (inp: string, o: string): string =>
        `const cmsis_nn_dims a = ${dims4(ext4(input))}, b = ${dims4(ext4(second))}, d = ${dims4(ext4(input))}; cmsis_nn_context ctx = { 0, 0 }; arm_${kind}_s8(&ctx, ${inp}, &a, y${i}, &b, ${o}, &d)`;
      out.push(overlapped(c, spec, s, call, `    static const int8_t y${i}[] = ${bytesC(y)};\n`));
    }
  }
  return out;
}

function padChecks(r: Rng): Check[] {
  const spec = PLAIN.specs.pad as KernelSpec;
  const out: Check[] = [];
  for (let i = 0; i < 25; i++) {
    const rank = int(r, 1, 4);
    const input = Array.from({ length: rank }, () => int(r, 1, 6));
    const pads = input.flatMap(() => [int(r, 0, 2), int(r, 0, 2)]);
    const c = opCase(r, { kind: 'pad', input, pads });
    const zp = c.graph.tensors[c.output]!.quant?.zeroPoint[0] ?? 0;
    const pre = ext4(pads.filter((_, k) => k % 2 === 0)).map((v, k) => (k < 4 - rank ? 0 : v));
    const post = ext4(pads.filter((_, k) => k % 2 === 1)).map((v, k) => (k < 4 - rank ? 0 : v));
    out.push(overlapped(c, spec, null, (inp, o) =>
      `const cmsis_nn_dims a = ${dims4(ext4(input))}, p = ${dims4(pre)}, q = ${dims4(post)}; arm_pad_s8(${inp}, ${o}, ${zp}, &a, &p, &q)`));
  }
  return out;
}

function svdfChecks(r: Rng): Check[] {
  const spec = PLAIN.specs.svdf as KernelSpec;
  const out: Check[] = [];
  for (let i = 0; i < 30; i++) {
    const s = svdfCase(r);
    const g = s.graph;
    const op = g.ops[0]!;
    const c: OpCase = { graph: g, inputs: new Map(g.inputs.map((t, k) => [t, s.inputs[k]!] as const)), output: g.outputs[0]! };
    const p = spec.prepare(makeOpContext(g, 0)).scalars;
    const t = (slot: number) => g.tensors[op.inputs[slot]!]!;
    const [b = 1, inSize = 1] = t(0).shape;
    const [filters = 1, memory = 1] = t(2).shape;
    const units = t(3).shape[0] ?? 1;
    const int16 = t(4).dtype === 'int16';
    const st = int16 ? 'int16_t' : 'int8_t';
    const rank = (op as unknown as { options: { rank: number } }).options.rank;
    const fn = int16 ? 'arm_svdf_state_s16_s8(&sa, &sb' : 'arm_svdf_s8(&ks, &sa, &sb';
    const code = `  { static const int8_t x[] = ${bytesC(c.inputs.get(op.inputs[0]!)!)}; static const int8_t wf[] = ${bytesC(t(1).data!)};
    static ${st} wt[${filters * memory}]; static int32_t bias[${units}]; static ${st} state[${b * filters * memory}];
    static const uint8_t wtb[] = ${bytesC(t(2).data!)}, biasb[] = ${bytesC(t(3).data!)}, stateb[] = ${bytesC(c.inputs.get(op.inputs[4]!)!)};
    memcpy(wt, wtb, sizeof wtb); memcpy(bias, biasb, sizeof biasb); memcpy(state, stateb, sizeof stateb);
    static int32_t s0[${b * filters}], s1[${b * units}]; int8_t y[${b * units}];
    cmsis_nn_context ks = { 0, 0 }, sa = { s0, sizeof s0 }, sb = { s1, sizeof s1 };
    const cmsis_nn_svdf_params sp = { ${rank}, ${p.inZp}, ${p.outZp}, { -32768, 32767 }, { -128, 127 } };
    const cmsis_nn_per_tensor_quant_params q1 = { ${p.m1}, ${p.sh1} }, q2 = { ${p.m2}, ${p.sh2} };
    const cmsis_nn_dims di = { ${b}, ${inSize}, 1, 1 }, ds = { ${units}, 1, 1, 1 }, dwf = { ${filters}, ${inSize}, 1, 1 }, dwt = { ${filters}, ${memory}, 1, 1 }, db = { ${units}, 1, 1, 1 }, dout = { ${b}, ${units}, 1, 1 };
    ${fn}, &sp, &q1, &q2, &di, x, &ds, state, &dwf, wf, &dwt, wt, &db, bias, &dout, y);
    dump(y, sizeof y); dump(state, sizeof state); }\n`;
    const [yHex, stateHex] = runLaidOut(spec, c, [c.output, op.inputs[4]!]);
    out.push({ c: code, want: `${yHex}\n${stateHex}` });
  }
  return out;
}

describe.skipIf(!ready)('CMSIS-NN data ops against the real C (host gcc, plain-C path)', () => {
  it.each([
    ['arm_transpose_s8 (apart and overlapped)', transposeChecks],
    ['arm_maximum_s8 / arm_minimum_s8 (apart and overlapped)', maxMinChecks],
    ['arm_pad_s8', padChecks],
    ['arm_svdf_state_s16_s8 / arm_svdf_s8 (output and state)', svdfChecks],
  ] as const)('%s: the spec gives the bytes the C gives', (_name, make) => {
    const checks = make(seedrandom(`${SEED}-${_name}`));
    expect(checks.length).toBeGreaterThan(20);
    const got = runHost(checks.map((k) => k.c).join(''));
    expect(got.join('\n')).toBe(checks.map((k) => k.want).join('\n'));
  });
});
