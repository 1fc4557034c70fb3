// STM32H747 embedded flash as a spill store (TinySeg §6.2.2 "Internal Spilling", runtime's
// InternalTensorStorage over mbed FlashIAP): 128 KB sectors, 32-byte flash words, timing
// from the target profile (sector erase, per-word program, AXI read with wait states).

import type { InternalFlashParams } from '../targets/index.ts';
import { FlashArray } from './flash-array.ts';
import type { StorageDevice, StorageGeometry, StorageRead } from './storage-device.ts';
import { checkStorageRange, sectorsCovering } from './storage-device.ts';

export type FlashTiming = 'typical' | 'max';

export interface FlashOptions {
  /** Treat the device as erased at power-up (default false: sectors must be erased first). */
  readonly startErased?: boolean;
  /** Datasheet column used for erase/program times (default typical). */
  readonly timing?: FlashTiming;
}

export class InternalFlash implements StorageDevice {
  readonly kind = 'internal' as const;
  readonly name = 'internal-flash';
  readonly needsErase = true;
  readonly geometry: StorageGeometry;
  readonly ioUnitBytes: number;
  private readonly params: InternalFlashParams;
  private readonly cells: FlashArray;
  private readonly timing: FlashTiming;

  constructor(params: InternalFlashParams, options: FlashOptions = {}) {
    this.params = params;
    this.timing = options.timing ?? 'typical';
    this.geometry = {
      sizeBytes: params.banks * params.sectorsPerBank * params.sectorBytes,
      sectorBytes: params.sectorBytes,
      programUnitBytes: params.programUnitBytes,
    };
    this.ioUnitBytes = params.programUnitBytes;
    this.cells = new FlashArray(this.name, this.geometry, options.startErased ?? false);
  }

  /** Bank holding `sector` (banks erase/program independently, RM0399 dual-bank). */
  bankOf(sector: number): number {
    return Math.floor(sector / this.params.sectorsPerBank);
  }

  eraseTimeUs(): number {
    return this.timing === 'max' ? this.params.sectorEraseMaxUs : this.params.sectorEraseUs;
  }

  /** mbed FlashIAP::erase loops flash_erase_sector() over the 128 KB sectors: one erase each. */
  eraseRangeUs(addr: number, len: number): number {
    return sectorsCovering(this.geometry, addr, len).length * this.eraseTimeUs();
  }

  erase(sector: number): number {
    this.cells.erase(sector);
    return this.eraseTimeUs();
  }

  program(addr: number, bytes: Uint8Array): number {
    this.cells.program(addr, bytes);
    const words = bytes.length / this.params.programUnitBytes;
    const perWord = this.timing === 'max' ? this.params.wordProgramMaxUs : this.params.wordProgramUs;
    return words * perWord;
  }

  read(addr: number, len: number): StorageRead {
    checkStorageRange(this.name, this.geometry.sizeBytes, addr, len);
    const accesses = Math.ceil(len / this.params.readAccessBytes);
    const cycles = accesses * (this.params.readWaitStates + 1);
    return { bytes: this.cells.read(addr, len), timeUs: (cycles * 1e6) / this.params.busClockHz };
  }

  isErased(addr: number, len: number): boolean {
    return this.cells.isErased(addr, len);
  }

  flipBit(addr: number, bit: number): void {
    this.cells.flipBit(addr, bit);
  }
}
