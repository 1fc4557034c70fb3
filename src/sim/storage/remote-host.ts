// Remote spill store: a host PC reached over the board's USB CDC serial (TinySeg §6.2.2 "Remote
// Spilling"; RemoteTensorStorage in application/tinyseg_tensor_storage.cpp + host/remote_host.py).
// No erase; a spill is a run of blocking USB packet sends the host buffers, while a fetch sends
// a request, waits for the host script, then pulls the reply through the byte-wise Stream reader.

import type { CoreProfile, RemoteLinkParams } from '../targets/index.ts';
import { cyclesToUs } from '../targets/index.ts';
import type { StorageDevice, StorageGeometry, StorageRead } from './storage-device.ts';
import { checkStorageBytes, checkStorageRange, storageError } from './storage-device.ts';

/**
 * RemoteTensorStorage::read/write: Serial.write(ini_code, 11), Serial.write('r'|'w'),
 * Serial.write(&pos, 4), Serial.write(&size, 4) before the data, Serial.write(fin_code, 11) after.
 * Each Serial.write is at least one blocking USB packet.
 */
const REQUEST_WRITES: readonly number[] = [11, 1, 4, 4];
const FINISH_WRITES: readonly number[] = [11];

export class RemoteHost implements StorageDevice {
  readonly kind = 'remote' as const;
  readonly name = 'remote-host';
  readonly needsErase = false;
  readonly geometry: StorageGeometry;
  readonly ioUnitBytes: number;
  private readonly params: RemoteLinkParams;
  /** Core running the transfer: RemoteTensorStorage is never moved to the second core. */
  private readonly core: CoreProfile;
  private memory: Uint8Array | undefined;

  constructor(params: RemoteLinkParams, core: CoreProfile) {
    this.params = params;
    this.core = core;
    this.geometry = { sizeBytes: params.sizeBytes, sectorBytes: 1, programUnitBytes: 1 };
    this.ioUnitBytes = params.packetBytes;
  }

  eraseTimeUs(): number {
    return 0;
  }

  eraseRangeUs(): number {
    return 0;
  }

  /** The host overwrites in place; erase is accepted and does nothing (as in TinySeg). */
  erase(sector: number): number {
    if (!Number.isSafeInteger(sector) || sector < 0 || sector >= this.geometry.sizeBytes) {
      throw storageError(`${this.name}: sector ${String(sector)} out of range`);
    }
    return 0;
  }

  /** RemoteTensorStorage::write: request, data in packet-sized blocking sends, finish code. */
  program(addr: number, bytes: Uint8Array): number {
    checkStorageBytes(this.name, bytes);
    checkStorageRange(this.name, this.geometry.sizeBytes, addr, bytes.length);
    this.host().set(bytes, addr);
    return this.sendsUs([...REQUEST_WRITES, bytes.length, ...FINISH_WRITES]);
  }

  /**
   * RemoteTensorStorage::read: request, then Serial.readBytes(buffer, size) while the host
   * script (remote_host.py) answers with ser.write(array[pos:pos+size]), then the finish code.
   */
  read(addr: number, len: number): StorageRead {
    checkStorageRange(this.name, this.geometry.sizeBytes, addr, len);
    const bytes = this.memory === undefined ? new Uint8Array(len) : this.memory.slice(addr, addr + len);
    const { readTurnaroundUs, readCyclesPerByte, linkBytesPerSecond } = this.params;
    // The device re-arms its single OUT packet buffer only after the reader drained it, so the
    // wire time and the per-byte reader time add up rather than overlap.
    const replyUs = (len * 1e6) / linkBytesPerSecond + cyclesToUs(this.core, len * readCyclesPerByte);
    const timeUs = this.sendsUs(REQUEST_WRITES) + readTurnaroundUs + replyUs + this.sendsUs(FINISH_WRITES);
    return { bytes, timeUs };
  }

  isErased(addr: number, len: number): boolean {
    checkStorageRange(this.name, this.geometry.sizeBytes, addr, len);
    return true;
  }

  flipBit(addr: number, bit: number): void {
    checkStorageRange(this.name, this.geometry.sizeBytes, addr, 1);
    if (!Number.isInteger(bit) || bit < 0 || bit > 7) throw storageError(`${this.name}: bit ${String(bit)} not in 0..7`);
    const host = this.host();
    host[addr] = (host[addr] ?? 0) ^ (1 << bit);
  }

  /**
   * Serial.write calls of the given sizes: PluggableUSBSerial::write splits each into
   * packet-sized USBCDC::send() calls, and every send blocks until its packet went out.
   */
  private sendsUs(writes: readonly number[]): number {
    const { packetBytes, sendPacketUs, linkBytesPerSecond } = this.params;
    let us = 0;
    for (const n of writes) us += Math.max(1, Math.ceil(n / packetBytes)) * sendPacketUs + (n * 1e6) / linkBytesPerSecond;
    return us;
  }

  private host(): Uint8Array {
    // remote_host.py starts from bytearray(...): zero-filled.
    this.memory ??= new Uint8Array(this.geometry.sizeBytes);
    return this.memory;
  }
}
