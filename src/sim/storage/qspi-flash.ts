// External QSPI NOR flash (AT25QL128A family on the Nicla Vision) as a spill store, timed the
// way TinySeg's ExternalTensorStorage drives it through mbed's QSPIFBlockDevice: 4 KB sector
// erase and 256-byte page programs in 1-1-1 mode, quad reads, busy waits polled every 1 ms.

import type { QspiFlashParams } from '../targets/index.ts';
import { FlashArray } from './flash-array.ts';
import type { FlashOptions, FlashTiming } from './internal-flash.ts';
import type { StorageDevice, StorageGeometry, StorageRead } from './storage-device.ts';
import { checkStorageRange } from './storage-device.ts';

export class QspiFlash implements StorageDevice {
  readonly kind = 'external' as const;
  readonly name = 'qspi-flash';
  readonly needsErase = true;
  readonly geometry: StorageGeometry;
  private readonly params: QspiFlashParams;
  private readonly cells: FlashArray;
  private readonly timing: FlashTiming;

  constructor(params: QspiFlashParams, options: FlashOptions = {}) {
    this.params = params;
    this.timing = options.timing ?? 'typical';
    this.geometry = { sizeBytes: params.sizeBytes, sectorBytes: params.sectorBytes, programUnitBytes: params.pageBytes };
    this.cells = new FlashArray(this.name, this.geometry, options.startErased ?? false);
  }

  eraseTimeUs(): number {
    return this.clocksUs(this.params.writeCommandClocks) + this.polledUs(this.params.sectorEraseUs);
  }

  erase(sector: number): number {
    this.cells.erase(sector);
    return this.eraseTimeUs();
  }

  program(addr: number, bytes: Uint8Array): number {
    this.cells.program(addr, bytes);
    const { pageBytes, programDataLines, writeCommandClocks, pageProgramUs } = this.params;
    const pages = bytes.length / pageBytes;
    const shiftClocks = writeCommandClocks + (pageBytes * 8) / programDataLines;
    return pages * (this.clocksUs(shiftClocks) + this.polledUs(pageProgramUs));
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

  /** The driver sleeps one poll interval before each status read: busy time rounds up. */
  private polledUs(busyTypUs: number): number {
    // No max column is sourced for the AT25 family here; 'max' doubles the typical value
    // (the ratio of DS12110's flash rows), an explicit assumption.
    const busy = this.timing === 'max' ? 2 * busyTypUs : busyTypUs;
    const poll = this.params.driverPollIntervalUs;
    return poll > 0 ? Math.max(1, Math.ceil(busy / poll)) * poll : busy;
  }
}
