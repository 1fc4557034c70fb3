// The first tap of CMSIS-NN's arm_max_pool_s8 is arm_memcpy_s8 = memcpy (DSP / plain C) or a loop of
// 16-byte vectors (MVE). With the output overlapping the input a few bytes ahead, what the copy
// clobbers depends on its chunks (each chunk loaded, then stored): found by the real-library check
// (testdata/real-builds/cmsis-nn: maxPool2d, output 1 byte after the input, differed from a
// byte-by-byte copy).
// Here an independent model of newlib's memcpy-armv7m (from the toolchain's disassembly) and of the
// MVE loop gives the expected bytes.
import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import type { KernelSpec } from '../../../src/kernels/index.ts';
import { kernelRegistry } from '../../../src/kernels/index.ts';
import { buildSingleOpGraph } from '../../../src/optimizer/index.ts';
import { runSpec } from './helpers.ts';

/** The chunk sizes memcpy(dst, src, n) copies with, in order (newlib memcpy-armv7m, unaligned access on). */
function newlibChunks(dst: number, src: number, n: number): number[] {
  const mis = (dst | src) % 4 !== 0;
  if (mis && n >= 4 && n < 8) return Array.from({ length: n }, () => 1);
  const head = n >= 8 && src % 4 !== 0 && dst % 4 !== 0 ? 4 - (dst % 4) : 0;
  const rest = n - head;
  return [...(head % 2 ? [1] : []), ...(head >= 2 ? [2] : []), ...Array.from({ length: Math.floor(rest / 4) }, () => 4), ...(rest % 2 ? [1] : []), ...(rest % 4 >= 2 ? [2] : [])];
}
const mveChunks = (n: number): number[] => [...Array.from({ length: Math.floor(n / 16) }, () => 16), ...(n % 16 ? [n % 16] : [])];

function copy(arena: Uint8Array, dst: number, src: number, chunks: readonly number[]): void {
  let at = 0;
  for (const c of chunks) (arena.set(arena.slice(src + at, src + at + c), dst + at), (at += c));
}

// A 1x1 max pool of stride 2: output pixel p copies input pixel 2p (no compare, no clamp change).
const DEPTH = 10;
const spec = { kind: 'maxPool2d' as const, input: [1, 1, 4, DEPTH], filter: [1, 1] as const, stride: [2, 2] as const, padding: 'valid' as const };

/** The arena after the pool with the input at 0 and the output at `k`, copying with `chunksOf`. */
function expected(input: Uint8Array, k: number, chunksOf: (dst: number, src: number, n: number) => number[], depth = DEPTH): Uint8Array {
  const arena = new Uint8Array(Math.max(input.length, k + 2 * depth));
  arena.set(input, 0);
  for (let p = 0; p < 2; p++) copy(arena, k + p * depth, 2 * p * depth, chunksOf(k + p * depth, 2 * p * depth, depth));
  return arena.slice(k, k + 2 * depth);
}

describe('CMSIS-NN max pool: the first tap copies as arm_memcpy_s8 does (chunks), not byte by byte', () => {
  const graph = buildSingleOpGraph(spec);
  const input = Uint8Array.from({ length: 4 * DEPTH }, (_, i) => (i * 37 + 11) & 0xff);
  const c = { graph, inputs: new Map([[graph.inputs[0]!, input]]), output: graph.outputs[0]! };
  const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
  // Output at 12 (4-aligned): pixel 1 copies input bytes 20..29 to 22..31, 2 bytes ahead.
  it.each([12, 8, 16, 4])('DSP (newlib memcpy): output %i bytes after the input', (k) => {
    const got = runSpec(kernelRegistry('cmsis-nn', 'cortex-m7').specs.maxPool2d as KernelSpec, c, new Map([[graph.inputs[0]!, 0], [graph.outputs[0]!, k]]));
    expect(hex(got.output)).toBe(hex(expected(input, k, newlibChunks)));
    expect(got.walkMatchesTrace).toBe(true);
  });
  it('under 4 bytes, misaligned: one byte then a halfword (depth 3, output 4 bytes after the input)', () => {
    const g = buildSingleOpGraph({ ...spec, input: [1, 1, 4, 3] });
    const inp = Uint8Array.from({ length: 12 }, (_, i) => (i * 53 + 7) & 0xff);
    const got = runSpec(kernelRegistry('cmsis-nn', 'cortex-m7').specs.maxPool2d as KernelSpec, { graph: g, inputs: new Map([[g.inputs[0]!, inp]]), output: g.outputs[0]! },
      new Map([[g.inputs[0]!, 0], [g.outputs[0]!, 4]]));
    expect(hex(got.output)).toBe(hex(expected(inp, 4, newlibChunks, 3)));
    expect(hex(got.output)).not.toBe(hex(expected(inp, 4, (_d, _s, n) => Array.from({ length: n }, () => 1), 3)));
  });
  it('the chunking matters here: a byte-by-byte copy would give other bytes (k = 12)', () => {
    expect(hex(expected(input, 12, newlibChunks))).not.toBe(hex(expected(input, 12, (_d, _s, n) => Array.from({ length: n }, () => 1))));
  });
  it('MVE (16-byte vectors, the last predicated): depth 20, output 28 bytes after the input', () => {
    const g = buildSingleOpGraph({ ...spec, input: [1, 1, 4, 20] });
    const r = seedrandom('maxpool-memcpy-mve');
    const inp = Uint8Array.from({ length: 80 }, () => Math.floor(r() * 256));
    const got = runSpec(kernelRegistry('cmsis-nn', 'cortex-m55').specs.maxPool2d as KernelSpec, { graph: g, inputs: new Map([[g.inputs[0]!, inp]]), output: g.outputs[0]! },
      new Map([[g.inputs[0]!, 0], [g.outputs[0]!, 28]]));
    const arena = new Uint8Array(80);
    arena.set(inp, 0);
    for (let p = 0; p < 2; p++) copy(arena, 28 + p * 20, 40 * p, mveChunks(20));
    expect(hex(got.output)).toBe(hex(arena.slice(28, 68)));
  });
});
