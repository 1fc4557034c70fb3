// Spill-block format and the spill / fetch helpers over any StorageDevice (TinySeg §4.2.1
// Spill / Fetching, runtime transfer_out / transfer_in). A block is a 16-byte header
// [magic "TSPL", blockId u32, payloadLength u32, crc32 u32] (little-endian) then the payload,
// padded with 0xFF to whole program units. The CRC covers the first 12 header bytes and the
// payload, so any flipped bit is reported on fetch, naming the block and its address.

import { crc32 } from './crc32.ts';
import type { StorageDevice } from './storage-device.ts';
import { alignToUnit, checkStorageRange, storageAddr, sectorsCovering, storageError } from './storage-device.ts';

export const SPILL_HEADER_BYTES = 16;
const MAGIC = 0x4c505354; // bytes 'T' 'S' 'P' 'L' in little-endian order

export interface SpillRequest {
  readonly addr: number;
  readonly blockId: number;
  readonly payload: Uint8Array;
  /**
   * 'auto' (default): erase the sectors under the block first unless they are already erased
   * (this also wipes any other data sharing those sectors, as on the real part).
   * 'none': the caller erased them (e.g. asynchronously on the second core); a non-erased
   * unit makes the program step fail with E_STORAGE.
   */
  readonly erase?: 'auto' | 'none';
  /** Program in calls of at most this many bytes (whole program units), as a streamed spill does. */
  readonly chunkBytes?: number;
}

export interface SpillResult {
  readonly addr: number;
  /** Bytes the block occupies on the device (header + payload, padded to program units). */
  readonly footprintBytes: number;
  readonly erasedSectors: readonly number[];
  readonly eraseUs: number;
  readonly programUs: number;
}

export interface FetchExpectation {
  readonly blockId: number;
  /** When known, a header announcing another length is an error. */
  readonly payloadLength?: number;
}

export interface FetchResult {
  readonly payload: Uint8Array;
  readonly readUs: number;
}

export function spillFootprintBytes(device: StorageDevice, payloadLength: number): number {
  return alignToUnit(SPILL_HEADER_BYTES + payloadLength, device.geometry.programUnitBytes);
}

/** Sectors a block of `payloadLength` bytes at `addr` touches (what an async erase must cover). */
export function spillSectors(device: StorageDevice, addr: number, payloadLength: number): number[] {
  return device.needsErase ? sectorsCovering(device.geometry, addr, spillFootprintBytes(device, payloadLength)) : [];
}

export function encodeSpillBlock(blockId: number, payload: Uint8Array, unitBytes: number): Uint8Array {
  if (!Number.isSafeInteger(blockId) || blockId < 0 || blockId > 0xffffffff) {
    throw storageError(`spill block id ${String(blockId)} is not a u32`);
  }
  const image = new Uint8Array(alignToUnit(SPILL_HEADER_BYTES + payload.length, unitBytes)).fill(0xff);
  const view = new DataView(image.buffer);
  view.setUint32(0, MAGIC, true);
  view.setUint32(4, blockId, true);
  view.setUint32(8, payload.length, true);
  image.set(payload, SPILL_HEADER_BYTES);
  view.setUint32(12, crc32(image.subarray(0, 12), payload), true);
  return image;
}

export function spillBlock(device: StorageDevice, request: SpillRequest): SpillResult {
  const { addr, blockId, payload } = request;
  if (!(payload instanceof Uint8Array)) throw storageError(`spill block ${String(blockId)}: payload must be a Uint8Array`);
  const image = encodeSpillBlock(blockId, payload, device.geometry.programUnitBytes);
  checkStorageRange(device.name, device.geometry.sizeBytes, addr, image.length);
  let eraseUs = 0;
  const erasedSectors: number[] = [];
  if ((request.erase ?? 'auto') === 'auto' && device.needsErase && !device.isErased(addr, image.length)) {
    for (const sector of sectorsCovering(device.geometry, addr, image.length)) {
      eraseUs += device.erase(sector);
      erasedSectors.push(sector);
    }
  }
  const chunk = request.chunkBytes ?? image.length;
  let programUs = 0;
  for (let off = 0; off < image.length; off += chunk) programUs += device.program(addr + off, image.subarray(off, Math.min(image.length, off + chunk)));
  return { addr, footprintBytes: image.length, erasedSectors, eraseUs, programUs };
}

export function fetchBlock(device: StorageDevice, addr: number, expect: FetchExpectation): FetchResult {
  const where = `spill block ${expect.blockId} at ${storageAddr(addr)} on ${device.name}`;
  // With a known length the block is read in one device access, as TinySeg's transfer_in reads
  // a tensor with one storage->read (one QSPI command, one remote request); else header first.
  const known = expect.payloadLength;
  const whole = known !== undefined && addr + SPILL_HEADER_BYTES + known <= device.geometry.sizeBytes
    ? device.read(addr, SPILL_HEADER_BYTES + known)
    : null;
  const head = whole === null ? device.read(addr, SPILL_HEADER_BYTES) : { bytes: whole.bytes.subarray(0, SPILL_HEADER_BYTES), timeUs: whole.timeUs };
  const view = new DataView(head.bytes.buffer, head.bytes.byteOffset, SPILL_HEADER_BYTES);
  if (view.getUint32(0, true) !== MAGIC) {
    throw storageError(`${where}: bad header magic (not a spill block, or its header is corrupted)`);
  }
  const storedId = view.getUint32(4, true);
  const length = view.getUint32(8, true);
  const storedCrc = view.getUint32(12, true);
  if (storedId !== expect.blockId) {
    throw storageError(`${where}: header names block ${storedId} (corrupted header or wrong address)`);
  }
  if (expect.payloadLength !== undefined && length !== expect.payloadLength) {
    throw storageError(`${where}: header length ${length} != expected ${expect.payloadLength} (corrupted header)`);
  }
  if (addr + SPILL_HEADER_BYTES + length > device.geometry.sizeBytes) {
    throw storageError(`${where}: header length ${length} runs past the end of the device (corrupted header)`);
  }
  const body = whole === null ? device.read(addr + SPILL_HEADER_BYTES, length) : { bytes: whole.bytes.subarray(SPILL_HEADER_BYTES), timeUs: 0 };
  const computed = crc32(head.bytes.subarray(0, 12), body.bytes);
  if (computed !== storedCrc) {
    throw storageError(
      `${where}: CRC mismatch over [${storageAddr(addr)}, ${storageAddr(addr + SPILL_HEADER_BYTES + length)}) ` +
        `(stored 0x${storedCrc.toString(16).padStart(8, '0')}, computed 0x${computed.toString(16).padStart(8, '0')})`,
    );
  }
  return { payload: body.bytes, readUs: head.timeUs + body.timeUs };
}
