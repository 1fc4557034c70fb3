// Runs a planned graph op by op in one arena: every op is validated, prepared and compiled once
// (kernel code from its spec: WebAssembly, JS for the storage ops; kernels/lower-wasm.ts);
// inputs are copied in at their plan offsets, outputs copied out.
// Planning happens elsewhere: the runtime takes per-tensor offsets and per-op scratch offsets.
import type { Graph } from '../ir/index.ts';
import { byteSize, UsageError } from '../ir/index.ts';
import type { CompiledKernel, KernelInstance, KernelRegistry, PreparedOp, ReservedSpace, TraceSink, WasmLowering } from '../kernels/index.ts';
import { compileKernel, compileWasmKernels, instantiateOp, instantiateStorageOp, isStorageOp, lowerWasmCached, makeArenaViews, prepareGraph, WasmUnsupported } from '../kernels/index.ts';
import { Arena } from './arena.ts';
import { SpillStore } from './spill-store.ts';
import { shadowBytes, shadowFits } from './shadow-scan.ts';
import type { StorageDevice } from './storage/index.ts';
import { createStorage } from './storage/index.ts';
import { DEFAULT_TARGET_NAME, getTarget } from './targets/index.ts';

export interface RuntimeOptions {
  readonly graph: Graph;
  /** Arena byte offset per tensor; null for constants (and unused tensors). */
  readonly tensorOffsets: readonly (number | null)[];
  readonly arenaBytes: number;
  /** Per op, the arena offsets of the scratch buffers its spec declares. */
  readonly scratchOffsets?: readonly (readonly number[])[];
  /** TinySeg Spill/Fetching ops: the device spilled tensors go to (default: nicla-vision internal flash). */
  readonly storage?: StorageDevice;
  /** MFV-compress spilled blocks (TinySeg §5.1). */
  readonly compress?: boolean;
  /** Runs of each op on shared kernel code before specialized code (default SPECIALIZE_AFTER_RUNS; 0: specialized only). */
  readonly specializeAfterRuns?: number;
  /**
   * Kernel code: 'wasm' (default; WebAssembly, compiled before the first run and shared by worker
   * threads) or 'js' (generated JS, tiered shared -> specialized). Storage ops (TinySeg) always run
   * on 'js': their kernels read the storage device's mapped image, which is not in linear memory.
   */
  readonly kernels?: 'wasm' | 'js';
  /** How WebAssembly kernels are lowered (default lowerWasmCached; a WasmLowerings' `lower` records or replays them). */
  readonly wasmLowering?: WasmLowering;
  /**
   * Reserve room for a Tracer's shadow memory in the kernels' WebAssembly memory (`shadowSpace`),
   * 8 bytes per arena byte: its check then reads their trace log in place (for runtimes that are
   * traced many times, as verify's).
   */
  readonly traceShadow?: boolean;
  /** The kernel library whose specs run (default: reference). */
  readonly registry?: KernelRegistry;
}

export interface RunOptions {
  /** When set, ops run through the traced executor and report every arena access here. */
  readonly trace?: TraceSink;
  /** Called after each op (progress). */
  readonly onOp?: (opIndex: number) => void;
}

/** `lower`, except that storage ops (Spill, Fetching, FetchingConv2D) have no WebAssembly lowering. */
function jsForStorageOps(graph: Graph, lower: WasmLowering): WasmLowering {
  return (inst, mode) => {
    const op = graph.ops[inst.opIndex];
    if (op !== undefined && isStorageOp(op)) throw new WasmUnsupported(`storage op ${op.kind}`);
    return lower(inst, mode);
  };
}

export class Runtime {
  readonly graph: Graph;
  readonly arena: Arena;
  readonly prepared: readonly PreparedOp[];
  readonly instances: readonly KernelInstance[];
  private readonly kernels: readonly CompiledKernel[];
  /** FetchingConv2D ops: one compiled kernel per flat output row (compiled on first use). */
  private readonly rowKernels = new Map<number, CompiledKernel[]>();
  private readonly mappedViews: ReturnType<typeof makeArenaViews> | undefined;
  private readonly specializeAfterRuns: number | undefined;
  private readonly offsets: readonly (number | null)[];
  /** Storage device I/O of Spill/Fetching ops; null when the graph has none. */
  readonly spillStore: SpillStore | null;
  /**
   * Simulated RAM beyond the planned arena: 0, the arena is the whole RAM (storage ops' I/O
   * buffers are planned scratch; spilled tensors live only on the device).
   */
  readonly outsideArenaBytes: number;
  /** The room reserved for a Tracer's shadow memory (RuntimeOptions.traceShadow), else null. */
  readonly shadowSpace: ReservedSpace | null;

  constructor(opts: RuntimeOptions) {
    const { graph } = opts;
    this.prepared = prepareGraph(graph, opts.registry);
    this.graph = graph;
    this.offsets = opts.tensorOffsets;
    const scratchOffsets = graph.ops.map((_, i) => opts.scratchOffsets?.[i] ?? []);
    this.specializeAfterRuns = opts.specializeAfterRuns;
    // The arena is the whole simulated RAM: spilled tensors live only on the storage device, and
    // the storage ops' I/O buffers and histograms are planned scratch buffers inside it.
    const store = graph.ops.some(isStorageOp)
      ? new SpillStore({
        graph, device: opts.storage ?? createStorage(getTarget(DEFAULT_TARGET_NAME), 'internal'), compress: opts.compress ?? false,
        tensorOffsets: opts.tensorOffsets, scratchOffsets, prepared: this.prepared,
      })
      : null;
    this.spillStore = store;
    this.instances = this.prepared.map((p, i) => {
      const use = store?.useOf(i);
      const scratch = scratchOffsets[i] ?? [];
      return store !== null && use !== undefined
        ? instantiateStorageOp(graph, p, use, opts.tensorOffsets, scratch, store.payloadAddrOf(i), use.direction === 'fetch' && store.streamsFetch(i))
        : instantiateOp(graph, p, opts.tensorOffsets, scratch);
    });
    // Kernels on WebAssembly: the arena is the start of their linear memory. Storage ops stay on
    // the JS lowering (they read the device's mapped image, which is not in linear memory, and the
    // runtime drives their transfers), over the same buffer.
    const lower = opts.wasmLowering ?? lowerWasmCached;
    const shadow = shadowBytes(opts.arenaBytes, graph.tensors.length);
    const reserve = opts.traceShadow === true && shadowFits(shadow) ? shadow : 0;
    const wasm = (opts.kernels ?? 'wasm') === 'wasm' ? compileWasmKernels(this.instances, opts.arenaBytes, store === null ? lower : jsForStorageOps(graph, lower), reserve) : null;
    this.shadowSpace = wasm?.reserved ?? null;
    this.arena = new Arena(opts.arenaBytes, wasm?.buffer);
    store?.attach(this.arena.bytes);
    const mapped = store === null ? undefined : makeArenaViews(store.mapped.buffer as ArrayBuffer);
    this.mappedViews = mapped;
    this.kernels = this.instances.map((inst, i) => wasm?.kernels[i] ?? compileKernel(inst, this.arena.views, mapped, opts.specializeAfterRuns));
    this.outsideArenaBytes = this.arena.sizeBytes - opts.arenaBytes;
    this.resetVariables();
  }

  /**
   * TFLM MicroInterpreterGraph::ResetVariableTensors (run once by AllocateTensors): every variable
   * tensor is memset to its zero point when int8, else to 0. The state then persists across run()
   * calls, updated in place by the ops that own it, as across TFLM Invoke() calls.
   */
  resetVariables(): void {
    this.graph.tensors.forEach((t, i) => {
      if (!t.isVariable || t.data !== null) return;
      const fill = t.dtype === 'int8' ? (t.quant?.zeroPoint[0] ?? 0) & 0xff : 0;
      this.arena.write(this.offsetOf(i), new Uint8Array(byteSize(t.dtype, t.shape)).fill(fill));
    });
  }

  /** Copy the inputs in, run every op, return copies of the graph outputs. */
  run(inputs: readonly Uint8Array[], opts: RunOptions = {}): Uint8Array[] {
    if (inputs.length !== this.graph.inputs.length) throw new UsageError(`expected ${this.graph.inputs.length} inputs, got ${inputs.length}`);
    this.graph.inputs.forEach((t, i) => this.writeTensor(t, inputs[i] as Uint8Array));
    const trace = opts.trace && this.spillStore ? this.spillStore.traceFilter(opts.trace) : opts.trace;
    for (let i = 0; i < this.kernels.length; i++) {
      this.runOp(i, trace);
      opts.onOp?.(i);
    }
    return this.graph.outputs.map((t) => this.readTensor(t));
  }

  runOp(opIndex: number, trace?: TraceSink): void {
    const k = this.kernels[opIndex];
    if (k === undefined) throw new UsageError(`no op ${opIndex}`);
    const store = this.spillStore;
    const use = store?.useOf(opIndex);
    if (use?.direction === 'fetch') store?.beforeFetch(opIndex, trace);
    if (store !== null && use !== undefined && store.fetchesRows(opIndex)) {
      store.fetchRows(opIndex, (row) => {
        const rk = this.rowKernel(opIndex, row);
        if (trace) rk.runTraced(trace);
        else rk.run();
      }, trace);
    } else if (trace) k.runTraced(trace);
    else k.run();
    if (use?.direction === 'spill') this.spillStore?.spill(opIndex, trace);
  }

  /** The kernel of op `opIndex` restricted to flat output row `row` (FetchingConv2D's rowFrom / rowTo). */
  private rowKernel(opIndex: number, row: number): CompiledKernel {
    let rows = this.rowKernels.get(opIndex);
    if (rows === undefined) this.rowKernels.set(opIndex, (rows = []));
    const cached = rows[row];
    if (cached !== undefined) return cached;
    const inst = this.instances[opIndex];
    if (inst === undefined) throw new UsageError(`no op ${opIndex}`);
    // Rows differ only in rowFrom / rowTo, which shared code passes in: one compiled function serves
    // every row, and no row pays its own specialized compile (unless specialized code is asked for).
    const after = this.specializeAfterRuns === 0 ? 0 : Infinity;
    const k = compileKernel({ ...inst, scalars: { ...inst.scalars, rowFrom: row, rowTo: row + 1 } }, this.arena.views, this.mappedViews, after);
    rows[row] = k;
    return k;
  }

  /** The bytes of a tensor (arena copy, or the constant data). */
  readTensor(t: number): Uint8Array {
    const tensor = this.graph.tensors[t];
    if (tensor === undefined) throw new UsageError(`no tensor ${t}`);
    if (tensor.data !== null) return tensor.data.slice();
    return this.arena.read(this.offsetOf(t), byteSize(tensor.dtype, tensor.shape));
  }

  writeTensor(t: number, bytes: Uint8Array): void {
    const tensor = this.graph.tensors[t];
    if (tensor === undefined) throw new UsageError(`no tensor ${t}`);
    const size = byteSize(tensor.dtype, tensor.shape);
    if (bytes.length !== size) throw new UsageError(`tensor ${t} '${tensor.name}' needs ${size} bytes, got ${bytes.length}`);
    this.arena.write(this.offsetOf(t), bytes);
  }

  private offsetOf(t: number): number {
    const off = this.offsets[t];
    if (off === undefined || off === null) throw new UsageError(`tensor ${t} has no arena offset`);
    return off;
  }
}
