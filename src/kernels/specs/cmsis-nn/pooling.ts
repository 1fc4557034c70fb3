// AveragePool2D and MaxPool2D, int8, as TFLM's cmsis_nn/pooling.cc runs them: arm_avgpool_s8 and
// arm_max_pool_s8 (CMSIS-NN 4ab83cc3), batch loop inside the kernel. Memory: OpData (reference data +
// buffer_idx) and, for average pooling, the sums buffer of arm_avgpool_s8_get_buffer_size (DSP:
// channels x int32; MVE and plain C: none).
// Access order (what in-place plans depend on):
// - avgpool DSP: per output pixel, every in-bounds tap adds all channels into the int32 sums buffer
//   (the first tap copies), then the channels are scaled and stored; MVE: 16-channel slices, taps
//   inside; plain C: the reference order (full window with a bounds test = the clipped window).
// - maxpool (every path): the OUTPUT is the accumulator: the first tap is copied into it, later taps
//   compare against it in place (DSP/C: 4-byte words, output read before input; tail bytes input
//   first; MVE: 16-byte vectors), and after all pixels of a batch the whole batch output is clamped
//   in place. Values equal the reference kernel's (same sums, same rounding, max is order-free), and
//   so does O_s on every shape tested (each extra store lands on bytes already written).
import type { Nest } from '../../nest.ts';
import { For, If, Let, Set, Store, Val } from '../../nest.ts';
import type { KernelSpec, Prepared } from '../../spec.ts';
import { TFLITE_POOL_PARAMS, stock } from '../../tflm-memory.ts';
import { averagePool2dSpec } from '../average-pool2d.ts';
import { maxPool2dSpec } from '../max-pool2d.ts';
import { CMSIS_OP_DATA_POOLING } from './cmsis-memory.ts';
import type { CmsisNnFeatures } from './conv-family.ts';

/** Output pixel loops with the clipped window (arm_*_pool_s8's kernel_<x,y>_start / _end). */
function pixelLoops(perPixel: Nest): Nest {
  return [
    For('outY', '0', 'outH', [
      Let('inYOrigin', 'outY * strideH - padH'),
      Let('fyStart', 'max(0, -inYOrigin)'),
      Let('fyEnd', 'min(fH, inH - inYOrigin)'),
      For('outX', '0', 'outW', [
        Let('inXOrigin', 'outX * strideW - padW'),
        Let('fxStart', 'max(0, -inXOrigin)'),
        Let('fxEnd', 'min(fW, inW - inXOrigin)'),
        Let('taps', '(fyEnd - fyStart) * (fxEnd - fxStart)'),
        Let('outBase', '((b * outH + outY) * outW + outX) * depth'),
        ...perPixel,
      ]),
    ]),
  ];
}

/** Every in-bounds tap of the window, `first` true for the first one, `inBase` its channel-0 index. */
function taps(body: Nest): Nest {
  return [
    For('fy', 'fyStart', 'fyEnd', [
      For('fx', 'fxStart', 'fxEnd', [
        Let('inBase', '((b * inH + inYOrigin + fy) * inW + inXOrigin + fx) * depth'),
        Let('first', '(fy == fyStart) && (fx == fxStart)'),
        ...body,
      ]),
    ]),
  ];
}

const AVG_DSP: Nest = [
  For('b', '0', 'batches', pixelLoops([
    ...taps([
      If('first', [For('ch', '0', 'depth', [Store('sums', 'ch', 'input[inBase + ch]')])],
        [For('ch', '0', 'depth', [Store('sums', 'ch', 'input[inBase + ch] + sums[ch]')])]),
    ]),
    For('ch', '0', 'depth', [Store('output', 'outBase + ch', 'clamp(avgRound(sums[ch], taps), actMin, actMax)')]),
  ])),
];

const range = (n: number): number[] => Array.from({ length: n }, (_, k) => k);

/** MVE: 16-channel slices (the last one predicated), every tap inside a slice; the sums are vector
 * registers (s0..s15), not a buffer. */
const AVG_MVE: Nest = [
  For('b', '0', 'batches', pixelLoops([
    For('slice', '0', '(depth + 15) / 16', [
      Let('c0', 'slice * 16'),
      Let('lanes', 'min(16, depth - c0)'),
      ...range(16).map((k) => Val(`s${k}`, '0')),
      ...taps(range(16).map((k) => If(`${k} < lanes`, [Set(`s${k}`, `s${k} + input[inBase + c0 + ${k}]`)]))),
      ...range(16).map((k) => If(`${k} < lanes`, [Store('output', `outBase + c0 + ${k}`, `clamp(avgRound(s${k}, taps), actMin, actMax)`)])),
    ]),
  ])),
];

/** `body` for lane k: always for a 4-byte word, under the tail predicate `k < n` for a 16-byte vector. */
function onLane(w: number, k: number, n: string, body: Nest): Nest {
  return w === 16 ? [If(`${k} < ${n}`, body)] : body;
}

/** Lanes loaded into registers `<r>0..<r>w-1` (declared unconditionally, loaded under the predicate). */
function loadLanes(w: number, r: string, at: (k: number) => string, n: string): Nest {
  return w === 16
    ? [...range(w).map((k) => Val(`${r}${k}`, '0')), ...range(w).flatMap((k) => onLane(w, k, n, [Set(`${r}${k}`, at(k))]))]
    : range(w).map((k) => Val(`${r}${k}`, at(k)));
}

/** One `w`-byte group at output index `o` and input index `i` (lanes below `n`): output read, then
 * input, then stored (DSP/C: arm_nn_read_s8x4 of dst, of src, write; MVE: vldrbq of base, target, vstrbq). */
function maxGroup(w: number, o: string, i: string, n: string): Nest {
  return [
    ...loadLanes(w, 'o', (k) => `output[${o} + ${k}]`, n),
    ...loadLanes(w, 'i', (k) => `input[${i} + ${k}]`, n),
    ...range(w).flatMap((k) => onLane(w, k, n, [Store('output', `${o} + ${k}`, `max(o${k}, i${k})`)])),
  ];
}

/** One memcpy chunk: `n` bytes from `at` loaded, then stored (an LDR/STR, LDRH/STRH, VLDRB/VSTRB pair). */
function copyChunk(n: number, at: string): Nest {
  return [
    ...range(n).map((k) => Val(`c${k}`, `input[inBase + ${at} + ${k}]`)),
    ...range(n).map((k) => Store('output', `outBase + ${at} + ${k}`, `c${k}`)),
  ];
}

/**
 * arm_memcpy_s8 of the first tap (depth bytes), chunk by chunk: what an overlapping copy clobbers
 * depends on it. MVE: CMSIS-NN's own loop of 16-byte vectors, the last one predicated. DSP and plain
 * C: memcpy, newlib's memcpy-armv7m (the arm-none-eabi toolchain's, disassembled from the linked
 * harness): misaligned and of 4 to 7 bytes one byte at a time; else (from 8 bytes, when source
 * and destination are both misaligned) 1 then 2 bytes up to an aligned destination, then 4-byte
 * words, then 1 and 2 tail bytes (under 4 bytes only these). Alignment is the index's modulo 4: tensors start at multiples of 4 (TFLM and mcusim plans
 * align them to 16).
 */
function memcpyNest(w: number): Nest {
  if (w === 16) {
    return [
      For('vi', '0', 'depth / 16', [Let('v', 'vi * 16'), ...copyChunk(16, 'v')]),
      If('depth % 16 > 0', [
        Let('v', 'depth - depth % 16'),
        ...loadLanes(16, 'c', (k) => `input[inBase + v + ${k}]`, 'depth % 16'),
        ...range(16).flatMap((k) => onLane(16, k, 'depth % 16', [Store('output', `outBase + v + ${k}`, `c${k}`)])),
      ]),
    ];
  }
  return [
    Let('srcMis', '(inBase % 4) != 0'),
    Let('dstMis', '(outBase % 4) != 0'),
    If('(srcMis || dstMis) && depth >= 4 && depth < 8', [For('ch', '0', 'depth', copyChunk(1, 'ch'))], [
      // From 8 bytes, when both are misaligned: 1 and 2 bytes up to an aligned destination first.
      Let('head', 'min(depth / 8, 1) * min(inBase % 4, 1) * min(outBase % 4, 1) * (4 - outBase % 4)'),
      If('head % 2 == 1', copyChunk(1, '0')),
      If('head >= 2', copyChunk(2, 'head % 2')),
      Let('rest', 'depth - head'),
      For('wi', '0', 'rest / 4', [Let('at', 'head + wi * 4'), ...copyChunk(4, 'at')]),
      Let('tail', 'depth - rest % 4'),
      If('rest % 2 == 1', copyChunk(1, 'tail')),
      If('rest % 4 >= 2', copyChunk(2, 'tail + rest % 2')),
    ]),
  ];
}

/** arm_memcpy_s8 for the first tap, compare_and_replace_if_larger_q7 for the others. */
function maxTap(w: number): Nest {
  const tail: Nest = w === 16
    ? [If('depth % 16 > 0', [Let('g', 'depth - depth % 16'), ...maxGroup(16, 'outBase + g', 'inBase + g', 'depth % 16')])]
    : [For('t', 'depth - depth % 4', 'depth', [Val('x', 'input[inBase + t]'), Store('output', 'outBase + t', 'max(x, output[outBase + t])')])];
  return [
    If('first', memcpyNest(w), [
      For('gi', '0', `depth / ${w}`, [Let('g', `gi * ${w}`), ...maxGroup(w, 'outBase + g', 'inBase + g', String(w))]),
      ...tail,
    ]),
  ];
}

/** clamp_output over a batch's whole output, in place (words / vectors, then DSP's tail bytes). */
function maxClamp(w: number): Nest {
  const group = (g: string): Nest => [
    ...loadLanes(w, 'o', (k) => `output[${g} + ${k}]`, 'n'),
    ...range(w).flatMap((k) => onLane(w, k, 'n', [Store('output', `${g} + ${k}`, `clamp(o${k}, actMin, actMax)`)])),
  ];
  const whole = w === 16 ? '(batchLen + 15) / 16' : 'batchLen / 4';
  return [
    Let('batchOut', 'b * outH * outW * depth'),
    Let('batchLen', 'outH * outW * depth'),
    For('gi', '0', whole, [Let('g', `batchOut + gi * ${w}`), Let('n', `min(${w}, batchLen - gi * ${w})`), ...group('g')]),
    ...(w === 16 ? [] : [For('t', 'batchOut + batchLen - batchLen % 4', 'batchOut + batchLen', [Store('output', 't', 'clamp(output[t], actMin, actMax)')])]),
  ];
}

function maxNest(w: number): Nest {
  return [For('b', '0', 'batches', [...pixelLoops(taps(maxTap(w))), ...maxClamp(w)])];
}

const withScratch = (p: Prepared, scratch: Prepared['scratch'], buffers: Prepared['buffers']): Prepared => ({ ...p, scratch, buffers: { ...p.buffers, ...buffers } });

export function cmsisNnAveragePool2dSpec(f: CmsisNnFeatures): KernelSpec<'averagePool2d'> {
  const tflmPersistent = stock<'averagePool2d'>(TFLITE_POOL_PARAMS, CMSIS_OP_DATA_POOLING);
  // Plain C: arm_avgpool_s8's reference loop, the reference kernel's accesses; no buffer.
  if (!f.dsp) return { ...averagePool2dSpec, tflmPersistent };
  if (f.mve) return { ...averagePool2dSpec, tflmPersistent, body: AVG_MVE };
  return {
    ...averagePool2dSpec,
    requestsScratch: true,
    tflmPersistent,
    prepare(c) {
      const p = averagePool2dSpec.prepare(c);
      return withScratch(p, [{ name: 'sums', dtype: 'int32', sizeBytes: 4 * (p.scalars.depth ?? 0) }], { sums: { kind: 'scratch', index: 0 } });
    },
    body: AVG_DSP,
  };
}

export function cmsisNnMaxPool2dSpec(f: CmsisNnFeatures): KernelSpec<'maxPool2d'> {
  const w = f.mve ? 16 : 4;
  return {
    ...maxPool2dSpec,
    tflmPersistent: stock(TFLITE_POOL_PARAMS, CMSIS_OP_DATA_POOLING),
    body: maxNest(w),
  };
}
