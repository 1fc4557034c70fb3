// TFLM's persistent (tail) arena, allocation by allocation, in the order a MicroInterpreter makes
// them: MicroAllocator::Create, AllocateTensors (StartModelAllocation, builtin data parsing, every
// kernel's Init, then every Prepare, FinishModelAllocation) and the I/O TfLiteTensors. The tail
// grows down from the arena's (16-aligned) end; SingleArenaBufferAllocator::AllocatePersistentBuffer
// places each block at AlignPointerDown(tail - size, alignment), so the used bytes after a block
// are alignUp(used + size, alignment). The walk also logs the head and temp traffic in between
// (scratch request array, Prepare's temp tensors, the planner's scratch): declare-bytes.ts replays
// it against an arena of a given size. Sources per step: docs/tflm-arena.md.
import type { Graph, Tensor } from '../../ir/index.ts';
import { byteSize, InternalError } from '../../ir/index.ts';
import { REFERENCE_KERNELS, kernelSpecOf, makeOpContext, scratchRequests } from '../../kernels/index.ts';
import type { BuiltinKind, Op } from '../../ir/index.ts';
import type { KernelRegistry, OpContext, TflmPersistent } from '../../kernels/index.ts';
import type { TflmArch } from './arch.ts';
import { alignUp, structLayout } from './struct-layout.ts';
import { generatedKernelPersistent, runsGeneratedKernel } from './generated-kernels.ts';

/** Which kernels the TFLM build links: stock only, or stock + mcusim's generated ones (`codegen --tflm`). */
export type TflmKernelSet = 'stock' | 'generated';

/** MicroArenaBufferAlignment(): the alignment of AllocatePersistentBuffer for kernels. */
export const ARENA_ALIGNMENT_BYTES = 16;

export interface TailAllocation {
  /** What TFLM allocates, e.g. `OpDataConv (op 3 conv2d Init)`. */
  readonly what: string;
  readonly sizeBytes: number;
  readonly alignBytes: number;
  /** Persistent bytes used once this block is placed (distance of the tail from the arena end). */
  readonly usedAfterBytes: number;
}

export interface NonStockUse {
  readonly opIndex: number;
  readonly kind: string;
  readonly why: string;
}

/**
 * One step of MicroInterpreter's arena traffic, in order (SingleArenaBufferAllocator's calls):
 * a tail block; a temp block above the head; the end of a node's temps (ResetTempAllocations);
 * the head's resizable buffer (the scratch-buffer request array) resized; the planner taking
 * all memory left as its scratch (GreedyMemoryPlanner::Init, `perBufferBytes` a planned buffer);
 * the head reserved for the plan (ReserveNonPersistentOverlayMemory).
 */
export type ArenaEvent =
  | { readonly kind: 'persistent'; readonly sizeBytes: number; readonly alignBytes: number }
  | { readonly kind: 'temp'; readonly sizeBytes: number; readonly alignBytes: number }
  | { readonly kind: 'resetTemp' }
  | { readonly kind: 'resizeHead'; readonly sizeBytes: number; readonly alignBytes: number }
  | { readonly kind: 'plan' }
  | { readonly kind: 'overlay' };

export interface PersistentModel {
  /** GetPersistentUsedBytes() after AllocateTensors (stock TFLM, every op a builtin). */
  readonly persistentBytes: number;
  readonly allocations: readonly TailAllocation[];
  /** Ops stock TFLM cannot run (mcusim custom ops); empty = a stock TFLM model. */
  readonly nonStock: readonly NonStockUse[];
  /** The whole allocation sequence, for declare-bytes.ts. */
  readonly events: readonly ArenaEvent[];
}

/** The tail as it grows, and every arena event; with `labeled`, each block with what it is (named
 * lazily: a search asks for the bytes of thousands of candidate graphs and never for the names). */
class Tail {
  usedBytes = 0;
  readonly allocations: TailAllocation[] = [];
  readonly events: ArenaEvent[] = [];
  constructor(private readonly labeled: boolean) {}
  allocate(what: string | (() => string), sizeBytes: number, alignBytes: number): void {
    this.usedBytes = alignUp(this.usedBytes + sizeBytes, alignBytes);
    this.events.push({ kind: 'persistent', sizeBytes, alignBytes });
    if (this.labeled) this.allocations.push({ what: typeof what === 'string' ? what : what(), sizeBytes, alignBytes, usedAfterBytes: this.usedBytes });
  }
  event(e: ArenaEvent): void {
    this.events.push(e);
  }
}

/** MicroAllocator's kMaxScratchBuffersPerOp: the request array keeps room for this many more. */
export const MAX_SCRATCH_BUFFERS_PER_OP = 12;

function tflmOf(graph: Graph, index: number, op: Op, registry: KernelRegistry, kernels: TflmKernelSet): TflmPersistent | null {
  if (kernels === 'generated') return generatedKernelPersistent(graph, index, registry);
  if (op.kind === 'custom') return null;
  const spec = kernelSpecOf(op.kind, registry);
  return spec === undefined ? null : (spec.tflmPersistent as TflmPersistent);
}

const opLabel = (i: number, op: Op): string => `op ${i} ${op.kind === 'custom' ? `custom:${op.customCode}` : op.kind}`;

/** The I/O TfLiteTensor (+ its quantization) MicroInterpreter keeps for one graph input or output. */
function ioTensor(tail: Tail, arch: TflmArch, t: Tensor, label: string): void {
  const p = arch.pointerBytes;
  tail.allocate(() => `TfLiteTensor (${label})`, arch.structs.TfLiteTensor, p);
  const q = t.quant;
  // InitializeTfLiteTensorFromFlatbuffer copies quantization only when scale and zero_point are non-empty.
  if (q === null || q.scale.length === 0 || q.zeroPoint.length === 0) return;
  tail.allocate(() => `TfLiteAffineQuantization (${label})`, arch.structs.TfLiteAffineQuantization, p);
  tail.allocate(() => `zero_point TfLiteIntArray[${q.scale.length}] (${label})`, arch.structs.TfLiteIntArray + 4 * q.scale.length, 4);
}

/**
 * A kernel's Prepare reads its tensors as temp TfLiteTensors (MicroContext::AllocateTempInputTensor /
 * AllocateTempOutputTensor): each a TfLiteTensor and, when quantized, its TfLiteAffineQuantization
 * and zero-point array, in the temp section until the node's Prepare ends.
 */
function tempTensors(tail: Tail, arch: TflmArch, graph: Graph, op: Op): void {
  const p = arch.pointerBytes;
  for (const i of [...op.inputs, ...op.outputs]) {
    const t = i < 0 ? undefined : graph.tensors[i];
    if (t === undefined) continue;
    tail.event({ kind: 'temp', sizeBytes: arch.structs.TfLiteTensor, alignBytes: p });
    const q = t.quant;
    if (q === null || q.scale.length === 0 || q.zeroPoint.length === 0) continue;
    tail.event({ kind: 'temp', sizeBytes: arch.structs.TfLiteAffineQuantization, alignBytes: p });
    tail.event({ kind: 'temp', sizeBytes: arch.structs.TfLiteIntArray + 4 * q.scale.length, alignBytes: 4 });
  }
}

/** The head's scratch request array sized for `count` requests plus a node's worth more. */
function requestArray(tail: Tail, arch: TflmArch, count: number): void {
  tail.event({ kind: 'resizeHead', sizeBytes: arch.structs.ScratchBufferRequest * (count + MAX_SCRATCH_BUFFERS_PER_OP), alignBytes: arch.pointerBytes });
}

/**
 * The persistent tail stock TFLM's MicroInterpreter (default GreedyMemoryPlanner, one subgraph)
 * allocates for `graph` on `arch`. `offlineOffsets` (the model's OfflineMemoryAllocation, -1 =
 * online) decides which variable tensors the tail holds; `registry` which kernels' Init and Prepare
 * allocate (default: reference).
 */
export function modelPersistent(
  graph: Graph, arch: TflmArch, offlineOffsets: Int32Array | null = null, registry: KernelRegistry = REFERENCE_KERNELS, kernels: TflmKernelSet = 'stock',
): PersistentModel {
  return walkTail(graph, arch, offlineOffsets, new Tail(true), registry, kernels);
}

/** modelPersistent without the blocks' list: the same bytes and non-stock ops, for a search. */
export function modelPersistentBytes(
  graph: Graph, arch: TflmArch, offlineOffsets: Int32Array | null = null, registry: KernelRegistry = REFERENCE_KERNELS, kernels: TflmKernelSet = 'stock',
): Omit<PersistentModel, 'allocations' | 'events'> {
  const { persistentBytes, nonStock } = walkTail(graph, arch, offlineOffsets, new Tail(false), registry, kernels);
  return { persistentBytes, nonStock };
}

/** The arena events of modelPersistent (declare-bytes.ts replays them). */
export function modelArenaEvents(
  graph: Graph, arch: TflmArch, offlineOffsets: Int32Array | null = null, registry: KernelRegistry = REFERENCE_KERNELS, kernels: TflmKernelSet = 'stock',
): readonly ArenaEvent[] {
  return walkTail(graph, arch, offlineOffsets, new Tail(false), registry, kernels).events;
}

function walkTail(graph: Graph, arch: TflmArch, offlineOffsets: Int32Array | null, tail: Tail, registry: KernelRegistry, kernels: TflmKernelSet): PersistentModel {
  const p = arch.pointerBytes;
  const s = arch.structs;
  // MicroAllocator::Create(arena, size, kGreedy): the allocator itself, its planner, the MicroAllocator.
  tail.allocate('SingleArenaBufferAllocator', s.SingleArenaBufferAllocator, p);
  tail.allocate('GreedyMemoryPlanner', s.GreedyMemoryPlanner, p);
  tail.allocate('MicroAllocator', s.MicroAllocator, p);
  // StartModelAllocation: builtin data allocator, the scratch request array at the head
  // (InitScratchBufferData), SubgraphAllocations[1], eval tensors, nodes.
  tail.allocate('MicroBuiltinDataAllocator', s.MicroBuiltinDataAllocator, p);
  requestArray(tail, arch, 0);
  tail.allocate('SubgraphAllocations[1]', s.SubgraphAllocations, p);
  tail.allocate(() => `TfLiteEvalTensor[${graph.tensors.length}]`, s.TfLiteEvalTensor * graph.tensors.length, p);
  tail.allocate(() => `NodeAndRegistration[${graph.ops.length}]`, s.NodeAndRegistration * graph.ops.length, p);

  const nonStock: NonStockUse[] = [];
  const stockOps: { index: number; op: Op; tflm: Extract<TflmPersistent, { stock: true }>; ctx: OpContext; generated: boolean }[] = [];
  graph.ops.forEach((op, index) => {
    const tflm = tflmOf(graph, index, op, registry, kernels);
    if (tflm === null || !tflm.stock) {
      nonStock.push({ opIndex: index, kind: op.kind === 'custom' ? `custom:${op.customCode}` : op.kind, why: tflm?.why ?? 'not an op mcusim knows' });
      return;
    }
    stockOps.push({ index, op, tflm, ctx: makeOpContext<BuiltinKind>(graph, index), generated: kernels === 'generated' && runsGeneratedKernel(op, registry) });
  });

  // PrepareNodeAndRegistrationDataFromFlatbuffer: each op's ParseXxx allocates its params struct.
  for (const { index, op, tflm } of stockOps) {
    const data = tflm.builtinData;
    if (data === null) continue;
    const l = structLayout(data, arch);
    tail.allocate(() => `${data.name} (${opLabel(index, op)} builtin data)`, l.sizeBytes, l.alignBytes);
  }
  // InitSubgraphs: each kernel's Init, AllocatePersistentBuffer(sizeof(OpData)).
  for (const { index, op, tflm } of stockOps) {
    const opData = tflm.opData;
    if (opData === null) continue;
    tail.allocate(() => `${opData.name} (${opLabel(index, op)} Init)`, structLayout(opData, arch).sizeBytes, ARENA_ALIGNMENT_BYTES);
  }
  // PrepareSubgraphs: each kernel's Prepare, its persistent buffers and scratch requests.
  // Temps first (the kernels read their tensors, then allocate), reset when the node is done; the
  // generated kernels read none (codegen/tflm glue: PrepareSite only requests scratch).
  let scratchCount = 0;
  for (const { index, op, tflm, ctx, generated } of stockOps) {
    if (!generated) tempTensors(tail, arch, graph, op);
    for (const b of tflm.prepareBuffers?.(ctx) ?? []) {
      tail.allocate(() => `${typeof b === 'number' ? `${b} B buffer` : b.name} (${opLabel(index, op)} Prepare)`, typeof b === 'number' ? b : structLayout(b, arch).sizeBytes, ARENA_ALIGNMENT_BYTES);
    }
    scratchCount += tflm.scratchRequests?.(ctx) ?? scratchRequests(graph, index, registry).length;
    tail.event({ kind: 'resetTemp' });
    requestArray(tail, arch, scratchCount);
  }
  // FinishModelAllocation: scratch buffer handles, then CommitStaticMemoryPlan: the subgraph offsets
  // and AllocationInfo arrays in temp, variable tensors on the tail, the planner's scratch, the plan.
  if (scratchCount > 0) tail.allocate(() => `ScratchBufferHandle[${scratchCount}]`, s.ScratchBufferHandle * scratchCount, p);
  tail.event({ kind: 'temp', sizeBytes: p, alignBytes: p });
  tail.event({ kind: 'temp', sizeBytes: s.AllocationInfo * (graph.tensors.length + scratchCount), alignBytes: p });
  graph.tensors.forEach((t, i) => {
    if (!t.isVariable) return;
    if (offlineOffsets !== null && (offlineOffsets[i] ?? -1) !== -1) return;
    tail.allocate(() => `variable tensor ${i} buffer`, byteSize(t.dtype, t.shape), ARENA_ALIGNMENT_BYTES);
  });
  tail.event({ kind: 'plan' });
  tail.event({ kind: 'resetTemp' });
  tail.event({ kind: 'overlay' });
  // MicroInterpreter::AllocateTensors: input / output TfLiteTensor* arrays and the tensors.
  for (const [what, list] of [['input', graph.inputs], ['output', graph.outputs]] as const) {
    tail.allocate(() => `TfLiteTensor*[${list.length}] (${what}s)`, p * list.length, ARENA_ALIGNMENT_BYTES);
    list.forEach((t, k) => {
      const tensor = graph.tensors[t];
      if (tensor === undefined) throw new InternalError(`graph ${what} ${k} names missing tensor ${t}`);
      ioTensor(tail, arch, tensor, `${what} ${k}`);
    });
  }
  return { persistentBytes: tail.usedBytes, allocations: tail.allocations, nonStock, events: tail.events };
}
