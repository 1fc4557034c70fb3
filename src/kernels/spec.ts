// The shape of a kernel spec (DESIGN.md §2): constraints with stable ids whose text is the error
// message, a `prepare` that turns one op instance into literal params (floats allowed), and a
// loop-nest body as data. Also the op context specs read tensors through, and constraint checking.
import type { BuiltinKind, DType, Graph, Issue, OpOf, Tensor } from '../ir/index.ts';
import { InternalError } from '../ir/index.ts';
import type { Nest } from './nest.ts';
import type { CStruct } from './c-struct.ts';

/** Read access to one op instance of a graph. Optional inputs (index -1) read as null. */
export interface OpContext<K extends BuiltinKind = BuiltinKind> {
  readonly graph: Graph;
  readonly opIndex: number;
  readonly op: OpOf<K>;
  input(slot: number): Tensor | null;
  output(slot: number): Tensor;
}

export interface Constraint<K extends BuiltinKind = BuiltinKind> {
  /** Stable id, e.g. `conv2d.input-rank`. */
  readonly id: string;
  /** Human text; doubles as the error message and the docs. */
  readonly text: string;
  readonly holds: (ctx: OpContext<K>) => boolean;
}

/** Where a nest buffer name comes from. */
export type BufferRef =
  | { readonly kind: 'input'; readonly slot: number }
  | { readonly kind: 'output'; readonly slot: number }
  | { readonly kind: 'scratch'; readonly index: number };

/** A scratch buffer the kernel needs in the arena for the duration of the op. */
export interface ScratchDecl {
  readonly name: string;
  readonly dtype: DType;
  readonly sizeBytes: number;
}

export interface Prepared {
  /** Structural int params folded into every lowering, C included (e.g. hasBias). */
  readonly flags?: Readonly<Record<string, number>>;
  /** Int32 scalars inlined as literals (JS) or passed in the params array (C). */
  readonly scalars: Readonly<Record<string, number>>;
  /** Int32 arrays (per-channel multipliers, shifts) bound as closure constants. */
  readonly arrays: Readonly<Record<string, Int32Array>>;
  readonly buffers: Readonly<Record<string, BufferRef>>;
  readonly scratch: readonly ScratchDecl[];
}

// What TFLM keeps for an op in its persistent arena: filled in beside every spec (structs and
// helpers in tflm-memory.ts, how to fill it in: kernels/README.md, docs/tflm-arena.md).
/**
 * TFLM's persistent footprint of one op kind. Fill it in for every new spec:
 * - a stock TFLM builtin: `{ stock: true, builtinData, opData, prepareBuffers?, scratchRequests? }`
 *   - `builtinData`: the TfLiteXxxParams struct the kernel's ParseXxx (flatbuffer_conversions.cc)
 *     allocates, or null when the parser allocates nothing (PAD, TRANSPOSE, QUANTIZE...);
 *   - `opData`: sizeof the struct the kernel's Init passes to AllocatePersistentBuffer, or null when
 *     the registration has no Init (RESHAPE, TRANSPOSE, SPLIT...);
 *   - `prepareBuffers(ctx)`: each AllocatePersistentBuffer call in Prepare, in call order (default
 *     none): a byte count, or a struct (sizeof per arch) when Prepare allocates the OpData itself;
 *   - `scratchRequests(ctx)`: how many RequestScratchBufferInArena calls Prepare makes (default: the
 *     number of scratch buffers mcusim's own prepare declares, which mirrors TFLM's for stock ops);
 *   - `mcusimOptions`: option keys (set true) that pick an mcusim-only kernel variant stock TFLM
 *     ignores (TransposeConv's int16 / scratch-free forms): reports then show both runtimes.
 * - an mcusim op stock TFLM does not have (custom ops): `{ stock: false, why, mcusimPersistentBytes,
 *   mcusimOutsideArenaBytes }`: the RAM mcusim's C runtime keeps for it beyond the plan, in the
 *   arena and outside it.
 */
export type TflmPersistent<K extends BuiltinKind = BuiltinKind> = StockTflmPersistent<K> | NonStockOp<K>;

export interface StockTflmPersistent<K extends BuiltinKind = BuiltinKind> {
  readonly stock: true;
  readonly builtinData: CStruct | null;
  readonly opData: CStruct | null;
  readonly prepareBuffers?: (ctx: OpContext<K>) => readonly (number | CStruct)[];
  readonly scratchRequests?: (ctx: OpContext<K>) => number;
  /** Option keys that select an mcusim-only kernel variant; stock TFLM ignores them. */
  readonly mcusimOptions?: readonly string[];
}

export interface NonStockOp<K extends BuiltinKind = BuiltinKind> {
  readonly stock: false;
  /** Why stock TFLM cannot run it (shown in reports). */
  readonly why: string;
  /** RAM mcusim's C runtime keeps in its arena for this op beyond the plan (0: params are const, in flash). */
  readonly mcusimPersistentBytes: (ctx: OpContext<K>) => number;
  /** RAM mcusim's C runtime keeps outside its arena for this op (0 for every op today: storage I/O goes through planned scratch). */
  readonly mcusimOutsideArenaBytes: (ctx: OpContext<K>) => number;
}

export interface KernelSpec<K extends BuiltinKind = BuiltinKind> {
  readonly kind: K;
  /** True when prepare may declare scratch buffers: planning prepares only these ops. */
  readonly requestsScratch?: boolean;
  /** What TFLM keeps for this op in its persistent arena (TflmPersistent above says how to fill it in). */
  readonly tflmPersistent: TflmPersistent<K>;
  readonly constraints: readonly Constraint<K>[];
  prepare(ctx: OpContext<K>): Prepared;
  /** The loop nest; a function when its structure depends on prepared params (e.g. rank). */
  readonly body: Nest | ((p: Prepared) => Nest);
}

export function makeOpContext<K extends BuiltinKind>(graph: Graph, opIndex: number): OpContext<K> {
  const op = graph.ops[opIndex];
  if (op === undefined) throw new InternalError(`no op ${opIndex}`);
  const tensor = (list: readonly number[], slot: number, what: string): Tensor | null => {
    const t = list[slot];
    if (t === undefined || t < 0) return null;
    const tensor = graph.tensors[t];
    if (tensor === undefined) throw new InternalError(`op ${opIndex} ${what} ${slot} names missing tensor ${t}`);
    return tensor;
  };
  return {
    graph,
    opIndex,
    op: op as OpOf<K>,
    input: (slot) => tensor(op.inputs, slot, 'input'),
    output: (slot) => {
      const t = tensor(op.outputs, slot, 'output');
      if (t === null) throw new InternalError(`op ${opIndex} has no output ${slot}`);
      return t;
    },
  };
}

/** Every failed constraint of one op, as issues (a constraint that throws counts as failed). */
export function checkConstraints<K extends BuiltinKind>(spec: KernelSpec<K>, ctx: OpContext<K>): Issue[] {
  const issues: Issue[] = [];
  for (const c of spec.constraints) {
    let ok: boolean;
    try {
      ok = c.holds(ctx);
    } catch {
      ok = false;
    }
    if (!ok) issues.push({ code: 'E_KERNEL_CONSTRAINT', message: `[${c.id}] ${c.text}`, opIndex: ctx.opIndex, opKind: String((ctx.op as { kind: string }).kind) });
  }
  return issues;
}

/** The nest of a prepared instance. */
export function nestOf<K extends BuiltinKind>(spec: KernelSpec<K>, p: Prepared): Nest {
  return typeof spec.body === 'function' ? spec.body(p) : spec.body;
}
