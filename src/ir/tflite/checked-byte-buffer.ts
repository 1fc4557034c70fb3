// A flatbuffers ByteBuffer that bounds-checks every read the generated accessors make, so a
// hostile file becomes a coded ModelError instead of garbage reads, RangeErrors or a hang.
// Plays the role of flatbuffers::Verifier (flatbuffers/verifier.h), lazily: each uoffset, vtable,
// vector and string is checked when the importer touches it, and a work budget bounds the total
// (objects shared through many offsets cannot multiply the work beyond the file's size).
import { ByteBuffer } from 'flatbuffers';
import type { Encoding, Table } from 'flatbuffers';
import { ModelError } from '../errors.ts';

/**
 * Work budget, in units of about one vector element read. Every element, table and string of a
 * well-formed file occupies its own bytes, so real models need well under one unit per byte (the
 * oracle models use 0.03-0.29); a file that reaches one object through many offsets runs out
 * after a bounded amount of work (about 0.5 s for a hostile 4 MB file).
 */
const BUDGET_UNITS_PER_BYTE = 1;
const BUDGET_BASE_UNITS = 1 << 16;
const STRING_BYTES_PER_UNIT = 16;
const COPY_BYTES_PER_UNIT = 64;

export class CheckedByteBuffer extends ByteBuffer {
  private readonly size: number;
  private budget: number;
  private lastTable = -1;
  private lastVtable = 0;
  private lastVtableSize = 0;
  private lastTableSize = 0;

  constructor(bytes: Uint8Array) {
    super(bytes);
    this.size = bytes.length;
    this.budget = bytes.length * BUDGET_UNITS_PER_BYTE + BUDGET_BASE_UNITS;
  }

  /** Throws unless [pos, pos + width) lies inside the file. */
  check(pos: number, width: number, what: string): void {
    if (!Number.isSafeInteger(pos) || pos < 0) {
      throw new ModelError('E_MODEL_OFFSET', `corrupt flatbuffer: ${what} at invalid position ${pos}`);
    }
    if (pos + width > this.size) {
      throw new ModelError(
        'E_MODEL_TRUNCATED',
        `flatbuffer ${what} at byte ${pos} (+${width}) runs past the end of the ${this.size}-byte file (truncated or corrupt offset)`,
      );
    }
  }

  /** Accounts for `units` of work (elements or tables read); objects reached many times exhaust it. */
  charge(units: number): void {
    this.budget -= units;
    if (this.budget < 0) {
      throw new ModelError('E_MODEL_CORRUPT', 'corrupt flatbuffer: its offsets reference far more data than the file holds');
    }
  }

  /** A copy of bytes [pos, pos + length), e.g. buffer data stored outside the flatbuffer. */
  copyRange(pos: number, length: number, what: string): Uint8Array {
    this.check(pos, length, what);
    this.chargeCopy(length);
    // A copy even when the input is a Node Buffer, whose slice() would alias it.
    return new Uint8Array(this.bytes().subarray(pos, pos + length));
  }

  /** Accounts for copying `bytes` bytes. */
  chargeCopy(bytes: number): void {
    this.charge(bytes / COPY_BYTES_PER_UNIT);
  }

  /**
   * The vector field at vtable offset `field` of the table at `tablePos` (the offset the generated
   * accessors pass to __offset), its `width`-byte elements checked to lie in the file as a whole:
   * its start and element count, or null when the field is absent. For readers of whole scalar
   * vectors (per-channel quantization) that then read each element without a check of its own.
   */
  scalarVector(tablePos: number, field: number, width: number): { readonly start: number; readonly length: number } | null {
    const o = this.__offset(tablePos, field);
    if (o === 0) return null;
    const length = this.__vector_len(tablePos + o);
    const start = this.__vector(tablePos + o);
    this.check(start, length * width, 'vector');
    return { start, length };
  }

  /** `length` little-endian float32 values from `start`, inside a range scalarVector checked. */
  float32s(start: number, length: number): number[] {
    const out: number[] = [];
    for (let i = 0; i < length; i++) out.push(super.readFloat32(start + 4 * i));
    return out;
  }

  /** `length` little-endian int64 values from `start` (inside a range scalarVector checked) as
   * numbers; a value outside the safe integers is NaN. */
  int64sAsNumbers(start: number, length: number): number[] {
    const out: number[] = [];
    for (let i = 0; i < length; i++) {
      const low = super.readUint32(start + 8 * i);
      const high = super.readInt32(start + 8 * i + 4);
      const value = high * 0x1_0000_0000 + low;
      out.push(Number.isSafeInteger(value) ? value : NaN);
    }
    return out;
  }

  /** `offset`, once [offset, offset + width) is known to lie inside the file. */
  private at(offset: number, width: number, what: string): number {
    this.check(offset, width, what);
    return offset;
  }

  override readUint8(offset: number): number { return super.readUint8(this.at(offset, 1, 'byte')); }
  override readInt8(offset: number): number { return super.readInt8(this.at(offset, 1, 'byte')); }
  override readUint16(offset: number): number { return super.readUint16(this.at(offset, 2, 'int16')); }
  override readInt16(offset: number): number { return super.readInt16(this.at(offset, 2, 'int16')); }
  override readInt32(offset: number): number { return super.readInt32(this.at(offset, 4, 'int32')); }
  override readUint32(offset: number): number { return super.readUint32(this.at(offset, 4, 'int32')); }
  override readUint64(offset: number): bigint { return super.readUint64(this.at(offset, 8, 'int64')); }
  override readFloat32(offset: number): number { return super.readFloat32(this.at(offset, 4, 'float32')); }
  override readFloat64(offset: number): number { return super.readFloat64(this.at(offset, 8, 'float64')); }
  override readInt64(offset: number): bigint {
    this.check(offset, 8, 'int64');
    const low = super.readInt32(offset);
    const high = super.readInt32(offset + 4);
    // Zero points are small: one BigInt instead of the runtime's four when the value fits int32.
    if ((high === 0 && low >= 0) || (high === -1 && low < 0)) return BigInt(low);
    return super.readInt64(offset);
  }

  /**
   * Field lookup through the table's vtable. The runtime reads vtable entries as int16; a valid
   * vtable has an even size >= 4 inside the file and every present field inside the table.
   */
  override __offset(tablePos: number, vtableOffset: number): number {
    if (tablePos !== this.lastTable) this.checkTable(tablePos);
    if (vtableOffset >= this.lastVtableSize) return 0;
    const field = super.readUint16(this.lastVtable + vtableOffset);
    if (field !== 0 && (field < 4 || field >= this.lastTableSize)) {
      throw new ModelError('E_MODEL_OFFSET', `corrupt flatbuffer: field offset ${field} outside its ${this.lastTableSize}-byte table at ${tablePos}`);
    }
    return field;
  }

  /** Validates a table's vtable and inline size, remembering the last one (vector loops reuse it). */
  private checkTable(tablePos: number): void {
    const vtable = tablePos - this.readInt32(tablePos);
    this.check(vtable, 4, 'vtable');
    const vtableSize = super.readUint16(vtable);
    const tableSize = super.readUint16(vtable + 2);
    if (vtableSize < 4 || vtableSize % 2 !== 0 || vtableSize >= 0x8000 || tableSize < 4) {
      throw new ModelError('E_MODEL_OFFSET', `corrupt flatbuffer: invalid vtable at byte ${vtable} for table at ${tablePos}`);
    }
    this.check(vtable, vtableSize, 'vtable');
    this.check(tablePos, tableSize, 'table');
    this.lastTable = tablePos;
    this.lastVtable = vtable;
    this.lastVtableSize = vtableSize;
    this.lastTableSize = tableSize;
  }

  /** Follows a uoffset; offsets are unsigned and point forward, so >= 2^31 is never valid here. */
  override __indirect(offset: number): number {
    const rel = this.readInt32(offset);
    if (rel < 0) throw new ModelError('E_MODEL_OFFSET', `corrupt flatbuffer: negative offset ${rel} at byte ${offset}`);
    const target = offset + rel;
    this.check(target, 4, 'offset target');
    return target;
  }

  override __union(t: Table, offset: number): Table {
    t.bb_pos = this.__indirect(offset);
    t.bb = this;
    return t;
  }

  override __vector(offset: number): number {
    return this.__indirect(offset) + 4;
  }

  /** Vector length; the elements (at least one byte each) must fit in the file. Readers charge them. */
  override __vector_len(offset: number): number {
    const start = this.__indirect(offset);
    const length = super.readInt32(start);
    if (length < 0) throw new ModelError('E_MODEL_OFFSET', `corrupt flatbuffer: negative vector length at byte ${start}`);
    this.check(start + 4, length, 'vector');
    return length;
  }

  override __string(offset: number, encoding?: Encoding): string | Uint8Array {
    const start = this.__indirect(offset);
    const length = super.readInt32(start);
    if (length < 0) throw new ModelError('E_MODEL_OFFSET', `corrupt flatbuffer: negative string length at byte ${start}`);
    this.check(start + 4, length, 'string');
    this.charge(1 + length / STRING_BYTES_PER_UNIT);
    return super.__string(offset, encoding);
  }
}
