// StridedSlice: TFLM reference_ops::StridedSlice (micro/kernels/internal/reference/strided_slice.h)
// with StridedSliceStartForAxis / EndForAxis (strided_slice_logic.h). The reference loops over the
// clipped [start, stop) of every axis with its (possibly negative) stride and writes the output
// sequentially; a loop runs ceil((stop - start) / stride) times (0 when negative). Prepare follows
// strided_slice_common.cc: rank <= 4, constant begin/end/strides, non-zero strides, output dims from
// CheckOutputSize. TFLM forces ellipsis/new-axis masks to 0 (required here) and ignores `offset`.
import type { Nest } from '../nest.ts';
import { Store } from '../nest.ts';
import type { KernelSpec, OpContext } from '../spec.ts';
import { constraint, unaryPrepared } from './common.ts';
import type { Level } from './copy-common.ts';
import { constInt32s, isCopyable, loopNest, sameDtype } from './copy-common.ts';
import { STRIDED_SLICE_PARAMS, TFLITE_STRIDED_SLICE_PARAMS, stock } from '../tflm-memory.ts';

const MAX_RANK = 4;

interface AxisRange {
  readonly start: number;
  readonly stop: number;
  readonly stride: number;
  readonly shrink: boolean;
}

const clampTo = (v: number, lo: number, hi: number): number => (hi < v ? hi : v < lo ? lo : v);

/** Per-axis start/stop/stride as the kernel computes them, or null when the indices are unusable. */
function axisRanges(c: OpContext<'stridedSlice'>): AxisRange[] | null {
  const x = c.input(0)?.shape;
  const [begin, end, strides] = [1, 2, 3].map((s) => constInt32s(c.input(s)));
  if (x === undefined || !begin || !end || !strides) return null;
  const r = x.length;
  if (begin.length !== r || end.length !== r || strides.length !== r) return null;
  const o = c.op.options;
  return x.map((size, i) => {
    const stride = strides[i] ?? 1;
    const bit = 1 << i;
    let start = begin[i] ?? 0;
    if (start < 0) start += size;
    start = stride > 0 ? clampTo(start, 0, size) : clampTo(start, -1, size - 1);
    if (o.beginMask & bit) start = stride > 0 ? 0 : size - 1;
    const shrink = (o.shrinkAxisMask & bit) !== 0;
    let stop: number;
    if (shrink) {
      stop = start >= size ? start : start + 1;
    } else {
      stop = end[i] ?? 0;
      if (stop < 0) stop += size;
      stop = stride > 0 ? clampTo(stop, 0, size) : clampTo(stop, -1, size - 1);
      if (o.endMask & bit) stop = stride > 0 ? size : -1;
    }
    return { start, stop, stride, shrink };
  });
}

/** Iterations of `for (i = start; stride > 0 ? i < stop : i > stop; i += stride)`. */
const iterations = (a: AxisRange): number => Math.max(0, Math.ceil((a.stop - a.start) / a.stride));

export const stridedSliceSpec: KernelSpec<'stridedSlice'> = {
  kind: 'stridedSlice',
  tflmPersistent: stock(TFLITE_STRIDED_SLICE_PARAMS, STRIDED_SLICE_PARAMS),
  constraints: [
    constraint('stridedSlice.types', 'input and output must share one dtype (int8, int16 or int32)', (c) => isCopyable(c.input(0)) && sameDtype(c.input(0), c.output(0))),
    constraint('stridedSlice.rank', `input rank must be at most ${MAX_RANK}`, (c) => (c.input(0)?.shape.length ?? 0) <= MAX_RANK),
    constraint('stridedSlice.masks', 'ellipsis and new-axis masks must be 0 (TFLM does not support them)', (c) =>
      c.op.options.ellipsisMask === 0 && c.op.options.newAxisMask === 0),
    constraint('stridedSlice.indices', 'begin, end and strides must be constant int32 tensors with one entry per input dim, strides non-zero', (c) => {
      const r = axisRanges(c);
      return r !== null && r.every((a) => a.stride !== 0);
    }),
    constraint('stridedSlice.output-shape', 'output dims must be ceil((end - begin) / stride) of every non-shrunk axis', (c) => {
      const r = axisRanges(c) ?? [];
      const dims = r.filter((a) => !a.shrink).map((a) => Math.max(0, Math.ceil(Math.fround(Math.fround(a.stop - a.start) / Math.fround(a.stride)))));
      const y = c.output(0).shape;
      return y.length === dims.length && dims.every((d, i) => d === y[i]);
    }),
  ],
  prepare(c) {
    const x = c.input(0)?.shape ?? [];
    const ranges = axisRanges(c) ?? [];
    const scalars: Record<string, number> = {};
    ranges.forEach((a, i) => {
      scalars[`dim${i}`] = x[i] ?? 0;
      scalars[`start${i}`] = a.start;
      scalars[`step${i}`] = a.stride;
      scalars[`n${i}`] = iterations(a);
    });
    return unaryPrepared(scalars, { rank: ranges.length });
  },
  body(p): Nest {
    const rank = p.flags?.['rank'] ?? 0;
    const levels: Level[] = [];
    for (let a = 0; a < rank; a++) {
      const at = `start${a} + i${a} * step${a}`;
      levels.push({
        v: `i${a}`,
        to: `n${a}`,
        lets: [[`x${a}`, a === 0 ? at : `x${a - 1} * dim${a} + ${at}`], [`w${a}`, a === 0 ? 'i0' : `w${a - 1} * n${a} + i${a}`]],
      });
    }
    const last = rank - 1;
    return loopNest(levels, [Store('output', rank === 0 ? '0' : `w${last}`, `input[${rank === 0 ? '0' : `x${last}`}]`)]);
  },
};
