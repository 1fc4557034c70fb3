// The CMSIS-NN conv-family specs (src/kernels/specs/cmsis-nn/conv-family.ts): on seeded random
// shapes and quantizations their outputs equal the reference specs' byte for byte (CMSIS-NN's
// arithmetic agrees with TFLM's reference kernels for these ops; only the access order differs),
// fast == traced == address walk, the path and scratch follow the wrappers' rules, and the access
// order differs from the reference where CMSIS-NN's loops do (the reason DMO plans break).
import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import { conv2dSpec } from '../../../src/kernels/specs/conv2d.ts';
import { depthwiseConv2dSpec } from '../../../src/kernels/specs/depthwise-conv2d.ts';
import type { CmsisNnFeatures } from '../../../src/kernels/specs/cmsis-nn/conv-family.ts';
import {
  CONV_PATH, DW_PATH, OP_DATA_CMSIS_CONV, cmsisConvPath, cmsisDepthwisePath, cmsisNnConv2dSpec, cmsisNnDepthwiseConv2dSpec, cmsisNnTransposeConvSpec,
} from '../../../src/kernels/specs/cmsis-nn/conv-family.ts';
import type { KernelSpec } from '../../../src/kernels/index.ts';
import { OP_DATA_TRANSPOSE_CONV, checkConstraints, makeOpContext } from '../../../src/kernels/index.ts';
import { CORTEX_M, structLayout } from '../../../src/sim/index.ts';
import { OP_DATA_CMSIS_TRANSPOSE_CONV } from '../../../src/kernels/specs/cmsis-nn/transpose-conv-paths.ts';
import { transposeConvSpec } from '../../../src/kernels/specs/transpose-conv.ts';
import { hasGcc } from '../replay-helpers.ts';
import { convCase, int, randomConvShape, randomTransposeShape, runSpec, runSpecsC, transposeConvCase } from './helpers.ts';

const SEED = 'cmsis-nn-conv-1';
const CASES = 150;
const DSP: CmsisNnFeatures = { dsp: true, mve: false };
const PLAIN: CmsisNnFeatures = { dsp: false, mve: false };
const MVE: CmsisNnFeatures = { dsp: true, mve: true };
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

describe.each([['dsp', DSP], ['plain C', PLAIN]] as const)('CMSIS-NN conv family (%s) equals the reference arithmetic', (_name, f) => {
  it.each(['conv2d', 'depthwiseConv2d'] as const)('%s: random cases, every path', (kind) => {
    const r = seedrandom(`${SEED}-${kind}-${f.dsp}`);
    const spec = (kind === 'conv2d' ? cmsisNnConv2dSpec(f) : cmsisNnDepthwiseConv2dSpec(f)) as KernelSpec;
    const ref = (kind === 'conv2d' ? conv2dSpec : depthwiseConv2dSpec) as KernelSpec;
    const paths = new Map<number, number>();
    let ran = 0;
    for (let i = 0; i < CASES; i++) {
      const c = convCase(r, kind, randomConvShape(r, kind));
      if (c === null) continue;
      const got = runSpec(spec, c);
      const want = runSpec(ref, c);
      const path = spec.prepare(makeOpContext(c.graph, 0)).flags?.path ?? -1;
      paths.set(path, (paths.get(path) ?? 0) + 1);
      const where = `${SEED} ${kind} case ${i} path ${path}`;
      expect(hex(got.output), where).toBe(hex(want.output));
      expect(hex(got.traced), where).toBe(hex(got.output));
      expect(got.walkMatchesTrace, where).toBe(true);
      ran++;
    }
    expect(ran).toBeGreaterThan(CASES / 2);
    const expected = kind === 'conv2d'
      ? [CONV_PATH.im2col, CONV_PATH.ntAllRows, CONV_PATH.ntPerRow]
      : f.dsp ? [DW_PATH.generic, DW_PATH.threeByThree, DW_PATH.optDsp, DW_PATH.mult4] : [DW_PATH.generic, DW_PATH.threeByThree, DW_PATH.mult4];
    expect([...paths.keys()].sort()).toEqual([...expected].sort());
  });
});

describe('CMSIS-NN depthwiseConv2d on MVE (opt MVE and depthwise-as-conv)', () => {
  it('random cases equal the reference arithmetic on every MVE path', () => {
    const r = seedrandom(`${SEED}-dw-mve`);
    const spec = cmsisNnDepthwiseConv2dSpec(MVE) as KernelSpec;
    const paths = new Set<number>();
    let ran = 0;
    for (let i = 0; i < CASES; i++) {
      const shape = randomConvShape(r, 'depthwiseConv2d');
      const c = convCase(r, 'depthwiseConv2d', i % 4 === 0 ? { ...shape, ic: 1, depthMult: 1 + (i % 7) } : shape);
      if (c === null || checkConstraints(spec, makeOpContext(c.graph, 0)).length > 0) continue;
      const got = runSpec(spec, c);
      const where = `${SEED}-dw-mve case ${i}`;
      expect(hex(got.output), where).toBe(hex(runSpec(depthwiseConv2dSpec as KernelSpec, c).output));
      expect(hex(got.traced), where).toBe(hex(got.output));
      expect(got.walkMatchesTrace, where).toBe(true);
      paths.add(spec.prepare(makeOpContext(c.graph, 0)).flags?.path ?? -1);
      ran++;
    }
    expect(ran).toBeGreaterThan(CASES / 2);
    expect([...paths].sort()).toEqual([DW_PATH.generic, DW_PATH.mult4, DW_PATH.optMve, DW_PATH.toConv].sort());
  });
  it('opt MVE: more than 124 channels run as two channel blocks, the input read again for the second', () => {
    const c = convCase(seedrandom(`${SEED}-dw-blocks`), 'depthwiseConv2d', { n: 1, h: 3, w: 2, ic: 130, oc: 0, fh: 3, fw: 3, sh: 1, sw: 1, dh: 1, dw: 1, padding: 'same', depthMult: 1 })!;
    const got = runSpec(cmsisNnDepthwiseConv2dSpec(MVE) as KernelSpec, c);
    expect(hex(got.output)).toBe(hex(runSpec(depthwiseConv2dSpec as KernelSpec, c).output));
    // Channel 125 of pixel 0 is read after every pixel's first block was written.
    const lastStoreBlock0 = got.events.map((e) => e.kind === 'store' && e.bufferId === 3).lastIndexOf(true, got.events.findIndex((e) => e.kind === 'load' && e.bufferId === 0 && e.address === 125));
    expect(lastStoreBlock0).toBeGreaterThan(0);
  });
});

describe('CMSIS-NN conv2d on MVE (arm_nn_mat_mult_nt_t_s8 MVE order)', () => {
  it('random cases equal the reference arithmetic (1xN split as arm_convolve_1_x_n_s8 makes it)', () => {
    const r = seedrandom(`${SEED}-mve`);
    const spec = cmsisNnConv2dSpec(MVE) as KernelSpec;
    const paths = new Set<number>();
    let ran = 0;
    for (let i = 0; i < CASES; i++) {
      const shape = randomConvShape(r, 'conv2d');
      const c = convCase(r, 'conv2d', i % 3 === 0 ? { ...shape, h: 1, fh: 1, dw: 1, ic: 4 * int(r, 1, 2), w: int(r, 3, 12) } : shape);
      if (c === null || checkConstraints(spec, makeOpContext(c.graph, 0)).length > 0) continue;
      const got = runSpec(spec, c);
      const where = `${SEED}-mve case ${i}`;
      expect(hex(got.output), where).toBe(hex(runSpec(conv2dSpec as KernelSpec, c).output));
      expect(hex(got.traced), where).toBe(hex(got.output));
      expect(got.walkMatchesTrace, where).toBe(true);
      paths.add(spec.prepare(makeOpContext(c.graph, 0)).flags?.path ?? -1);
      ran++;
    }
    expect(ran).toBeGreaterThan(CASES / 2);
    expect([...paths].sort()).toEqual([CONV_PATH.im2col, CONV_PATH.ntAllRows, CONV_PATH.ntPerRow, CONV_PATH.oneByNMve].sort());
  });
  it('1x1 fast: each group of 4 pixels is re-read for every output channel after its first outputs are written', () => {
    const c = convCase(seedrandom(`${SEED}-mve-1x1`), 'conv2d', { n: 1, h: 2, w: 2, ic: 4, oc: 3, fh: 1, fw: 1, sh: 1, sw: 1, dh: 1, dw: 1, padding: 'valid', bias: true })!;
    const ev = runSpec(cmsisNnConv2dSpec(MVE) as KernelSpec, c).events;
    // Input (16 bytes) at 0, output at 16: channel 0 of all 4 pixels, then channel 1 reads pixel 0 again.
    const firstStore = ev.findIndex((e) => e.kind === 'store' && e.bufferId === 3);
    expect(ev.slice(firstStore, firstStore + 4).map((e) => e.address)).toEqual([16, 19, 22, 25]);
    expect(ev[firstStore + 4]).toMatchObject({ kind: 'load', bufferId: 0, address: 0 });
  });
});

describe('path choice and scratch (arm_*_wrapper_s8 and their get_buffer_size, GCC build)', () => {
  const conv = (o: Record<string, number>): ReturnType<typeof cmsisConvPath> => cmsisConvPath({ padH: 0, padW: 0, fH: 1, fW: 1, dilH: 1, dilW: 1, strideH: 1, strideW: 1, inD: 8, ...o });
  it('conv2d: 1x1 stride 1 -> 1x1 fast (no buffer), strided -> 1x1, else im2col of 2 x aligned int16 columns', () => {
    expect(conv({})).toEqual({ path: CONV_PATH.ntAllRows, scratchBytes: 0 });
    expect(conv({ strideW: 2 })).toEqual({ path: CONV_PATH.ntPerRow, scratchBytes: 0 });
    // rhs_cols = 3 * 3 * 3 = 27, aligned to 28, two int16 columns: 112 bytes.
    expect(conv({ fH: 3, fW: 3, inD: 3, padH: 1, padW: 1 })).toEqual({ path: CONV_PATH.im2col, scratchBytes: 112 });
    // a padded 1x1 is not arm_nn_is_convolve_1x1.
    expect(conv({ padH: 1 })).toEqual({ path: CONV_PATH.im2col, scratchBytes: 32 });
  });
  it('depthwiseConv2d: 3x3 (no buffer), opt (inD x kernel int16 on DSP, none off DSP), mult_4 and generic', () => {
    const s = { batches: 1, dilH: 1, dilW: 1, depthMult: 1, fH: 3, fW: 3, padH: 1, padW: 1, inD: 10 };
    expect(cmsisDepthwisePath(s, DSP)).toEqual({ path: DW_PATH.threeByThree, scratchBytes: 0 });
    expect(cmsisDepthwisePath({ ...s, padH: 2 }, DSP)).toEqual({ path: DW_PATH.optDsp, scratchBytes: 180 });
    expect(cmsisDepthwisePath({ ...s, fW: 5 }, PLAIN)).toEqual({ path: DW_PATH.generic, scratchBytes: 0 });
    expect(cmsisDepthwisePath({ ...s, depthMult: 4 }, DSP)).toEqual({ path: DW_PATH.mult4, scratchBytes: 0 });
    expect(cmsisDepthwisePath({ ...s, depthMult: 4, batches: 2 }, DSP)).toEqual({ path: DW_PATH.generic, scratchBytes: 0 });
    expect(cmsisDepthwisePath({ ...s, dilH: 2 }, DSP)).toEqual({ path: DW_PATH.generic, scratchBytes: 0 });
  });
  it('MVE: im2col of four int8 rows of 16-byte lanes, arm_convolve_1_x_n_s8 buffer, depthwise opt / as-conv buffers', () => {
    expect(cmsisConvPath({ padH: 1, padW: 1, fH: 3, fW: 3, dilH: 1, dilW: 1, strideH: 1, strideW: 1, inD: 3 }, MVE)).toEqual({ path: CONV_PATH.im2col, scratchBytes: 4 * 32 });
    // arm_convolve_1_x_n_s8: max(left im2col = 3 x 4 + 1 x 4 of padding, right = 2 x 4 + 4) bytes.
    const oneByN = { padH: 0, padW: 1, fH: 1, fW: 3, dilH: 1, dilW: 1, strideH: 1, strideW: 1, inD: 4, inH: 1, inW: 8, outW: 8 };
    expect(cmsisConvPath(oneByN, MVE)).toEqual({ path: CONV_PATH.oneByNMve, scratchBytes: 16 });
    expect(cmsisConvPath(oneByN, DSP)).toEqual({ path: CONV_PATH.im2col, scratchBytes: 4 * 12 });
    const dw = convCase(seedrandom(SEED), 'depthwiseConv2d', { n: 1, h: 1, w: 8, ic: 1, oc: 0, fh: 1, fw: 3, sh: 1, sw: 4, dh: 1, dw: 1, padding: 'same', depthMult: 4 })!;
    expect(() => runSpec(cmsisNnDepthwiseConv2dSpec(MVE) as KernelSpec, dw)).toThrow(/depthwiseConv2d\.cmsis-nn-mve-1xn/);
    // depthwise on MVE: opt buffer of 4 x 124 channels x taps, or the conv buffer plus the transposed filter.
    expect(cmsisDepthwisePath({ batches: 1, dilH: 1, dilW: 1, depthMult: 1, fH: 3, fW: 3, padH: 1, padW: 1, inD: 10, outD: 10 }, MVE)).toEqual({ path: DW_PATH.optMve, scratchBytes: 4 * 124 * 9 });
    expect(cmsisDepthwisePath({ batches: 1, dilH: 1, dilW: 1, depthMult: 8, fH: 3, fW: 3, padH: 1, padW: 1, inD: 1, outD: 8, strideH: 1, strideW: 1 }, MVE))
      .toEqual({ path: DW_PATH.toConv, scratchBytes: 4 * 16 + 9 * 8 });
  });
});

describe('access order differs from the reference kernels where CMSIS-NN loops differ', () => {
  it('1x1 fast: arm_nn_mat_mult_nt_t_s8 re-reads the whole input for every output-channel pair', () => {
    const c = convCase(seedrandom(`${SEED}-1x1`), 'conv2d', { n: 1, h: 3, w: 3, ic: 4, oc: 6, fh: 1, fw: 1, sh: 1, sw: 1, dh: 1, dw: 1, padding: 'valid', bias: true })!;
    const cm = runSpec(cmsisNnConv2dSpec(DSP) as KernelSpec, c);
    const ref = runSpec(conv2dSpec as KernelSpec, c);
    expect(hex(cm.output)).toBe(hex(ref.output));
    const inputLoads = (ev: typeof cm.events): number => ev.filter((e) => e.kind === 'load' && e.bufferId === 0).length;
    // 9 pixels x 4 channels, read once per channel pair (3 pairs); the reference reads once per output channel.
    expect(inputLoads(cm.events)).toBe(9 * 4 * 3);
    expect(inputLoads(ref.events)).toBe(9 * 4 * 6);
    // CMSIS-NN writes channels 0-1 of every pixel, then reads pixel 0 again for channels 2-3; the
    // reference never reads pixel 0 once pixel 1's outputs are written. Input at 0 (36 bytes), output at 48.
    const pixel0Loads = (ev: typeof cm.events): number[] => ev.map((e, i) => (e.kind === 'load' && e.bufferId === 0 && e.address < 4 ? i : -1)).filter((i) => i >= 0);
    const firstStoreAt = (ev: typeof cm.events, address: number): number => ev.findIndex((e) => e.kind === 'store' && e.bufferId === 3 && e.address === address);
    expect(pixel0Loads(cm.events).at(-1)!).toBeGreaterThan(firstStoreAt(cm.events, 48 + 8 * 6));
    expect(pixel0Loads(ref.events).at(-1)!).toBeLessThan(firstStoreAt(ref.events, 48 + 6));
  });
  it('an overlap safe for the reference kernel clobbers the 1x1 fast path (output one pixel below the input)', () => {
    const c = convCase(seedrandom(`${SEED}-overlap`), 'conv2d', { n: 1, h: 4, w: 4, ic: 8, oc: 8, fh: 1, fw: 1, sh: 1, sw: 1, dh: 1, dw: 1, padding: 'valid', bias: true })!;
    const overlapped = new Map([[0, 16], [c.output, 8]]);
    const ref = conv2dSpec as KernelSpec;
    const cm = cmsisNnConv2dSpec(DSP) as KernelSpec;
    // ConvPerChannel is done with pixel p - 1 when it writes pixel p; nt_t comes back to it for every channel pair.
    expect(hex(runSpec(ref, c, overlapped).output)).toBe(hex(runSpec(ref, c).output));
    expect(hex(runSpec(cm, c, overlapped).output)).not.toBe(hex(runSpec(cm, c).output));
    expect(hex(runSpec(cm, c).output)).toBe(hex(runSpec(ref, c).output));
  });
  it('im2col conv: two pixels are read into the scratch before either is written', () => {
    const c = convCase(seedrandom(`${SEED}-im2col`), 'conv2d', { n: 1, h: 1, w: 4, ic: 2, oc: 3, fh: 1, fw: 3, sh: 1, sw: 1, dh: 1, dw: 1, padding: 'same', bias: true })!;
    const cm = runSpec(cmsisNnConv2dSpec(DSP) as KernelSpec, c);
    const out = c.output;
    const firstStore = cm.events.findIndex((e) => e.kind === 'store' && e.bufferId === out);
    // Pixel 1's window (input pixels 0..2) is read before the first output store; the reference
    // writes pixel 0's channels before reading pixel 1's window.
    const loadsBefore = cm.events.slice(0, firstStore).filter((e) => e.kind === 'load' && e.bufferId === 0).map((e) => e.address);
    expect(Math.max(...loadsBefore) - Math.min(...loadsBefore)).toBe(2 * 3 - 1);
    expect(cm.scratchBytes).toEqual([4 * 8]);
  });
});

describe('CMSIS-NN transposeConv (arm_transpose_conv_wrapper_s8)', () => {
  it.each([['row buffer', false, DSP], ['reverse conv', true, DSP], ['row buffer (MVE)', false, MVE], ['reverse conv (MVE)', true, MVE]] as const)(
    '%s: equals the reference arithmetic without a fused activation', (_name, reverse, f) => {
      const r = seedrandom(`${SEED}-tconv-${reverse}-${f.mve}`);
      const spec = cmsisNnTransposeConvSpec(f) as KernelSpec;
      const target = reverse ? 30 : 60;
      let ran = 0;
      let refused = 0;
      for (let i = 0; i < 200 && ran < target; i++) {
        const c = transposeConvCase(r, randomTransposeShape(r, reverse));
        const where = `${SEED} tconv ${reverse} mve ${f.mve} case ${i}`;
        const issues = checkConstraints(spec, makeOpContext(c.graph, 0));
        if (issues.length > 0) {
          // Only the row kernel's own limit may refuse a case (it would write outside its rows).
          expect(issues.map((x) => x.message).join(), where).toMatch(/cmsis-nn-rows/);
          refused++;
          continue;
        }
        const got = runSpec(spec, c);
        const want = runSpec(transposeConvSpec as KernelSpec, c);
        expect(hex(got.output), where).toBe(hex(want.output));
        expect(hex(got.traced), where).toBe(hex(got.output));
        expect(got.walkMatchesTrace, where).toBe(true);
        expect(spec.prepare(makeOpContext(c.graph, 0)).flags?.reverse, where).toBe(reverse ? 1 : 0);
        ran++;
      }
      expect(ran).toBe(target);
      // Only the row kernel refuses (VALID with filter < stride, padding off the stride, stride_w > stride_h).
      expect(refused > 0).toBe(!reverse);
    });
  it('ignores the fused activation (TFLM passes kTfLiteActNone to PopulateConvolutionQuantizationParams)', () => {
    const r = seedrandom(`${SEED}-tconv-relu`);
    const c = transposeConvCase(r, { n: 1, h: 3, w: 3, ic: 4, oc: 3, fh: 3, fw: 3, sh: 2, sw: 2, padding: 'same', activation: 'relu', bias: true });
    const got = runSpec(cmsisNnTransposeConvSpec(DSP) as KernelSpec, c);
    const want = runSpec(transposeConvSpec as KernelSpec, c);
    const zp = c.graph.tensors[c.output]!.quant!.zeroPoint[0]!;
    const below = Array.from(new Int8Array(got.output.buffer)).filter((v) => v < zp).length;
    expect(below).toBeGreaterThan(0);
    expect(Array.from(new Int8Array(want.output.buffer)).every((v) => v >= zp)).toBe(true);
  });
  it('scratch: the rolling row buffer or the im2col columns plus the reversed filter, never output-sized', () => {
    const r = seedrandom(`${SEED}-tconv-scratch`);
    const rows = transposeConvCase(r, { n: 1, h: 40, w: 60, ic: 16, oc: 4, fh: 2, fw: 2, sh: 2, sw: 2, padding: 'valid' });
    // tiny-unet's last TransposeConv: ((60 - 1) * 2 + 2) * 4 channels x 2 rows x int32.
    expect(cmsisNnTransposeConvSpec(DSP).prepare(makeOpContext(rows.graph, 0) as never).scratch.map((d) => d.sizeBytes)).toEqual([3840]);
    const rev = transposeConvCase(r, { n: 1, h: 10, w: 15, ic: 64, oc: 16, fh: 2, fw: 2, sh: 2, sw: 2, padding: 'valid' });
    expect(cmsisNnTransposeConvSpec(DSP).prepare(makeOpContext(rev.graph, 0) as never).scratch.map((d) => d.sizeBytes)).toEqual([4 * 256, 2 * 2 * 64 * 16]);
  });
});

describe.skipIf(!hasGcc)('the emitted C of every CMSIS-NN conv-family path equals the JS executor', () => {
  it('random cases of conv2d, depthwiseConv2d and transposeConv (DSP, plain C and MVE)', () => {
    const r = seedrandom(`${SEED}-c`);
    const runs: [KernelSpec, ReturnType<typeof convCase> & object][] = [];
    for (const f of [DSP, PLAIN, MVE]) {
      for (const kind of ['conv2d', 'depthwiseConv2d'] as const) {
        const spec = (kind === 'conv2d' ? cmsisNnConv2dSpec(f) : cmsisNnDepthwiseConv2dSpec(f)) as KernelSpec;
        for (let accepted = 0, i = 0; accepted < 30 && i < 200; i++) {
          const c = convCase(r, kind, randomConvShape(r, kind));
          if (c !== null && checkConstraints(spec, makeOpContext(c.graph, 0)).length === 0) (runs.push([spec, c]), accepted++);
        }
      }
    }
    for (let i = 0; i < 40; i++) {
      const tspec = cmsisNnTransposeConvSpec(i % 4 < 2 ? DSP : MVE) as KernelSpec;
      const c = transposeConvCase(r, randomTransposeShape(r, i % 2 === 0));
      if (checkConstraints(tspec, makeOpContext(c.graph, 0)).length === 0) runs.push([tspec, c]);
    }
    const lines = runSpecsC(runs);
    expect(lines.length).toBe(runs.length);
    runs.forEach(([spec, c], i) => expect(lines[i], `${SEED}-c case ${i} ${spec.kind}`).toBe(hex(runSpec(spec, c).output)));
  });
});

describe('TFLM persistent data of the cmsis_nn kernels (Cortex-M layout)', () => {
  it('OpData sizes: reference OpDataConv + buffer_idx, transpose_conv OpData with both scratch indices', () => {
    // OpDataConv is 56 B on Cortex-M (16 padding + 5 int32 + 2 pointers + 3 int32): + buffer_idx = 60.
    expect(structLayout(OP_DATA_CMSIS_CONV, CORTEX_M).sizeBytes).toBe(60);
    const ref = structLayout(OP_DATA_TRANSPOSE_CONV, CORTEX_M).sizeBytes;
    expect(structLayout(OP_DATA_CMSIS_TRANSPOSE_CONV, CORTEX_M).sizeBytes).toBe(ref + 4);
    const c = transposeConvCase(seedrandom(SEED), { n: 1, h: 4, w: 4, ic: 8, oc: 4, fh: 3, fw: 3, sh: 2, sw: 2, padding: 'same' });
    const t = cmsisNnTransposeConvSpec(DSP).tflmPersistent;
    if (!t.stock) throw new Error('transposeConv must be a stock TFLM kernel');
    expect(t.scratchRequests?.(makeOpContext(c.graph, 0))).toBe(2);
    expect(t.prepareBuffers?.(makeOpContext(c.graph, 0))).toEqual([16, 16]);
  });
});
