// Builtin-only graphs whose ops carry mcusim-only kernel options (TransposeConv's int16 or
// scratch-free forms, stored as metadata stock TFLM ignores): stock TFLM runs the same file with
// its own kernels, so its plan and total differ. These helpers find those ops and give the graph
// as stock TFLM runs it, so reports can show both runtimes side by side (issue 12 item 2).
import type { Graph, Op } from '../../ir/index.ts';
import { REFERENCE_KERNELS, kernelSpecOf } from '../../kernels/index.ts';
import type { KernelRegistry, TflmPersistent } from '../../kernels/index.ts';

export interface McusimKernelUse {
  readonly opIndex: number;
  readonly kind: string;
  /** The option keys set on this op that stock TFLM ignores. */
  readonly options: readonly string[];
}

function mcusimOptionsOf(op: Op, registry: KernelRegistry): readonly string[] {
  if (op.kind === 'custom') return [];
  const tflm = kernelSpecOf(op.kind, registry)?.tflmPersistent as TflmPersistent | undefined;
  if (tflm === undefined || !tflm.stock) return [];
  const opts = op.options as Readonly<Record<string, unknown>>;
  return (tflm.mcusimOptions ?? []).filter((k) => opts[k] === true);
}

/** Ops whose options select an mcusim-only kernel variant. */
export function mcusimKernelUses(graph: Graph, registry: KernelRegistry = REFERENCE_KERNELS): McusimKernelUse[] {
  return graph.ops.flatMap((op, opIndex) => {
    const options = mcusimOptionsOf(op, registry);
    return options.length === 0 ? [] : [{ opIndex, kind: op.kind, options }];
  });
}

/** `graph` as stock TFLM runs it: the mcusim-only kernel options dropped. */
export function asStockTflm(graph: Graph, registry: KernelRegistry = REFERENCE_KERNELS): Graph {
  const ops = graph.ops.map((op): Op => {
    const drop = mcusimOptionsOf(op, registry);
    if (drop.length === 0 || op.kind === 'custom') return op;
    const options = Object.fromEntries(Object.entries(op.options).filter(([k]) => !drop.includes(k)));
    return { ...op, options } as Op;
  });
  return { ...graph, ops };
}
