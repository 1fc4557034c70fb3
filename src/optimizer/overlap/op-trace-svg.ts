// One op's memory trace as a picture (DMO paper Fig. 4 style): the op alone in an arena with its
// output at [0, OB) and its primary input right after it (no overlap), run once on seeded inputs
// under a TracePlot; each method's O_s marks where the input may start (OB - O_s). Shared by
// `mcusim overlap --svg` and the web page's per-op O_s view. Pure: returns the SVG text.
import type { Graph } from '../../ir/index.ts';
import { byteSize } from '../../ir/index.ts';
import type { KernelRegistry } from '../../kernels/index.ts';
import { TracePlot, renderTraceSvg } from '../../sim/index.ts';
import { layoutOp, runLayout, singleOpGraph } from './safe-overlap.ts';

/** `label` names the op in the title (e.g. "depthwiseConv2d 1x112x112x96"). */
export function renderOpTraceSvg(graph: Graph, opIndex: number, os: Readonly<Record<string, number>>, registry: KernelRegistry, label: string): string {
  const l = layoutOp(singleOpGraph(graph, opIndex), null, { registry });
  const t = l.graph.tensors[l.input];
  const out = l.graph.tensors[l.output];
  const outputBytes = out ? byteSize(out.dtype, out.shape) : 0;
  const end = l.inputOffset + (t ? byteSize(t.dtype, t.shape) : 0);
  const plot = new TracePlot({ arenaBytes: l.arenaBytes, addressRange: [0, Math.max(1, end)], graph: l.graph, tensorOffsets: l.tensorOffsets });
  runLayout(l, 1, [plot.sink]);
  // Methods giving the same O_s share one marker.
  const byValue = new Map<number, string[]>();
  for (const [m, v] of Object.entries(os)) byValue.set(v, [...(byValue.get(v) ?? []), m]);
  const markers = [...byValue.entries()].map(([v, ms]) => ({ address: outputBytes - v, spanTo: outputBytes, label: `input may start here: O_s (${ms.join(' = ')}) ${v} B` }));
  const osText = Object.entries(os).map(([m, v]) => `${m} ${v} B`).join(', ');
  const title = `${label}: output at [0, ${outputBytes}), input at ${l.inputOffset} (no overlap); safe overlap O_s: ${osText}; the input may start O_s bytes before the output's end (dashed line, shaded O_s)`;
  return renderTraceSvg(plot.data(), title, { markers });
}
