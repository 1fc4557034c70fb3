// TinySeg's custom operators (paper Table 1, §6.1: Spill, Fetching, FetchingConv2D) as TFLite
// custom ops: their custom codes and custom-option byte layouts, decoded strictly. Every field is
// little-endian; a wrong length, a reserved byte that is not zero or a value out of range is a
// ModelError (E_MODEL_INVALID), never a raw RangeError.
//
//   Spill          (4 bytes)  [0..3] int32 id       storage slot of the victim tensor, >= 0
//   Fetching       (12 bytes) [0..3] int32 victim   storage slot to fetch, >= 0
//                             [4..7] int32 nth      position of the victim among the concat inputs
//                             [8..11] int32 axis    concatenation axis, in [-4, 4)
//   FetchingConv2D (32 bytes) [0..11] as Fetching
//                             [12] u8 padding (0 SAME, 1 VALID)  [13] u8 fused activation (TFLite code)
//                             [14..15] reserved, zero
//                             [16..19] int32 strideH [20..23] strideW [24..27] dilationH [28..31] dilationW, each in [1, 65535]
import { ModelError } from './errors.ts';
import type { Activation, FetchingConv2dOptions, FetchingOptions, Model, Op, Padding, SpillOptions } from './graph.ts';

export type TinySegKind = 'spill' | 'fetching' | 'fetchingConv2d';
export const TINYSEG_CUSTOM_CODES: Readonly<Record<TinySegKind, string>> = { spill: 'Spill', fetching: 'Fetching', fetchingConv2d: 'FetchingConv2D' };

const ACTIVATIONS: readonly Activation[] = ['none', 'relu', 'reluN1To1', 'relu6', 'tanh', 'signBit'];
const MAX_SLOT = 0x7fffffff;
const MAX_STRIDE = 65535;

function bad(code: string, message: string): ModelError {
  return new ModelError('E_MODEL_INVALID', `custom op ${code}: ${message}`);
}

function reader(code: string, bytes: Uint8Array, length: number): DataView {
  if (!(bytes instanceof Uint8Array)) throw bad(code, 'custom options missing');
  if (bytes.length !== length) throw bad(code, `custom options must be ${length} bytes, got ${bytes.length}`);
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function inRange(code: string, name: string, v: number, lo: number, hi: number): number {
  if (!Number.isInteger(v) || v < lo || v > hi) throw bad(code, `${name} ${v} outside [${lo}, ${hi}]`);
  return v;
}

export function decodeSpillOptions(bytes: Uint8Array): SpillOptions {
  const dv = reader('Spill', bytes, 4);
  return { id: inRange('Spill', 'id', dv.getInt32(0, true), 0, MAX_SLOT) };
}

function fetchingFields(code: string, dv: DataView): FetchingOptions {
  return {
    victim: inRange(code, 'victim', dv.getInt32(0, true), 0, MAX_SLOT),
    nth: inRange(code, 'nth', dv.getInt32(4, true), 0, 10),
    axis: inRange(code, 'axis', dv.getInt32(8, true), -4, 3),
  };
}

export function decodeFetchingOptions(bytes: Uint8Array): FetchingOptions {
  return fetchingFields('Fetching', reader('Fetching', bytes, 12));
}

export function decodeFetchingConv2dOptions(bytes: Uint8Array): FetchingConv2dOptions {
  const code = 'FetchingConv2D';
  const dv = reader(code, bytes, 32);
  const pad = dv.getUint8(12);
  const act = ACTIVATIONS[dv.getUint8(13)];
  if (pad > 1) throw bad(code, `unknown padding code ${pad}`);
  if (act === undefined) throw bad(code, `unknown activation code ${dv.getUint8(13)}`);
  if (dv.getUint16(14, true) !== 0) throw bad(code, 'reserved bytes 14..15 must be zero');
  const s = (o: number, n: string): number => inRange(code, n, dv.getInt32(o, true), 1, MAX_STRIDE);
  const padding: Padding = pad === 0 ? 'same' : 'valid';
  return { ...fetchingFields(code, dv), padding, activation: act, strideH: s(16, 'strideH'), strideW: s(20, 'strideW'), dilationH: s(24, 'dilationH'), dilationW: s(28, 'dilationW') };
}

export function encodeSpillOptions(o: SpillOptions): Uint8Array {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setInt32(0, o.id, true);
  return out;
}

function writeFetching(dv: DataView, o: FetchingOptions): void {
  dv.setInt32(0, o.victim, true);
  dv.setInt32(4, o.nth, true);
  dv.setInt32(8, o.axis, true);
}

export function encodeFetchingOptions(o: FetchingOptions): Uint8Array {
  const out = new Uint8Array(12);
  writeFetching(new DataView(out.buffer), o);
  return out;
}

export function encodeFetchingConv2dOptions(o: FetchingConv2dOptions): Uint8Array {
  const out = new Uint8Array(32);
  const dv = new DataView(out.buffer);
  writeFetching(dv, o);
  dv.setUint8(12, o.padding === 'same' ? 0 : 1);
  dv.setUint8(13, ACTIVATIONS.indexOf(o.activation));
  [o.strideH, o.strideW, o.dilationH, o.dilationW].forEach((v, i) => dv.setInt32(16 + 4 * i, v, true));
  return out;
}

/**
 * TransposeConv int16 scratch (TinySeg §5.3) has no field in TFLite's TransposeConvOptions, so it
 * travels as model metadata `TinySegScratchInt16`: int32 little-endian op indices, each naming a
 * TRANSPOSE_CONV op, strictly increasing.
 */
export const SCRATCH_INT16_METADATA_NAME = 'TinySegScratchInt16';

/** The model with its metadata entry rewritten from the ops' scratchInt16 flags (dropped when none). */
export function withScratchInt16Metadata(model: Model): Model {
  const ops = model.graph.ops.flatMap((op, i) => (op.kind === 'transposeConv' && op.options.scratchInt16 === true ? [i] : []));
  const rest = model.metadata.filter((m) => m.name !== SCRATCH_INT16_METADATA_NAME);
  if (ops.length === 0) return { ...model, metadata: rest };
  const data = new Uint8Array(4 * ops.length);
  ops.forEach((v, i) => new DataView(data.buffer).setInt32(4 * i, v, true));
  return { ...model, metadata: [...rest, { name: SCRATCH_INT16_METADATA_NAME, data }] };
}

/** Applies a `TinySegScratchInt16` metadata entry to the ops it names; inconsistent entries are ModelErrors. */
export function applyScratchInt16Metadata(model: Model): Model {
  const entries = model.metadata.filter((m) => m.name === SCRATCH_INT16_METADATA_NAME);
  const entry = entries[0];
  if (entry === undefined) return model;
  const fail = (m: string): ModelError => new ModelError('E_MODEL_METADATA', `${SCRATCH_INT16_METADATA_NAME}: ${m}`);
  if (entries.length > 1) throw fail(`${entries.length} entries, expected at most one`);
  if (entry.data.length % 4 !== 0) throw fail(`${entry.data.length} bytes is not a whole number of int32 op indices`);
  const dv = new DataView(entry.data.buffer, entry.data.byteOffset, entry.data.byteLength);
  const marked = new Set<number>();
  let prev = -1;
  for (let k = 0; k < entry.data.length / 4; k++) {
    const i = dv.getInt32(4 * k, true);
    if (i <= prev) throw fail('op indices must be strictly increasing');
    if (model.graph.ops[i]?.kind !== 'transposeConv') throw fail(`op ${i} is not a TRANSPOSE_CONV`);
    marked.add(i);
    prev = i;
  }
  const ops = model.graph.ops.map((op, i): Op => (op.kind === 'transposeConv' && marked.has(i) ? { ...op, options: { ...op.options, scratchInt16: true } } : op));
  return { ...model, graph: { ...model.graph, ops } };
}
