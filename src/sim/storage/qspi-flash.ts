// External QSPI NOR flash (AT25QL128A family on the Nicla Vision) as a spill store, timed the
// way TinySeg's ExternalTensorStorage drives it through mbed's QSPIFBlockDevice: 256-byte page
// programs in 1-1-1 mode, quad reads, erases with the largest SFDP erase type that fits, and every
// program / erase preceded by a write enable whose ready check sleeps one RTOS tick.

import type { QspiEraseType, QspiFlashParams } from '../targets/index.ts';
import { FlashArray } from './flash-array.ts';
import type { FlashOptions, FlashTiming } from './internal-flash.ts';
import type { StorageDevice, StorageGeometry, StorageRead } from './storage-device.ts';
import { checkStorageRange, storageError } from './storage-device.ts';

export class QspiFlash implements StorageDevice {
  readonly kind = 'external' as const;
  readonly name = 'qspi-flash';
  readonly needsErase = true;
  readonly geometry: StorageGeometry;
  readonly ioUnitBytes: number;
  private readonly params: QspiFlashParams;
  private readonly cells: FlashArray;
  private readonly timing: FlashTiming;
  /** Erase instructions, largest first (mbed's sfdp_iterate_next_largest_erase_type order). */
  private readonly eraseTypes: readonly QspiEraseType[];

  constructor(params: QspiFlashParams, options: FlashOptions = {}) {
    this.params = params;
    this.timing = options.timing ?? 'typical';
    this.geometry = { sizeBytes: params.sizeBytes, sectorBytes: params.sectorBytes, programUnitBytes: params.pageBytes };
    this.ioUnitBytes = params.pageBytes;
    this.cells = new FlashArray(this.name, this.geometry, options.startErased ?? false);
    this.eraseTypes = [{ sizeBytes: params.sectorBytes, eraseUs: params.sectorEraseUs }, ...params.blockErases]
      .sort((a, b) => b.sizeBytes - a.sizeBytes);
    for (const t of this.eraseTypes) {
      if (t.sizeBytes % params.sectorBytes !== 0 || params.sizeBytes % t.sizeBytes !== 0) {
        throw storageError(`${this.name}: erase type of ${t.sizeBytes} bytes does not tile ${params.sectorBytes}-byte sectors`);
      }
    }
  }

  eraseTimeUs(): number {
    return this.commandUs(this.params.writeCommandClocks, this.params.sectorEraseUs);
  }

  /**
   * QSPIFBlockDevice::erase(addr, size): per iteration the largest erase type with
   * size > type size (strictly) that the remaining range allows, one WREN + command + polls each.
   * We also require the address to be aligned to the type: newer mbed versions check this, and
   * TinySeg's spill regions start on erase units, so both agree there.
   */
  eraseRangeUs(addr: number, len: number): number {
    const sector = this.params.sectorBytes;
    let at = Math.floor(addr / sector) * sector;
    let left = Math.ceil((addr + len) / sector) * sector - at;
    checkStorageRange(this.name, this.geometry.sizeBytes, at, left);
    const smallest = this.eraseTypes[this.eraseTypes.length - 1];
    let us = 0;
    while (left > 0 && smallest !== undefined) {
      const type = this.eraseTypes.find((t) => left > t.sizeBytes && at % t.sizeBytes === 0 && this.geometry.sizeBytes - 1 - at > t.sizeBytes) ?? smallest;
      us += this.commandUs(this.params.writeCommandClocks, type.eraseUs);
      at += type.sizeBytes;
      left -= type.sizeBytes;
    }
    return us;
  }

  erase(sector: number): number {
    this.cells.erase(sector);
    return this.eraseTimeUs();
  }

  /** QSPIFBlockDevice::program loops over pages: WREN (+ one tick), page program, polls. */
  program(addr: number, bytes: Uint8Array): number {
    this.cells.program(addr, bytes);
    const { pageBytes, programDataLines, writeCommandClocks, pageProgramUs } = this.params;
    const pages = bytes.length / pageBytes;
    return pages * this.commandUs(writeCommandClocks + (pageBytes * 8) / programDataLines, pageProgramUs);
  }

  read(addr: number, len: number): StorageRead {
    checkStorageRange(this.name, this.geometry.sizeBytes, addr, len);
    const clocks = this.params.readCommandClocks + (len * 8) / this.params.readDataLines;
    return { bytes: this.cells.read(addr, len), timeUs: this.clocksUs(clocks) };
  }

  isErased(addr: number, len: number): boolean {
    return this.cells.isErased(addr, len);
  }

  flipBit(addr: number, bit: number): void {
    this.cells.flipBit(addr, bit);
  }

  private clocksUs(clocks: number): number {
    return (clocks * 1e6) / this.params.busClockHz;
  }

  /**
   * One program or erase as mbed runs it: _set_write_enable() sends WREN and calls
   * _is_mem_ready(), which sleeps one tick before its first status read; then the command is
   * shifted out and _is_mem_ready() sleeps a tick before each poll until the busy bit clears.
   * The driver thus runs on the tick grid: 1 tick + ceil((shift + busy) / tick) ticks.
   */
  private commandUs(shiftClocks: number, busyTypUs: number): number {
    // No max column is sourced for the AT25 family here; 'max' doubles the typical value
    // (the ratio of DS12110's flash rows), an explicit assumption.
    const busy = this.timing === 'max' ? 2 * busyTypUs : busyTypUs;
    const tick = this.params.driverPollIntervalUs;
    const work = this.clocksUs(shiftClocks) + busy;
    return tick > 0 ? tick + Math.max(1, Math.ceil(work / tick)) * tick : work;
  }
}
