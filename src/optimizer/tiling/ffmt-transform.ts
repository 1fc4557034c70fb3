// Fused feature-map tiling (paper §2 Fig. 1, §4.4): a chain of spatially local ops (conv2d,
// depthwise conv, pooling, activations) computed per output tile. Each tile's input region is
// derived backwards through the chain (the halo that kernels larger than 1x1 need, recomputed per
// tile), cut from the path input by an explicit StridedSlice and re-assembled by Concatenation
// (per row band on W, then on H). Padding is removed at tile boundaries: a tile op keeps SAME when
// TFLM's padding of the tile reproduces the image border, else gets VALID on an explicit Pad (zero
// point, convolutions only; pooling paths that would need one are rejected). Weights are shared.
import { PlanError, convOutputSize, convPadding } from '../../ir/index.ts';
import type { BuiltinOp, Model, Op, Tensor } from '../../ir/index.ts';
import { TensorList, tensorConsumers, int32Const, replaceOps, reshapedTensor, splitSizes, withTiledGraph } from './tiling-graph.ts';

export interface FfmtPath {
  /** Spatially local ops in chain order (each consumes the previous output). */
  readonly ops: readonly number[];
  /** Output tiles along H and W. */
  readonly gridH: number;
  readonly gridW: number;
}

const ELEMENTWISE = new Set(['relu', 'relu6', 'leakyRelu', 'logistic', 'quantize', 'hardSwish', 'tanh', 'elu']);

interface Range {
  readonly lo: number;
  readonly hi: number;
}
/** Window geometry of one op along one spatial axis. */
interface Axis {
  readonly k: number;
  readonly s: number;
  readonly d: number;
  readonly padBefore: number;
  readonly inSize: number;
}

function geometry(op: Op, x: Tensor, y: Tensor, filter: Tensor | null): [Axis, Axis] | null {
  const [, inH = 0, inW = 0] = x.shape;
  const [, outH = 0, outW = 0] = y.shape;
  switch (op.kind) {
    case 'conv2d':
    case 'depthwiseConv2d': {
      const o = op.options;
      const kh = filter?.shape[1] ?? 1;
      const kw = filter?.shape[2] ?? 1;
      return [
        { k: kh, s: o.strideH, d: o.dilationH, padBefore: convPadding(o.strideH, o.dilationH, inH, kh, outH).before, inSize: inH },
        { k: kw, s: o.strideW, d: o.dilationW, padBefore: convPadding(o.strideW, o.dilationW, inW, kw, outW).before, inSize: inW },
      ];
    }
    case 'maxPool2d':
    case 'averagePool2d': {
      const o = op.options;
      return [
        { k: o.filterH, s: o.strideH, d: 1, padBefore: convPadding(o.strideH, 1, inH, o.filterH, outH).before, inSize: inH },
        { k: o.filterW, s: o.strideW, d: 1, padBefore: convPadding(o.strideW, 1, inW, o.filterW, outW).before, inSize: inW },
      ];
    }
    default:
      return ELEMENTWISE.has(op.kind) ? [{ k: 1, s: 1, d: 1, padBefore: 0, inSize: inH }, { k: 1, s: 1, d: 1, padBefore: 0, inSize: inW }] : null;
  }
}

/** True when FFMT can tile this op (rank-4 int8 activations, spatially local). */
export function ffmtTileable(graph: Model['graph'], opIndex: number): boolean {
  const op = graph.ops[opIndex];
  if (op === undefined) return false;
  const x = graph.tensors[op.inputs[0] ?? -1];
  const y = graph.tensors[op.outputs[0] ?? -1];
  if (x === undefined || y === undefined || x.data !== null || x.shape.length !== 4 || y.shape.length !== 4 || x.dtype !== 'int8') return false;
  return geometry(op, x, y, graph.tensors[op.inputs[1] ?? -1] ?? null) !== null;
}

/** True when the op has a window larger than 1x1 (its tiles overlap). */
export function ffmtHasOverlap(graph: Model['graph'], opIndex: number): boolean {
  const op = graph.ops[opIndex];
  if (op === undefined) return false;
  const g = geometry(op, graph.tensors[op.inputs[0] ?? -1] as Tensor, graph.tensors[op.outputs[0] ?? -1] as Tensor, graph.tensors[op.inputs[1] ?? -1] ?? null);
  return g !== null && g.some((a) => (a.k - 1) * a.d + 1 > a.s);
}

/** Unclipped input range an output range needs. */
function need(a: Axis, r: Range): Range {
  return { lo: r.lo * a.s - a.padBefore, hi: (r.hi - 1) * a.s - a.padBefore + (a.k - 1) * a.d + 1 };
}

/** Border padding a tile needs along one axis, and whether VALID / TFLM's SAME on the tile reproduce it. */
interface TilePadding {
  readonly before: number;
  readonly after: number;
  readonly validOk: boolean;
  readonly sameOk: boolean;
}

function tilePadding(a: Axis, out: Range): TilePadding {
  const n = need(a, out);
  const lo = Math.max(0, n.lo);
  const hi = Math.min(a.inSize, n.hi);
  const before = lo - n.lo;
  const after = n.hi - hi;
  const inSize = hi - lo;
  const outSize = out.hi - out.lo;
  const eff = (a.k - 1) * a.d + 1;
  const total = Math.max((outSize - 1) * a.s + eff - inSize, 0);
  const sameOk = convOutputSize('same', inSize, a.k, a.s, a.d) === outSize && Math.floor(total / 2) === before;
  return { before, after, validOk: before === 0 && after === 0, sameOk };
}

/**
 * For an axis that needs no padding, a larger tile input on which TFLM's SAME padding puts no
 * padding before and keeps the wanted outputs' windows whole: the extra outputs it computes at
 * the end (cropped afterwards) and the input end. Null when the image is too small for it.
 */
function extendForSame(a: Axis, out: Range, lo: number): { readonly extra: number; readonly inHi: number } | null {
  const eff = (a.k - 1) * a.d + 1;
  const needHi = need(a, out).hi;
  for (let inHi = needHi; inHi <= Math.min(a.inSize, needHi + 2 * a.s); inHi++) {
    const inSize = inHi - lo;
    const outSize = convOutputSize('same', inSize, a.k, a.s, a.d);
    const total = Math.max((outSize - 1) * a.s + eff - inSize, 0);
    if (outSize >= out.hi - out.lo && Math.floor(total / 2) === 0) return { extra: outSize - (out.hi - out.lo), inHi };
  }
  return null;
}

function fail(message: string): PlanError {
  return new PlanError('E_PLAN_INFEASIBLE', `FFMT: ${message}`);
}

function sliceOp(tl: TensorList, input: number, output: number, begin: readonly number[], end: readonly number[], name: string): Op {
  return {
    kind: 'stridedSlice',
    inputs: [input, tl.add(int32Const(`${name}/begin`, begin)), tl.add(int32Const(`${name}/end`, end)), tl.add(int32Const(`${name}/strides`, [1, 1, 1, 1]))],
    outputs: [output],
    options: { beginMask: 0, endMask: 0, ellipsisMask: 0, newAxisMask: 0, shrinkAxisMask: 0, offset: false },
  };
}

/** Apply one FFMT path; throws PlanError when the chain or grid cannot be tiled exactly. */
export function applyFfmt(model: Model, path: FfmtPath): Model {
  const graph = model.graph;
  const consumers = tensorConsumers(graph);
  path.ops.forEach((i, k) => {
    if (!ffmtTileable(graph, i)) throw fail(`op ${i} (${graph.ops[i]?.kind}) is not spatially tileable`);
    const next = path.ops[k + 1];
    const t = graph.ops[i]?.outputs[0] ?? -1;
    if (next !== undefined && (graph.outputs.includes(t) || consumers[t]?.length !== 1 || graph.ops[next]?.inputs[0] !== t)) {
      throw fail(`tensor ${t} is not consumed only by op ${next}`);
    }
  });
  const first = graph.ops[path.ops[0] ?? -1];
  const lastOp = graph.ops[path.ops[path.ops.length - 1] ?? -1];
  if (first === undefined || lastOp === undefined) throw fail('empty path');
  const tl = new TensorList(graph.tensors);
  const X = tl.get(first.inputs[0] as number);
  const Y = tl.get(lastOp.outputs[0] as number);
  const [, outH = 0, outW = 0] = Y.shape;
  if (path.gridH > outH || path.gridW > outW || path.gridH * path.gridW < 2) throw fail(`grid ${path.gridH}x${path.gridW} does not fit ${outH}x${outW}`);
  if (path.gridH > 10 || path.gridW > 10) throw fail('a concatenation takes at most 10 inputs');
  const block: Op[] = [];
  const bands: number[] = [];
  for (const [bi, rows] of splitSizes(outH, path.gridH).entries()) {
    const tiles: number[] = [];
    for (const [ci, cols] of splitSizes(outW, path.gridW).entries()) {
      // Backwards: the output range of every op of the chain for this tile.
      const ranges: { h: Range; w: Range; pads: [TilePadding, TilePadding]; extra: [number, number] | null }[] = [];
      let h: Range = { lo: rows.start, hi: rows.start + rows.size };
      let w: Range = { lo: cols.start, hi: cols.start + cols.size };
      for (let k = path.ops.length - 1; k >= 0; k--) {
        const op = graph.ops[path.ops[k] as number] as Op;
        const [ah, aw] = geometry(op, tl.get(op.inputs[0] as number), tl.get(op.outputs[0] as number), graph.tensors[op.inputs[1] ?? -1] ?? null) as [Axis, Axis];
        const ph = tilePadding(ah, h);
        const pw = tilePadding(aw, w);
        const canPad = op.kind === 'conv2d' || op.kind === 'depthwiseConv2d';
        const nh = need(ah, h);
        const nw = need(aw, w);
        const inH: Range = { lo: Math.max(0, nh.lo), hi: Math.min(ah.inSize, nh.hi) };
        const inW: Range = { lo: Math.max(0, nw.lo), hi: Math.min(aw.inSize, nw.hi) };
        if ((ph.validOk && pw.validOk) || (ph.sameOk && pw.sameOk) || canPad) {
          ranges.unshift({ h, w, pads: [ph, pw], extra: null });
          [h, w] = [inH, inW];
          continue;
        }
        // Pooling with SAME on one axis only: SAME on a widened tile, outputs cropped after.
        const eh = ph.sameOk ? { extra: 0, inHi: inH.hi } : ph.validOk ? extendForSame(ah, h, inH.lo) : null;
        const ew = pw.sameOk ? { extra: 0, inHi: inW.hi } : pw.validOk ? extendForSame(aw, w, inW.lo) : null;
        if (eh === null || ew === null) throw fail(`op ${path.ops[k]} (${op.kind}) needs border padding a tile cannot reproduce`);
        ranges.unshift({ h, w, pads: [ph, pw], extra: [eh.extra, ew.extra] });
        [h, w] = [{ lo: inH.lo, hi: eh.inHi }, { lo: inW.lo, hi: ew.inHi }];
      }
      const tag = `ffmt${bi}_${ci}`;
      const [n = 1, , , c = 1] = X.shape;
      let cur = tl.add(reshapedTensor(X, [n, h.hi - h.lo, w.hi - w.lo, c], `${X.name}/${tag}`));
      block.push(sliceOp(tl, first.inputs[0] as number, cur, [0, h.lo, w.lo, 0], [n, h.hi, w.hi, c], `${X.name}/${tag}`));
      path.ops.forEach((i, k) => {
        const op = graph.ops[i] as BuiltinOp;
        const r = ranges[k] as (typeof ranges)[number];
        const y = tl.get(op.outputs[0] as number);
        const [ph, pw] = r.pads;
        const valid = r.extra === null && ph.validOk && pw.validOk;
        const same = r.extra !== null || (!valid && ph.sameOk && pw.sameOk);
        if (!valid && !same) {
          const xt = tl.get(cur);
          const [pt, pb, pl, pr] = [ph.before, ph.after, pw.before, pw.after];
          const padded = tl.add(reshapedTensor(xt, [xt.shape[0] ?? 1, (xt.shape[1] ?? 0) + pt + pb, (xt.shape[2] ?? 0) + pl + pr, xt.shape[3] ?? 1], `${xt.name}/pad`));
          block.push({ kind: 'pad', inputs: [cur, tl.add(int32Const(`${xt.name}/paddings`, [0, 0, pt, pb, pl, pr, 0, 0], [4, 2]))], outputs: [padded], options: {} });
          cur = padded;
        }
        const padding = same ? 'same' : 'valid';
        const [eh, ew] = r.extra ?? [0, 0];
        const [yn = 1, , , yc = 1] = y.shape;
        const [rh, rw] = [r.h.hi - r.h.lo, r.w.hi - r.w.lo];
        const out = tl.add(reshapedTensor(y, [yn, rh + eh, rw + ew, yc], `${y.name}/${tag}${eh + ew > 0 ? '/wide' : ''}`));
        const options = 'padding' in op.options ? { ...op.options, padding } : op.options;
        block.push({ ...op, inputs: [cur, ...op.inputs.slice(1)], outputs: [out], options } as Op);
        cur = out;
        if (eh + ew > 0) {
          const crop = tl.add(reshapedTensor(y, [yn, rh, rw, yc], `${y.name}/${tag}`));
          block.push(sliceOp(tl, out, crop, [0, 0, 0, 0], [yn, rh, rw, yc], `${y.name}/${tag}`));
          cur = crop;
        }
      });
      tiles.push(cur);
    }
    if (tiles.length === 1) {
      bands.push(tiles[0] as number);
      continue;
    }
    const band = path.gridH === 1 ? (lastOp.outputs[0] as number) : tl.add(reshapedTensor(Y, [Y.shape[0] ?? 1, rows.size, outW, Y.shape[3] ?? 1], `${Y.name}/ffmt${bi}`));
    block.push({ kind: 'concatenation', inputs: tiles, outputs: [band], options: { axis: 2, activation: 'none' } });
    bands.push(band);
  }
  if (path.gridH > 1) block.push({ kind: 'concatenation', inputs: bands, outputs: [lastOp.outputs[0] as number], options: { axis: 1, activation: 'none' } });
  return withTiledGraph(model, replaceOps(graph, [...path.ops], block, tl.tensors));
}
