// TinySeg fused fetching (paper §4.2.2, Algorithm 3 lines 15-17, Figure 8): a Fetching op whose
// only consumer is the next op merges into it. A following Concatenation becomes one Fetching that
// concatenates (its inputs spliced in at the fetched tensor's position); a following Conv2D that
// reads the fetched tensor as its input becomes FetchingConv2D (channel concatenation only), so
// the concatenated tensor never exists in the arena.
import type { Graph, Op } from '../../ir/index.ts';
import { makeOpContext, rowWindowScratch } from '../../kernels/index.ts';
import { pruneUnusedTensors } from './spill-transform.ts';

export type FusionKind = 'concatenation' | 'conv2d';

export interface FusionEdit {
  readonly graph: Graph;
  /** Index of the fused op (it replaces the Fetching op and its consumer). */
  readonly opIndex: number;
  readonly fused: FusionKind;
}

const normAxis = (axis: number, rank: number): number => (axis < 0 ? axis + rank : axis);

/** Fuse Fetching op `f` with the next op when possible; null otherwise. `allow` filters the kinds tried. */
export function fuseFetching(graph: Graph, f: number, allow: readonly FusionKind[] = ['concatenation', 'conv2d']): FusionEdit | null {
  const fetch = graph.ops[f];
  const next = graph.ops[f + 1];
  if (fetch?.kind !== 'fetching' || next === undefined) return null;
  const out = fetch.outputs[0] ?? -1;
  const outT = graph.tensors[out];
  if (outT === undefined || graph.outputs.includes(out)) return null;
  const readers = graph.ops.filter((op) => op.inputs.includes(out));
  if (readers.length !== 1 || readers[0] !== next) return null;
  const rank = outT.shape.length;
  const o = fetch.options;
  let fused: Op | null = null;
  let kind: FusionKind | null = null;
  if (next.kind === 'concatenation' && allow.includes('concatenation') && next.options.activation === 'none' && next.inputs.filter((t) => t === out).length === 1) {
    const axis = normAxis(next.options.axis, rank);
    if (fetch.inputs.length === 0 || normAxis(o.axis, rank) === axis) {
      const pos = next.inputs.indexOf(out);
      const inputs = [...next.inputs.slice(0, pos), ...fetch.inputs, ...next.inputs.slice(pos + 1)];
      // A non-negative axis: TinySeg's option byte is a u8 (custom-ops.ts).
      fused = { kind: 'fetching', inputs, outputs: next.outputs, options: { victim: o.victim, nth: pos + o.nth, axis } };
      kind = 'concatenation';
    }
  } else if (next.kind === 'conv2d' && allow.includes('conv2d') && next.inputs[0] === out && !next.inputs.slice(1).includes(out) && fetch.inputs.length > 0 && normAxis(o.axis, rank) === rank - 1 && rank === 4) {
    fused = {
      kind: 'fetchingConv2d',
      inputs: [...fetch.inputs, next.inputs[1] ?? -1, next.inputs[2] ?? -1],
      outputs: next.outputs,
      options: { ...next.options, victim: o.victim, nth: o.nth, axis: 3 },
    };
    kind = 'conv2d';
  }
  if (fused === null || kind === null) return null;
  const ops = [...graph.ops.slice(0, f), fused, ...graph.ops.slice(f + 2)];
  return { graph: pruneUnusedTensors({ ...graph, ops }), opIndex: f, fused: kind };
}

/** Fuse repeatedly while possible (Algorithm 3 line 15). */
export function fuseFetchingChain(graph: Graph, f: number, allow: readonly FusionKind[]): { readonly graph: Graph; readonly opIndex: number; readonly fused: readonly FusionKind[] } {
  let g = graph;
  const fused: FusionKind[] = [];
  for (;;) {
    const e = fuseFetching(g, f, allow);
    if (e === null) return { graph: g, opIndex: f, fused };
    g = e.graph;
    fused.push(e.fused);
    if (e.fused === 'conv2d') return { graph: g, opIndex: f, fused };
  }
}

/** Bytes of the row window FetchingConv2D op `opIndex` plans (kernels/specs/fetching-conv2d.ts). */
export function rowWindowBytes(graph: Graph, opIndex: number): number {
  return rowWindowScratch(makeOpContext<'fetchingConv2d'>(graph, opIndex)).sizeBytes;
}
