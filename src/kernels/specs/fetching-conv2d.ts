// TinySeg FetchingConv2D (paper §4.2.2, §6.2.1): a Conv2D whose input is the channel concatenation
// of the op's activation inputs with the spilled slot `victim` at position `nth`, so neither the
// concatenated nor the spilled tensor exists in the arena. The spilled channels are read from a
// planned row window (scratch 1: the (fH-1)*dilH+1 input rows one output row needs, a ring indexed
// by inY % wRows) that the runtime fills by streaming the slot's rows from the device in order
// (raw copy, or MFV decode under --compress; sim/spill-store.ts), one output row at a time: the
// nest covers the flat output rows [rowFrom, rowTo) (b * outH + outY), the whole op as prepared.
// Loop order and arithmetic of TFLM reference_integer_ops::ConvPerChannel; the channel loop is
// split per source, visiting channels in the same ascending order.
// Inputs: [x_0 .. x_{k-1}, filter [Cout, KH, KW, Cin], bias|-1].
import type { Tensor } from '../../ir/index.ts';
import type { Nest } from '../nest.ts';
import { For, Let, Set, Val } from '../nest.ts';
import type { BufferRef, KernelSpec, OpContext, ScratchDecl } from '../spec.ts';
import { activationConstraint, constraint, convMultipliers, dim, isInt8Quantized, rank, scaleOf, zeroPointOf } from './common.ts';
import {
  biasConstraint, convGeometry, convSpatialShapeHolds, convTaps, filterScalesConstraint, outputQuantScalars, outputStage,
  strideConstraint,
} from './conv-common.ts';
import { mcusimOnly } from '../tflm-memory.ts';
import { STORAGE_IO_SCRATCH } from './storage-io.ts';

type Ctx = OpContext<'fetchingConv2d'>;
const sourceCount = (c: Ctx): number => c.op.inputs.length - 2;
const inputsOf = (c: Ctx): (Tensor | null)[] => Array.from({ length: Math.max(0, sourceCount(c)) }, (_, i) => c.input(i));
const filterOf = (c: Ctx): Tensor | null => c.input(sourceCount(c));
const biasOf = (c: Ctx): Tensor | null => c.input(sourceCount(c) + 1);

/** Channels of the fetched slot: the filter depth the arena inputs leave. */
export function fetchedDepth(c: Ctx): number {
  return dim(filterOf(c), 3) - inputsOf(c).reduce((s, t) => s + dim(t, 3), 0);
}

export function fetchedConvBytes(c: Ctx): number {
  const x = inputsOf(c)[0] ?? null;
  return dim(x, 0) * dim(x, 1) * dim(x, 2) * fetchedDepth(c);
}

/** Geometry of the row window: rows held (a ring), bytes of one spilled row, rows per batch. */
export interface RowWindow {
  readonly rows: number;
  readonly rowBytes: number;
  readonly inH: number;
}

/** Input rows one output row reads ((fH-1)*dilH+1, at most inH) and the bytes of one spilled row. */
export function fetchRowWindow(c: Ctx): RowWindow {
  const x = inputsOf(c)[0] ?? null;
  const inH = dim(x, 1);
  const span = (dim(filterOf(c), 1) - 1) * c.op.options.dilationH + 1;
  return { rows: Math.max(1, Math.min(inH, span)), rowBytes: dim(x, 2) * fetchedDepth(c), inH };
}

/** The planned row window scratch (int8, rows x row bytes). */
export function rowWindowScratch(c: Ctx): ScratchDecl {
  const w = fetchRowWindow(c);
  return { name: 'window', dtype: 'int8', sizeBytes: w.rows * w.rowBytes };
}

export const fetchingConv2dSpec: KernelSpec<'fetchingConv2d'> = {
  kind: 'fetchingConv2d',
  tflmPersistent: mcusimOnly('custom op FetchingConv2D (TinySeg): not a TFLM builtin'),
  requestsScratch: true,
  constraints: [
    constraint('fetchingConv2d.arity', 'inputs are 1 to 9 activations, a filter and a bias slot (-1 for none); one output', (c) => sourceCount(c) >= 1 && sourceCount(c) <= 9 && c.op.outputs.length === 1),
    constraint('fetchingConv2d.types', 'activation inputs, filter and output must be int8 quantized tensors', (c) =>
      inputsOf(c).every(isInt8Quantized) && isInt8Quantized(filterOf(c)) && isInt8Quantized(c.output(0))),
    constraint('fetchingConv2d.rank', 'inputs, filter and output must have rank 4', (c) =>
      inputsOf(c).every((t) => rank(t) === 4) && rank(filterOf(c)) === 4 && rank(c.output(0)) === 4),
    constraint('fetchingConv2d.axis', 'the fetched tensor is concatenated on the channel axis (3 or -1)', (c) => c.op.options.axis === 3 || c.op.options.axis === -1),
    constraint('fetchingConv2d.nth', 'victim position nth must lie in [0, number of activation inputs]', (c) => Number.isInteger(c.op.options.nth) && c.op.options.nth >= 0 && c.op.options.nth <= sourceCount(c)),
    constraint('fetchingConv2d.inputs', 'activation inputs must share batch, height, width, scale and zero point, and leave the fetched tensor a positive depth', (c) => {
      const [x0, ...rest] = inputsOf(c);
      return x0 !== undefined && rest.every((t) => [0, 1, 2].every((k) => dim(t, k) === dim(x0, k)) && scaleOf(t) === scaleOf(x0) && zeroPointOf(t) === zeroPointOf(x0)) && fetchedDepth(c) > 0;
    }),
    filterScalesConstraint('fetchingConv2d', filterOf),
    biasConstraint('fetchingConv2d', biasOf, (c) => dim(filterOf(c), 0)),
    strideConstraint('fetchingConv2d', (c) => c.op.options),
    constraint('fetchingConv2d.output-shape', 'output shape must be [N, outH, outW, Cout] from padding, stride and dilation', (c) =>
      convSpatialShapeHolds(c.op.options, inputsOf(c)[0] ?? null, filterOf(c), c.output(0)) && dim(c.output(0), 3) === dim(filterOf(c), 0)),
    activationConstraint('fetchingConv2d', (c) => c.op.options.activation),
  ],
  prepare(c) {
    const o = c.op.options;
    const inputs = inputsOf(c);
    const input = inputs[0]!;
    const filter = filterOf(c)!;
    const bias = biasOf(c);
    const output = c.output(0);
    const k = sourceCount(c);
    const [n, inH, inW] = input.shape as [number, number, number, number];
    const [outD, fH, fW, inD] = filter.shape as [number, number, number, number];
    const [, outH, outW] = output.shape as [number, number, number, number];
    const { mult, shift } = convMultipliers(input, filter, output, outD);
    const depths = inputs.map((t) => dim(t, 3));
    const refs: BufferRef[] = inputs.map((_, i) => ({ kind: 'input', slot: i }));
    depths.splice(o.nth, 0, fetchedDepth(c));
    refs.splice(o.nth, 0, { kind: 'scratch', index: 1 });
    const scalars: Record<string, number> = {
      batches: n, inH, inW, inD, outH, outW, outD, fH, fW,
      ...convGeometry(o, inH, inW, fH, fW, outH, outW),
      ...outputQuantScalars(input, output, o.activation),
    };
    const buffers: Record<string, BufferRef> = {
      filter: { kind: 'input', slot: k },
      ...(bias ? { bias: { kind: 'input', slot: k + 1 } as const } : {}),
      output: { kind: 'output', slot: 0 },
    };
    let ch = 0;
    refs.forEach((ref, s) => {
      buffers[s === o.nth ? 'window' : `src${s}`] = ref;
      scalars[`d${s}`] = depths[s] ?? 0;
      scalars[`c${s}`] = ch;
      ch += depths[s] ?? 0;
    });
    scalars['wRows'] = fetchRowWindow(c).rows;
    scalars['rowFrom'] = 0;
    scalars['rowTo'] = n * outH;
    return { flags: { hasBias: bias ? 1 : 0, sources: refs.length, nth: o.nth }, scalars, arrays: { mult, shift }, buffers, scratch: [STORAGE_IO_SCRATCH, rowWindowScratch(c)] };
  },
  body(p): Nest {
    const n = p.flags?.['sources'] ?? 0;
    const nth = p.flags?.['nth'] ?? 0;
    const perSource = Array.from({ length: n }, (_, s) => {
      const buf = s === nth ? 'window' : `src${s}`;
      const base = s === nth ? `((inY % wRows) * inW + inX) * d${s}` : `((b * inH + inY) * inW + inX) * d${s}`;
      return [
        Let(`base${s}`, base),
        For('ic', '0', `d${s}`, [Set('acc', `acc + (${buf}[base${s} + ic] + inputOffset) * filter[fBase + c${s} + ic]`, 'mac')]),
      ];
    }).flat();
    const perOc = [
      Val('acc', '0'),
      ...convTaps([Let('fBase', '((oc * fH + fy) * fW + fx) * inD'), ...perSource]),
      ...outputStage('outBase + oc'),
    ];
    // ConvPerChannel's b / outY loops flattened to one row loop (same order), so the runtime can
    // run one output row at a time between window fills.
    return [
      For('row', 'rowFrom', 'rowTo', [
        Let('b', 'row / outH'),
        Let('outY', 'row % outH'),
        Let('inYOrigin', 'outY * strideH - padH'),
        For('outX', '0', 'outW', [Let('inXOrigin', 'outX * strideW - padW'), Let('outBase', '(row * outW + outX) * outD'), For('oc', '0', 'outD', perOc)]),
      ]),
    ];
  },
};
