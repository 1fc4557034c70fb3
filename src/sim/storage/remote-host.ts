// Remote spill store: a host PC reached over the board's USB serial (TinySeg §6.2.2 "Remote
// Spilling"; RemoteTensorStorage + host/remote_host.py). No erase; the host buffers writes, so
// a spill costs only its bytes on the link, while a fetch also waits for the host to answer.

import type { RemoteLinkParams } from '../targets/index.ts';
import type { StorageDevice, StorageGeometry, StorageRead } from './storage-device.ts';
import { checkStorageBytes, checkStorageRange, storageError } from './storage-device.ts';

export class RemoteHost implements StorageDevice {
  readonly kind = 'remote' as const;
  readonly name = 'remote-host';
  readonly needsErase = false;
  readonly geometry: StorageGeometry;
  private readonly params: RemoteLinkParams;
  private memory: Uint8Array | undefined;

  constructor(params: RemoteLinkParams) {
    this.params = params;
    this.geometry = { sizeBytes: params.sizeBytes, sectorBytes: 1, programUnitBytes: 1 };
  }

  eraseTimeUs(): number {
    return 0;
  }

  /** The host overwrites in place; erase is accepted and does nothing (as in TinySeg). */
  erase(sector: number): number {
    if (!Number.isSafeInteger(sector) || sector < 0 || sector >= this.geometry.sizeBytes) {
      throw storageError(`${this.name}: sector ${String(sector)} out of range`);
    }
    return 0;
  }

  program(addr: number, bytes: Uint8Array): number {
    checkStorageBytes(this.name, bytes);
    checkStorageRange(this.name, this.geometry.sizeBytes, addr, bytes.length);
    this.host().set(bytes, addr);
    return this.linkUs(this.params.framingBytes + bytes.length);
  }

  read(addr: number, len: number): StorageRead {
    checkStorageRange(this.name, this.geometry.sizeBytes, addr, len);
    const bytes = this.memory === undefined ? new Uint8Array(len) : this.memory.slice(addr, addr + len);
    const timeUs = this.linkUs(this.params.framingBytes) + this.params.readTurnaroundUs + this.linkUs(len);
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

  private linkUs(bytes: number): number {
    return (bytes * 1e6) / this.params.bytesPerSecond;
  }

  private host(): Uint8Array {
    // remote_host.py starts from bytearray(...): zero-filled.
    this.memory ??= new Uint8Array(this.geometry.sizeBytes);
    return this.memory;
  }
}
