// Byte-accurate NOR flash cell array shared by the internal and QSPI flash models
// (DESIGN.md §3): erase sets a sector to 0xFF; programming needs erased, never-programmed,
// aligned whole program units (flash words / pages); a second program without erase is refused.
// Memory is allocated on first use so a 16 MB device costs nothing until touched.

import type { StorageGeometry } from './storage-device.ts';
import { checkStorageBytes, checkStorageRange, storageAddr, storageError } from './storage-device.ts';

const UNIT_UNKNOWN = 0; // never erased since power-up: contents undefined, not programmable
const UNIT_ERASED = 1;
const UNIT_PROGRAMMED = 2;

export class FlashArray {
  readonly label: string;
  readonly geometry: StorageGeometry;
  private data: Uint8Array | undefined;
  private unitState: Uint8Array | undefined;
  private readonly startErased: boolean;

  constructor(label: string, geometry: StorageGeometry, startErased: boolean) {
    if (geometry.sizeBytes % geometry.sectorBytes !== 0 || geometry.sectorBytes % geometry.programUnitBytes !== 0) {
      throw storageError(`${label}: inconsistent geometry ${JSON.stringify(geometry)}`);
    }
    this.label = label;
    this.geometry = geometry;
    this.startErased = startErased;
  }

  get sectorCount(): number {
    return this.geometry.sizeBytes / this.geometry.sectorBytes;
  }

  erase(sector: number): void {
    if (!Number.isSafeInteger(sector) || sector < 0 || sector >= this.sectorCount) {
      throw storageError(`${this.label}: sector ${String(sector)} out of range 0..${this.sectorCount - 1}`);
    }
    const { sectorBytes, programUnitBytes } = this.geometry;
    const start = sector * sectorBytes;
    this.bytes().fill(0xff, start, start + sectorBytes);
    this.states().fill(UNIT_ERASED, start / programUnitBytes, (start + sectorBytes) / programUnitBytes);
  }

  program(addr: number, bytes: Uint8Array): void {
    checkStorageBytes(this.label, bytes);
    const unit = this.geometry.programUnitBytes;
    checkStorageRange(this.label, this.geometry.sizeBytes, addr, bytes.length);
    if (addr % unit !== 0 || bytes.length % unit !== 0) {
      throw storageError(
        `${this.label}: program at ${storageAddr(addr)} of ${bytes.length} bytes is not whole ${unit}-byte units aligned to ${unit}`,
      );
    }
    const states = this.states();
    const first = addr / unit;
    const count = bytes.length / unit;
    for (let u = first; u < first + count; u++) {
      const state = states[u];
      if (state === UNIT_PROGRAMMED) {
        throw storageError(`${this.label}: ${unit}-byte unit at ${storageAddr(u * unit)} programmed twice without erase`);
      }
      if (state !== UNIT_ERASED) {
        throw storageError(`${this.label}: ${unit}-byte unit at ${storageAddr(u * unit)} programmed before its sector was erased`);
      }
    }
    this.bytes().set(bytes, addr);
    states.fill(UNIT_PROGRAMMED, first, first + count);
  }

  read(addr: number, len: number): Uint8Array {
    checkStorageRange(this.label, this.geometry.sizeBytes, addr, len);
    if (this.data === undefined) return new Uint8Array(len).fill(0xff);
    return this.data.slice(addr, addr + len);
  }

  isErased(addr: number, len: number): boolean {
    checkStorageRange(this.label, this.geometry.sizeBytes, addr, len);
    if (len === 0) return true;
    if (this.unitState === undefined) return this.startErased;
    const unit = this.geometry.programUnitBytes;
    const last = Math.floor((addr + len - 1) / unit);
    for (let u = Math.floor(addr / unit); u <= last; u++) {
      if (this.unitState[u] !== UNIT_ERASED) return false;
    }
    return true;
  }

  flipBit(addr: number, bit: number): void {
    checkStorageRange(this.label, this.geometry.sizeBytes, addr, 1);
    if (!Number.isInteger(bit) || bit < 0 || bit > 7) throw storageError(`${this.label}: bit ${String(bit)} not in 0..7`);
    const data = this.bytes();
    data[addr] = (data[addr] ?? 0) ^ (1 << bit);
  }

  private bytes(): Uint8Array {
    this.data ??= new Uint8Array(this.geometry.sizeBytes).fill(0xff);
    return this.data;
  }

  private states(): Uint8Array {
    this.unitState ??= new Uint8Array(this.geometry.sizeBytes / this.geometry.programUnitBytes).fill(
      this.startErased ? UNIT_ERASED : UNIT_UNKNOWN,
    );
    return this.unitState;
  }
}
