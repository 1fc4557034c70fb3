import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import {
  InternalFlash,
  QspiFlash,
  RemoteHost,
  SPILL_HEADER_BYTES,
  crc32,
  crc32Final,
  crc32Init,
  crc32Update,
  crc32UpdateByte,
  fetchBlock,
  spillBlock,
  spillSectors,
} from '../../../src/sim/storage/index.ts';
import type { StorageDevice } from '../../../src/sim/storage/index.ts';
import { niclaVision } from '../../../src/sim/targets/index.ts';

const E_STORAGE = expect.objectContaining({ code: 'E_STORAGE' });
const SEED = 'spill-block-1';

function randomBytes(rng: seedrandom.PRNG, n: number): Uint8Array {
  return Uint8Array.from({ length: n }, () => Math.floor(rng() * 256));
}

function devices(): StorageDevice[] {
  return [
    new InternalFlash(niclaVision.internalFlash),
    new QspiFlash(niclaVision.qspiFlash),
    new RemoteHost(niclaVision.remoteHost, niclaVision.mainCore),
  ];
}

/** Flips one bit, expects fetch to fail with E_STORAGE, then restores it. */
function expectFlipDetected(dev: StorageDevice, base: number, bit: number, blockId: number, length: number): void {
  const addr = base + (bit >> 3);
  dev.flipBit(addr, bit & 7);
  try {
    expect(() => fetchBlock(dev, base, { blockId, payloadLength: length }), `seed ${SEED} bit ${bit}`).toThrowError(E_STORAGE);
  } finally {
    dev.flipBit(addr, bit & 7);
  }
}

describe('crc32', () => {
  it('matches the standard check value', () => {
    expect(crc32(new TextEncoder().encode('123456789'))).toBe(0xcbf43926);
    expect(crc32(new Uint8Array(0))).toBe(0);
  });

  it('gives the same value over parts, a byte at a time and in one piece (seeded random data)', () => {
    const rng = seedrandom(SEED);
    for (const n of [1, 2, 255, 256, 4097]) {
      const bytes = randomBytes(rng, n);
      const cut = Math.floor(rng() * n);
      let byByte = crc32Init();
      for (const b of bytes) byByte = crc32UpdateByte(byByte, b);
      const whole = crc32(bytes);
      expect(crc32Final(byByte), `${n} bytes`).toBe(whole);
      expect(crc32Final(crc32Update(crc32Update(crc32Init(), bytes.subarray(0, cut)), bytes.subarray(cut))), `${n} bytes cut at ${cut}`).toBe(whole);
      expect(crc32(bytes.subarray(0, cut), bytes.subarray(cut))).toBe(whole);
    }
    // A different byte anywhere changes it.
    const bytes = randomBytes(rng, 300);
    const before = crc32(bytes);
    const at = Math.floor(rng() * 300);
    bytes[at] = (bytes[at] ?? 0) ^ 0x10;
    expect(crc32(bytes)).not.toBe(before);
  });
});

describe('spillBlock / fetchBlock', () => {
  it('round-trips payloads on every device, erasing only when needed', () => {
    const rng = seedrandom(SEED);
    for (const dev of devices()) {
      const payload = randomBytes(rng, 5000);
      const first = spillBlock(dev, { addr: 0, blockId: 7, payload });
      expect(first.erasedSectors.length > 0).toBe(dev.needsErase);
      expect(fetchBlock(dev, 0, { blockId: 7, payloadLength: 5000 }).payload).toEqual(payload);
      // Spilling again over programmed bytes forces a fresh erase on flash.
      const second = spillBlock(dev, { addr: 0, blockId: 8, payload: payload.subarray(0, 100) });
      expect(second.eraseUs > 0).toBe(dev.needsErase);
      expect(fetchBlock(dev, 0, { blockId: 8 }).payload).toEqual(payload.subarray(0, 100));
    }
  });

  it('pads blocks to program units and reports the sectors an async erase must cover', () => {
    const q = new QspiFlash(niclaVision.qspiFlash);
    expect(spillSectors(q, 4096, 5000)).toEqual([1, 2]);
    const r = spillBlock(q, { addr: 4096, blockId: 1, payload: new Uint8Array(5000) });
    expect(r.footprintBytes).toBe(Math.ceil((5000 + SPILL_HEADER_BYTES) / 256) * 256);
    expect(spillSectors(new RemoteHost(niclaVision.remoteHost, niclaVision.mainCore), 0, 5000)).toEqual([]);
  });

  it("with erase 'none' refuses to program sectors that were not erased", () => {
    const f = new InternalFlash(niclaVision.internalFlash);
    expect(() => spillBlock(f, { addr: 0, blockId: 1, payload: new Uint8Array(10), erase: 'none' })).toThrowError(E_STORAGE);
    f.erase(0);
    expect(spillBlock(f, { addr: 0, blockId: 1, payload: new Uint8Array(10), erase: 'none' }).eraseUs).toBe(0);
  });

  it('detects every single-bit flip in a small block', () => {
    const rng = seedrandom(SEED);
    const dev = new InternalFlash(niclaVision.internalFlash);
    const payload = randomBytes(rng, 48);
    spillBlock(dev, { addr: 256, blockId: 3, payload });
    for (let bit = 0; bit < (SPILL_HEADER_BYTES + payload.length) * 8; bit++) {
      expectFlipDetected(dev, 256, bit, 3, payload.length);
    }
    expect(fetchBlock(dev, 256, { blockId: 3 }).payload).toEqual(payload);
  });

  it('detects a seeded sample of single-bit flips in large blocks on every device', () => {
    const rng = seedrandom(SEED);
    for (const dev of devices()) {
      const payload = randomBytes(rng, 20000);
      spillBlock(dev, { addr: 8192, blockId: 11, payload });
      const bits = (SPILL_HEADER_BYTES + payload.length) * 8;
      for (let k = 0; k < 300; k++) expectFlipDetected(dev, 8192, Math.floor(rng() * bits), 11, payload.length);
    }
  });

  it('rejects a wrong block id, a wrong length and an address holding no block', () => {
    const f = new InternalFlash(niclaVision.internalFlash);
    spillBlock(f, { addr: 0, blockId: 5, payload: new Uint8Array(64) });
    expect(() => fetchBlock(f, 0, { blockId: 6 })).toThrowError(E_STORAGE);
    expect(() => fetchBlock(f, 0, { blockId: 5, payloadLength: 65 })).toThrowError(E_STORAGE);
    expect(() => fetchBlock(f, 1024, { blockId: 5 })).toThrowError(E_STORAGE);
    expect(() => spillBlock(f, { addr: 0, blockId: -1, payload: new Uint8Array(1) })).toThrowError(E_STORAGE);
  });
});
