// Compute cycles of one op on the main core (DESIGN.md §3 "Cost model", issue 44): the code path the
// kernel library takes for the op and its work (kernel-cost/op-work.ts), priced per core family with
// the board's flash wait states and the engine's per-op overhead (kernel-cost/kernel-cycles.ts). The
// kernel's exact cost counts (countCost over its nest) give executed MACs and copied bytes; ops whose
// nest binds storage data (TinySeg Spill / Fetching / FetchingConv2D) are counted from their shapes.
import type { Graph, Op, OpKind } from '../../ir/index.ts';
import { DTYPE_BYTES, InternalError, ModelError, byteSize, elementCount } from '../../ir/index.ts';
import type { CostCounts, KernelInstance } from '../../kernels/index.ts';
import { countCost, countMacs, instantiateOp, placementFreeKey, prepareOp } from '../../kernels/index.ts';
import type { ElementKernelClass, KernelLibrary, MacKernelClass, TargetProfile } from '../targets/index.ts';
import type { Engine } from './kernel-cost/index.ts';
import { copyWork, kernelCycles, opWork } from './kernel-cost/index.ts';

/** How an op kind is costed. */
export type CostClass =
  | { readonly type: 'mac'; readonly cls: MacKernelClass }
  | { readonly type: 'element'; readonly cls: ElementKernelClass; readonly per: 'input' | 'output' }
  | { readonly type: 'copy' }
  | { readonly type: 'none' };

const mac = (cls: MacKernelClass): CostClass => ({ type: 'mac', cls });
const perOut = (cls: ElementKernelClass): CostClass => ({ type: 'element', cls, per: 'output' });
const COPY: CostClass = { type: 'copy' };

/** One row per op kind: adding a kind to the IR fails to compile until it is costed here. */
export const COST_CLASS: Readonly<Record<OpKind, CostClass>> = {
  conv2d: mac('conv2d'),
  depthwiseConv2d: mac('depthwiseConv2d'),
  transposeConv: mac('transposeConv'),
  fullyConnected: mac('fullyConnected'),
  // Both are sequences of fully-connected dot products (plus elementwise gate work for the LSTM).
  svdf: mac('fullyConnected'),
  unidirectionalSequenceLstm: mac('fullyConnected'),
  fetchingConv2d: mac('conv2d'),
  merge: mac('conv2d'),
  // Pooling cost follows the window elements read (TFLM loops over every tap).
  maxPool2d: { type: 'element', cls: 'pooling', per: 'input' },
  averagePool2d: { type: 'element', cls: 'pooling', per: 'input' },
  add: perOut('elementwise'),
  mul: perOut('elementwise'),
  relu: perOut('elementwise'),
  relu6: perOut('elementwise'),
  leakyRelu: perOut('elementwise'),
  logistic: perOut('elementwise'),
  quantize: perOut('elementwise'),
  dequantize: perOut('elementwise'),
  mean: { type: 'element', cls: 'elementwise', per: 'input' },
  softmax: perOut('softmax'),
  logSoftmax: perOut('softmax'),
  l2Normalization: perOut('softmax'),
  hardSwish: perOut('elementwise'),
  tanh: perOut('elementwise'),
  elu: perOut('elementwise'),
  prelu: perOut('elementwise'),
  resizeNearestNeighbor: COPY,
  // Four taps and a 20-bit weighted sum per output element.
  resizeBilinear: { type: 'element', cls: 'pooling', per: 'output' },
  concatenation: COPY,
  reshape: COPY,
  pad: COPY,
  split: COPY,
  splitV: COPY,
  stridedSlice: COPY,
  transpose: COPY,
  fetching: COPY,
  sub: perOut('elementwise'),
  maximum: perOut('elementwise'),
  minimum: perOut('elementwise'),
  squaredDifference: perOut('elementwise'),
  gather: COPY,
  shape: COPY,
  pack: COPY,
  unpack: COPY,
  fill: COPY,
  expandDims: COPY,
  squeeze: COPY,
  spaceToDepth: COPY,
  depthToSpace: COPY,
  spaceToBatchNd: COPY,
  batchToSpaceNd: COPY,
  // Spill's own work (codec, CRC, program) is storage time, modelled by the latency driver.
  spill: { type: 'none' },
  custom: { type: 'none' },
};

export interface OpCompute {
  readonly costClass: CostClass;
  readonly macs: number;
  /** Elements (pooling taps, elementwise outputs) or bytes (copies) the op works on. */
  readonly units: number;
  /** The kernel's code path (e.g. 'arm_convolve_1x1_s8_fast'). */
  readonly path: string;
  /** Kernel work priced by the core's unit costs, flash wait states on weights, engine overhead. */
  readonly computeCycles: number;
  readonly flashStallCycles: number;
  readonly engineCycles: number;
  /** Total cycles (family constant applied), before a board file's computeCalibration scale. */
  readonly cycles: number;
}

/** Kinds whose nest reads an extra, storage-staged input: costed from shapes, not countCost. */
const SHAPE_COSTED: ReadonlySet<OpKind> = new Set<OpKind>(['spill', 'fetching', 'fetchingConv2d']);

/** What countCost is a function of: the instance without its placement, with buffer sizes and
 * the arrays' contents (bounds may read params); the walk is data-independent by construction. */
export function costKey(inst: KernelInstance): string {
  return placementFreeKey(inst, true);
}

/** Counts by costKey, for this process: a sweep or a search costs the same ops again and again
 * (zoo:tiny-unet's sweep spent 0.7 s of its 1.3 s walking the same nests at each point). Keys
 * carry per-channel params (a few KB for a wide conv), hence the bound. */
const COUNTS = new Map<string, CostCounts>();
const MAX_COUNTS = 1024;

/** countCost(inst), walked once per distinct costKey in this process. */
export function countCostCached(inst: KernelInstance): CostCounts {
  const key = costKey(inst);
  let c = COUNTS.get(key);
  if (c === undefined) {
    if (COUNTS.size >= MAX_COUNTS) COUNTS.clear();
    c = countCost(inst);
    COUNTS.set(key, c);
  }
  return c;
}

/** The instance countsOf costs: every activation and scratch at offset 0 (counts ignore addresses). */
export function costInstance(graph: Graph, opIndex: number): KernelInstance {
  const prepared = prepareOp(graph, opIndex);
  const offsets = graph.tensors.map((t) => (t.data === null ? 0 : null));
  return instantiateOp(graph, prepared, offsets, prepared.prepared.scratch.map(() => 0));
}

function countsOf(graph: Graph, opIndex: number): CostCounts {
  return countCostCached(costInstance(graph, opIndex));
}

function tensorAt(graph: Graph, op: Op, side: 'input' | 'output', slot: number): { readonly dtype: keyof typeof DTYPE_BYTES; readonly shape: readonly number[] } {
  const index = (side === 'input' ? op.inputs : op.outputs)[slot];
  const t = index === undefined || index < 0 ? undefined : graph.tensors[index];
  if (t === undefined) throw new ModelError('E_MODEL_INVALID', `${op.kind}: ${side} ${slot} is missing`);
  return t;
}

const NO_COST = { path: 'none', computeCycles: 0, flashStallCycles: 0, engineCycles: 0, cycles: 0 };

/** Cycles of op `opIndex` for `library` under `engine` (`constant` overrides the family's, for the fit). */
export function opComputeCycles(graph: Graph, opIndex: number, target: TargetProfile, library: KernelLibrary, engine: Engine = 'tflm', constant?: number): OpCompute {
  const op = graph.ops[opIndex];
  if (op === undefined) throw new InternalError(`no op ${opIndex}`);
  if (op.kind === 'custom') {
    throw new ModelError('E_MODEL_UNSUPPORTED_OP', `op ${opIndex}: custom op '${op.customCode}' has no latency model`, [
      { code: 'E_MODEL_UNSUPPORTED_OP', message: `custom op '${op.customCode}' has no latency model`, opIndex, opKind: op.kind },
    ]);
  }
  const costClass = COST_CLASS[op.kind];
  if (costClass.type === 'none') return { costClass, macs: 0, units: 0, ...NO_COST };
  const counts = SHAPE_COSTED.has(op.kind) ? null : countsOf(graph, opIndex);
  switch (costClass.type) {
    case 'mac':
    case 'element': {
      const macs = costClass.type === 'mac' ? counts?.macs ?? countMacs(op, graph) : counts?.macs ?? 0;
      let units: number;
      if (costClass.type === 'mac') units = macs;
      else if (costClass.per === 'output') units = elementCount(tensorAt(graph, op, 'output', 0).shape);
      else units = Math.round((counts?.arenaLoadBytes ?? 0) / DTYPE_BYTES[tensorAt(graph, op, 'input', 0).dtype]);
      const work = opWork(graph, op, library, target.core, { macs, storeBytes: counts?.arenaStoreBytes ?? 0 });
      const elementWork = costClass.type === 'element' && costClass.per === 'input' && op.kind === 'mean'
        ? { ...work, units: { refElem: units, opCall: 1 } } : work;
      return { costClass, macs, units, path: elementWork.path, ...kernelCycles(elementWork, target, library, engine, constant) };
    }
    case 'copy': {
      const out = tensorAt(graph, op, 'output', 0);
      const units = counts?.arenaStoreBytes ?? byteSize(out.dtype, out.shape);
      const work = copyWork(op, { macs: 0, storeBytes: units });
      return { costClass, macs: 0, units, path: work.path, ...kernelCycles(work, target, library, engine, constant) };
    }
    default: {
      const never: never = costClass;
      throw new InternalError(`unhandled cost class ${JSON.stringify(never)}`);
    }
  }
}
