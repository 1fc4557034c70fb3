// TinySeg's custom operators (paper Table 1, §6.1: Spill, Fetching, FetchingConv2D) as TFLite
// custom ops with the custom codes and option bytes of TinySeg's runtime (github.com/coslab-kr/
// tinyseg: application/application.ino registers "Spill", "Fetching", "FusedConv2D"; spill.cpp,
// fetching.cpp and fused_conv.cpp read the bytes, optimizer/graph_transformer.py writes them).
// Every option byte is a u8. A tensor id is a graph tensor index: Spill's id is the transfer id that
// Fetching later passes to transfer_in, and Fetching reads the fetched part's shape from that tensor.
//
//   Spill          "Spill"        1 byte      [0] spill_id = index of the spilled tensor
//                                             inputs [spilled tensor]; outputs []
//   Fetching       "Fetching"     1 + 2k bytes [0] axis (non-negative), then per fetched part
//                                             [1 + 2i] pos: its place among all concatenated parts
//                                             [2 + 2i] tensor_id: the spilled tensor (the part's shape)
//                                             inputs: the parts not fetched, in order; outputs [concat]
//   FetchingConv2D "FusedConv2D"  9 bytes     [0] padding (TFLite Padding: 0 SAME, 1 VALID)
//                                             [1] stride_w [2] stride_h (w before h, as TinySeg)
//                                             [3] activation (TFLite ActivationFunctionType)
//                                             [4] dilation_w [5] dilation_h [6] axis, must be 3
//                                             [7] pos [8] tensor_id: exactly one fetched part
//                                             inputs: parts not fetched, filter, bias if any (rank 1)
//
// Where mcusim differs: one fetched part per Fetching (k = 1; TinySeg's merged Fetching may carry
// several); the IR keeps a -1 bias slot that the file omits; Fetching and FetchingConv2D read the
// fetched part in place from the storage device (memory-mapped flash; the remote host through a
// packet-sized planned I/O buffer; FetchingConv2D while convolving), where TinySeg streams it
// through the largest input's buffer (Fetching) or stages it in the output buffer (FusedConv2D). Decoding is strict: a wrong length, a value out of range or a tensor id whose
// tensor does not fit the op is E_MODEL_INVALID; encoding refuses what the layout cannot carry
// (tensor index or stride > 255, axis != 3 for FusedConv2D) with E_MODEL_UNSUPPORTED_OP.
import { ModelError } from './errors.ts';
import type { DType } from './dtype.ts';
import type { Activation, FetchingConv2dOptions, FetchingOptions, Model, Op, Padding, SpillOptions, Tensor } from './graph.ts';

export type TinySegKind = 'spill' | 'fetching' | 'fetchingConv2d';
export const TINYSEG_CUSTOM_CODES: Readonly<Record<TinySegKind, string>> = { spill: 'Spill', fetching: 'Fetching', fetchingConv2d: 'FusedConv2D' };

/** Where a custom op sits: its tensor indices (the file's on decode, the IR's on encode) and the graph's tensors. */
export interface CustomOpSite {
  readonly inputs: readonly number[];
  readonly outputs: readonly number[];
  readonly tensors: readonly Tensor[];
}
/** A custom op read from a file: its IR inputs and options. */
export interface DecodedCustomOp<O> {
  readonly inputs: readonly number[];
  readonly options: O;
}
/** A custom op for a file: its inputs there and its option bytes. */
export interface EncodedCustomOp {
  readonly inputs: readonly number[];
  readonly bytes: Uint8Array;
}

/** TFLite ActivationFunctionType codes 0..5. */
const ACTIVATIONS: readonly Activation[] = ['none', 'relu', 'reluN1To1', 'relu6', 'tanh', 'signBit'];
const MAX_U8 = 255;
/** TinySeg's kMaxInputNum (fetching.cpp, fused_conv.cpp): concatenated parts, the fetched one included. */
const MAX_PARTS = 10;
/** FusedConv2D concatenates along the channel axis only (fused_conv.cpp Prepare). */
const CONV_AXIS = 3;
const CONV_OPTION_BYTES = 9;

function invalid(code: string, message: string): ModelError {
  return new ModelError('E_MODEL_INVALID', `custom op ${code}: ${message}`);
}
function unsupported(code: string, message: string): ModelError {
  return new ModelError('E_MODEL_UNSUPPORTED_OP', `custom op ${code}: ${message}, which TinySeg's option layout cannot carry`);
}

function optionBytes(code: string, bytes: Uint8Array, ok: (n: number) => boolean, expected: string): Uint8Array {
  if (!(bytes instanceof Uint8Array)) throw invalid(code, 'custom options missing');
  if (!ok(bytes.length)) throw invalid(code, `custom options must be ${expected}, got ${bytes.length} bytes`);
  return bytes;
}

/** The tensor at index `t`, or an E_MODEL_INVALID naming `what` (a hostile index never throws a raw error). */
function tensorAt(code: string, site: CustomOpSite, t: number | undefined, what: string): Tensor {
  const x = t === undefined || !Number.isInteger(t) || t < 0 ? undefined : site.tensors[t];
  if (x === undefined) throw invalid(code, `${what} ${t ?? '(missing)'} is not a tensor of the graph`);
  return x;
}

const sameShape = (a: readonly number[], b: readonly number[]): boolean => a.length === b.length && a.every((d, i) => d === b[i]);

/** Whether tensor `id` can stand for a fetched part of `dtype` and `shape` (TinySeg reads the shape from it). */
function partTensorFits(site: CustomOpSite, id: number, dtype: DType, shape: readonly number[] | null): boolean {
  const t = Number.isInteger(id) && id >= 0 ? site.tensors[id] : undefined;
  return t !== undefined && shape !== null && t.dtype === dtype && sameShape(t.shape, shape);
}

/** The fetched part's shape when `parts` concatenate into `out` along `axis` with one part missing; null if they cannot. */
function fetchedShape(out: Tensor, parts: readonly Tensor[], axis: number): number[] | null {
  const rank = out.shape.length;
  if (axis < 0 || axis >= rank) return null;
  if (!parts.every((p) => p.shape.length === rank && p.shape.every((d, k) => k === axis || d === out.shape[k]))) return null;
  const rest = (out.shape[axis] ?? 0) - parts.reduce((s, p) => s + (p.shape[axis] ?? 0), 0);
  return rest > 0 ? out.shape.map((d, k) => (k === axis ? rest : d)) : null;
}

/** The fetched part's NHWC shape for a FetchingConv2D: the filter depth the parts leave, their N, H, W. */
function fetchedConvShape(parts: readonly Tensor[], filter: Tensor, fetched: Tensor | undefined): number[] | null {
  const nhw = (parts[0] ?? fetched)?.shape.slice(0, 3) ?? [];
  if (filter.shape.length !== 4 || nhw.length !== 3) return null;
  if (!parts.every((p) => p.shape.length === 4 && sameShape(p.shape.slice(0, 3), nhw))) return null;
  const depth = (filter.shape[3] ?? 0) - parts.reduce((s, p) => s + (p.shape[3] ?? 0), 0);
  return depth > 0 ? [...nhw, depth] : null;
}

function checkPlace(code: string, fail: typeof invalid, parts: number, pos: number): void {
  if (parts + 1 > MAX_PARTS) throw fail(code, `${parts + 1} concatenated parts, more than TinySeg's ${MAX_PARTS}`);
  if (!Number.isInteger(pos) || pos < 0 || pos > parts) throw fail(code, `fetched position ${pos} outside [0, ${parts}]`);
}

/** A storage slot (a tensor index) must fit TinySeg's u8 id byte. */
function checkSlotByte(code: string, slot: number): void {
  if (!Number.isInteger(slot) || slot < 0 || slot > MAX_U8) throw unsupported(code, `slot ${slot} is not a u8 tensor index`);
}

export function decodeSpillOptions(bytes: Uint8Array, site: CustomOpSite): DecodedCustomOp<SpillOptions> {
  const code = TINYSEG_CUSTOM_CODES.spill;
  const id = optionBytes(code, bytes, (n) => n === 1, '1 byte')[0] ?? 0;
  const x = tensorAt(code, site, site.inputs[0], 'input');
  tensorAt(code, site, id, 'spill_id');
  if (!partTensorFits(site, id, x.dtype, x.shape)) throw invalid(code, `spill_id ${id} names a tensor of another dtype or shape than the spilled one`);
  return { inputs: [...site.inputs], options: { id } };
}

export function encodeSpillOptions(o: SpillOptions, site: CustomOpSite): EncodedCustomOp {
  const code = TINYSEG_CUSTOM_CODES.spill;
  const x = tensorAt(code, site, site.inputs[0], 'input');
  checkSlotByte(code, o.id);
  if (!partTensorFits(site, o.id, x.dtype, x.shape)) throw unsupported(code, `slot ${o.id} does not name a tensor shaped like the spilled one`);
  return { inputs: [...site.inputs], bytes: Uint8Array.of(o.id) };
}

export function decodeFetchingOptions(bytes: Uint8Array, site: CustomOpSite): DecodedCustomOp<FetchingOptions> {
  const code = TINYSEG_CUSTOM_CODES.fetching;
  const b = optionBytes(code, bytes, (n) => n >= 3 && n % 2 === 1, '1 + 2 bytes per fetched part');
  if (b.length > 3) throw new ModelError('E_MODEL_UNSUPPORTED_OP', `custom op ${code}: ${(b.length - 1) / 2} fetched parts; mcusim fetches one per op`);
  const [axis, pos, id] = [b[0] ?? 0, b[1] ?? 0, b[2] ?? 0];
  const out = tensorAt(code, site, site.outputs[0], 'output');
  const parts = site.inputs.map((t, i) => tensorAt(code, site, t, `input ${i}`));
  if (axis >= out.shape.length) throw invalid(code, `axis ${axis} outside [0, ${out.shape.length})`);
  checkPlace(code, invalid, parts.length, pos);
  tensorAt(code, site, id, 'tensor_id');
  if (!partTensorFits(site, id, out.dtype, fetchedShape(out, parts, axis))) throw invalid(code, `tensor_id ${id} does not fit the concatenation into the output along axis ${axis}`);
  return { inputs: [...site.inputs], options: { victim: id, nth: pos, axis } };
}

export function encodeFetchingOptions(o: FetchingOptions, site: CustomOpSite): EncodedCustomOp {
  const code = TINYSEG_CUSTOM_CODES.fetching;
  const out = tensorAt(code, site, site.outputs[0], 'output');
  const parts = site.inputs.map((t, i) => tensorAt(code, site, t, `input ${i}`));
  const axis = o.axis < 0 ? o.axis + out.shape.length : o.axis;
  if (!Number.isInteger(axis) || axis < 0 || axis >= out.shape.length) throw invalid(code, `axis ${o.axis} outside [-${out.shape.length}, ${out.shape.length})`);
  checkPlace(code, unsupported, parts.length, o.nth);
  checkSlotByte(code, o.victim);
  if (!partTensorFits(site, o.victim, out.dtype, fetchedShape(out, parts, axis))) throw unsupported(code, `slot ${o.victim} does not name a tensor shaped like the fetched part`);
  return { inputs: [...site.inputs], bytes: Uint8Array.of(axis, o.nth, o.victim) };
}

/** Splits FusedConv2D inputs into parts, filter and bias (-1: none; TinySeg tells a bias by rank 1). */
function convInputs(site: CustomOpSite): { readonly parts: number[]; readonly filter: number | undefined; readonly bias: number } {
  const ins = [...site.inputs];
  const last = ins[ins.length - 1];
  let bias = -1;
  if (last === -1) ins.pop();
  else if (last !== undefined && site.tensors[last]?.shape.length === 1) bias = ins.pop() ?? -1;
  const filter = ins.pop();
  return { parts: ins, filter, bias };
}

export function decodeFetchingConv2dOptions(bytes: Uint8Array, site: CustomOpSite): DecodedCustomOp<FetchingConv2dOptions> {
  const code = TINYSEG_CUSTOM_CODES.fetchingConv2d;
  const b = optionBytes(code, bytes, (n) => n === CONV_OPTION_BYTES, `${CONV_OPTION_BYTES} bytes (one fetched part)`);
  const [pad, strideW, strideH, act, dilationW, dilationH, axis, pos, id] = Array.from(b);
  const activation = ACTIVATIONS[act ?? -1];
  if (pad === undefined || pad > 1) throw invalid(code, `unknown padding code ${pad}`);
  if (activation === undefined) throw invalid(code, `unknown activation code ${act}`);
  for (const [name, v] of [['stride_w', strideW], ['stride_h', strideH], ['dilation_w', dilationW], ['dilation_h', dilationH]] as const) {
    if (v === undefined || v < 1) throw invalid(code, `${name} ${v} must be at least 1`);
  }
  if (axis !== CONV_AXIS) throw invalid(code, `axis ${axis}: FusedConv2D concatenates along axis ${CONV_AXIS} only`);
  const { parts: partIds, filter: filterId, bias } = convInputs(site);
  const filter = tensorAt(code, site, filterId, 'filter');
  tensorAt(code, site, site.outputs[0], 'output');
  const parts = partIds.map((t, i) => tensorAt(code, site, t, `input ${i}`));
  checkPlace(code, invalid, parts.length, pos ?? -1);
  const fetched = tensorAt(code, site, id, 'tensor_id');
  if (!partTensorFits(site, id ?? -1, 'int8', fetchedConvShape(parts, filter, fetched))) throw invalid(code, `tensor_id ${id} is not the int8 NHWC part the filter depth leaves`);
  const padding: Padding = pad === 0 ? 'same' : 'valid';
  return {
    inputs: [...partIds, filterId ?? -1, bias],
    options: { padding, activation, strideW: strideW ?? 1, strideH: strideH ?? 1, dilationW: dilationW ?? 1, dilationH: dilationH ?? 1, victim: id ?? 0, nth: pos ?? 0, axis: CONV_AXIS },
  };
}

export function encodeFetchingConv2dOptions(o: FetchingConv2dOptions, site: CustomOpSite): EncodedCustomOp {
  const code = TINYSEG_CUSTOM_CODES.fetchingConv2d;
  const n = site.inputs.length;
  const bias = site.inputs[n - 1] ?? -1;
  const partIds = site.inputs.slice(0, Math.max(0, n - 2));
  const filter = tensorAt(code, site, site.inputs[n - 2], 'filter');
  const parts = partIds.map((t, i) => tensorAt(code, site, t, `input ${i}`));
  if (bias !== -1 && tensorAt(code, site, bias, 'bias').shape.length !== 1) throw unsupported(code, 'a bias that is not rank 1 (TinySeg tells the bias by its rank)');
  if ((o.axis < 0 ? o.axis + 4 : o.axis) !== CONV_AXIS) throw unsupported(code, `axis ${o.axis} (FusedConv2D concatenates channels, axis 3)`);
  for (const [name, v] of [['strideW', o.strideW], ['strideH', o.strideH], ['dilationW', o.dilationW], ['dilationH', o.dilationH]] as const) {
    if (!Number.isInteger(v) || v < 1 || v > MAX_U8) throw unsupported(code, `${name} ${v} outside [1, ${MAX_U8}]`);
  }
  checkPlace(code, unsupported, parts.length, o.nth);
  checkSlotByte(code, o.victim);
  if (!partTensorFits(site, o.victim, 'int8', fetchedConvShape(parts, filter, site.tensors[o.victim]))) throw unsupported(code, `slot ${o.victim} does not name a tensor shaped like the fetched part`);
  const bytes = Uint8Array.of(o.padding === 'same' ? 0 : 1, o.strideW, o.strideH, ACTIVATIONS.indexOf(o.activation), o.dilationW, o.dilationH, CONV_AXIS, o.nth, o.victim);
  return { inputs: bias === -1 ? [...partIds, site.inputs[n - 2] ?? -1] : [...site.inputs], bytes };
}

/** The tensor a TinySeg storage op's slot names (Spill id, Fetching victim); null for other ops. */
export function storageSlotOf(op: Op): number | null {
  if (op.kind === 'spill') return op.options.id;
  return op.kind === 'fetching' || op.kind === 'fetchingConv2d' ? op.options.victim : null;
}

/**
 * `op` with every tensor index it holds mapped through `f`: inputs, outputs and a storage op's
 * slot, which is a tensor index too. Passes that renumber tensors go through this.
 */
export function remapOpTensors(op: Op, f: (t: number) => number): Op {
  const m = (t: number): number => (t < 0 ? t : f(t));
  const base = { ...op, inputs: op.inputs.map(m), outputs: op.outputs.map(m) };
  if (op.kind === 'spill') return { ...base, options: { ...op.options, id: m(op.options.id) } } as Op;
  if (op.kind === 'fetching' || op.kind === 'fetchingConv2d') return { ...base, options: { ...op.options, victim: m(op.options.victim) } } as Op;
  return base as Op;
}

/**
 * TransposeConv scratch modes have no field in TFLite's TransposeConvOptions, so each travels as a
 * model metadata entry: int32 little-endian op indices, each naming a TRANSPOSE_CONV op, strictly
 * increasing. `TinySegScratchInt16` (TinySeg §5.3): int16 accumulator scratch.
 * `McusimTransposeConvScratchFree` (mcusim): the gather form without scratch. A stock TFLM
 * ignores both and runs its int32-scratch kernel (same outputs, more arena).
 */
export const SCRATCH_INT16_METADATA_NAME = 'TinySegScratchInt16';
export const SCRATCH_FREE_METADATA_NAME = 'McusimTransposeConvScratchFree';

type ScratchFlag = 'scratchInt16' | 'scratchFree';
const SCRATCH_ENTRIES: readonly (readonly [string, ScratchFlag])[] = [
  [SCRATCH_INT16_METADATA_NAME, 'scratchInt16'],
  [SCRATCH_FREE_METADATA_NAME, 'scratchFree'],
];

/** The model with its scratch-mode metadata entries rewritten from the ops' flags (dropped when none). */
export function withScratchModeMetadata(model: Model): Model {
  let metadata = model.metadata;
  for (const [name, flag] of SCRATCH_ENTRIES) {
    const ops = model.graph.ops.flatMap((op, i) => (op.kind === 'transposeConv' && op.options[flag] === true ? [i] : []));
    metadata = metadata.filter((m) => m.name !== name);
    if (ops.length === 0) continue;
    const data = new Uint8Array(4 * ops.length);
    ops.forEach((v, i) => new DataView(data.buffer).setInt32(4 * i, v, true));
    metadata = [...metadata, { name, data }];
  }
  return { ...model, metadata };
}

/** The TRANSPOSE_CONV op indices one scratch-mode entry names; inconsistent entries are ModelErrors. */
function scratchEntryOps(model: Model, name: string): ReadonlySet<number> {
  const entries = model.metadata.filter((m) => m.name === name);
  const entry = entries[0];
  const marked = new Set<number>();
  if (entry === undefined) return marked;
  const fail = (m: string): ModelError => new ModelError('E_MODEL_METADATA', `${name}: ${m}`);
  if (entries.length > 1) throw fail(`${entries.length} entries, expected at most one`);
  if (entry.data.length % 4 !== 0) throw fail(`${entry.data.length} bytes is not a whole number of int32 op indices`);
  const dv = new DataView(entry.data.buffer, entry.data.byteOffset, entry.data.byteLength);
  let prev = -1;
  for (let k = 0; k < entry.data.length / 4; k++) {
    const i = dv.getInt32(4 * k, true);
    if (i <= prev) throw fail('op indices must be strictly increasing');
    if (model.graph.ops[i]?.kind !== 'transposeConv') throw fail(`op ${i} is not a TRANSPOSE_CONV`);
    marked.add(i);
    prev = i;
  }
  return marked;
}

/** Applies the scratch-mode metadata entries to the ops they name; an op in both is a ModelError. */
export function applyScratchModeMetadata(model: Model): Model {
  const [int16, free] = SCRATCH_ENTRIES.map(([name]) => scratchEntryOps(model, name)) as [ReadonlySet<number>, ReadonlySet<number>];
  if (int16.size === 0 && free.size === 0) return model;
  for (const i of int16) {
    if (free.has(i)) throw new ModelError('E_MODEL_METADATA', `op ${i} is named by both ${SCRATCH_INT16_METADATA_NAME} and ${SCRATCH_FREE_METADATA_NAME}`);
  }
  const ops = model.graph.ops.map((op, i): Op => {
    if (op.kind !== 'transposeConv' || (!int16.has(i) && !free.has(i))) return op;
    return { ...op, options: { ...op.options, ...(int16.has(i) ? { scratchInt16: true } : { scratchFree: true }) } };
  });
  return { ...model, graph: { ...model.graph, ops } };
}
