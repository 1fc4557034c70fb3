// Common interface of the spill stores (DESIGN.md §3 "Storage devices"; TinySeg §6.2.2):
// geometry, erase / program / read, each returning the modeled time in MICROSECONDS
// (floating point). Rule violations are KernelErrors with code E_STORAGE.

import { KernelError } from '../../ir/index.ts';

export type StorageKind = 'internal' | 'external' | 'remote';

export interface StorageGeometry {
  readonly sizeBytes: number;
  /** Erase unit. Devices that need no erase report 1. */
  readonly sectorBytes: number;
  /** Program unit: writes cover whole, aligned units. */
  readonly programUnitBytes: number;
}

export interface StorageRead {
  readonly bytes: Uint8Array;
  readonly timeUs: number;
}

export interface StorageDevice {
  readonly kind: StorageKind;
  /** Stable name used in messages and timeline regions. */
  readonly name: string;
  readonly geometry: StorageGeometry;
  /** False for stores that overwrite in place (remote host). */
  readonly needsErase: boolean;
  /**
   * Bytes one transfer moves through RAM (TinySeg without a whole-tensor buffer): a program word
   * (internal flash), a page (QSPI NOR), a USB packet (remote host). Spill streams in these units;
   * memory-mapped devices (internal, external) are read in place, the remote host in these units.
   */
  readonly ioUnitBytes: number;
  /** Erases one sector (all bytes become 0xFF); returns the time in us. */
  erase(sector: number): number;
  /** Programs whole, erased program units starting at `addr`; returns the time in us. */
  program(addr: number, bytes: Uint8Array): number;
  read(addr: number, len: number): StorageRead;
  /** True when every program unit touching [addr, addr+len) is erased and unprogrammed. */
  isErased(addr: number, len: number): boolean;
  /** Modeled time of erasing one sector, without doing it (for scheduling on the second core). */
  eraseTimeUs(): number;
  /**
   * Modeled time of erasing every sector touching [addr, addr+len) the way the device's driver
   * does it (e.g. one larger block-erase command for aligned runs), without doing it.
   */
  eraseRangeUs(addr: number, len: number): number;
  /** Fault injection: flips one stored bit, no timing, no rule checks. */
  flipBit(addr: number, bit: number): void;
}

export function storageError(message: string): KernelError {
  return new KernelError('E_STORAGE', message);
}

export function storageAddr(addr: number): string {
  return `0x${addr.toString(16).padStart(8, '0')}`;
}

/** Rejects non-integer or out-of-range [addr, addr+len) with E_STORAGE. */
export function checkStorageRange(device: string, sizeBytes: number, addr: number, len: number): void {
  if (!Number.isSafeInteger(addr) || !Number.isSafeInteger(len) || addr < 0 || len < 0) {
    throw storageError(`${device}: invalid access addr=${String(addr)} len=${String(len)}`);
  }
  if (addr + len > sizeBytes) {
    throw storageError(`${device}: access [${storageAddr(addr)}, ${storageAddr(addr + len)}) outside device of ${sizeBytes} bytes`);
  }
}

export function checkStorageBytes(device: string, bytes: unknown): asserts bytes is Uint8Array {
  if (!(bytes instanceof Uint8Array)) throw storageError(`${device}: program data must be a Uint8Array`);
}

/** Sector indices covering [addr, addr+len). */
export function sectorsCovering(geometry: StorageGeometry, addr: number, len: number): number[] {
  if (len <= 0) return [];
  const first = Math.floor(addr / geometry.sectorBytes);
  const last = Math.floor((addr + len - 1) / geometry.sectorBytes);
  const out: number[] = [];
  for (let s = first; s <= last; s++) out.push(s);
  return out;
}

export function alignToUnit(value: number, unit: number): number {
  return Math.ceil(value / unit) * unit;
}
