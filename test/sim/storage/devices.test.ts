import { describe, expect, it } from 'vitest';
import { InternalFlash, QspiFlash, RemoteHost, createStorage } from '../../../src/sim/storage/index.ts';
import { niclaVision } from '../../../src/sim/targets/index.ts';
import { STORAGE_IO_BYTES } from '../../../src/kernels/index.ts';

const E_STORAGE = expect.objectContaining({ code: 'E_STORAGE' });
const fill = (n: number, v: number): Uint8Array => new Uint8Array(n).fill(v);

describe('InternalFlash', () => {
  it('has the profile geometry', () => {
    const f = new InternalFlash(niclaVision.internalFlash);
    expect(f.geometry).toEqual({ sizeBytes: 2 * 1024 * 1024, sectorBytes: 128 * 1024, programUnitBytes: 32 });
    expect(f.bankOf(7)).toBe(0);
    expect(f.bankOf(8)).toBe(1);
  });

  it('refuses to program a sector that was never erased', () => {
    const f = new InternalFlash(niclaVision.internalFlash);
    expect(() => f.program(0, fill(32, 1))).toThrowError(E_STORAGE);
  });

  it('erase sets the sector to 0xFF and returns the sector erase time', () => {
    const f = new InternalFlash(niclaVision.internalFlash);
    expect(f.erase(1)).toBe(niclaVision.internalFlash.sectorEraseUs);
    const { bytes } = f.read(128 * 1024, 64);
    expect(Array.from(bytes).every((b) => b === 0xff)).toBe(true);
    expect(f.isErased(128 * 1024, 128 * 1024)).toBe(true);
  });

  it('programs whole aligned 32-byte words and charges per word', () => {
    const f = new InternalFlash(niclaVision.internalFlash);
    f.erase(0);
    const data = Uint8Array.from({ length: 64 }, (_, i) => i);
    expect(f.program(64, data)).toBe(2 * niclaVision.internalFlash.wordProgramUs);
    expect(Array.from(f.read(64, 64).bytes)).toEqual(Array.from(data));
    expect(f.isErased(64, 1)).toBe(false);
    expect(f.isErased(128, 32)).toBe(true);
  });

  it('refuses unaligned addresses and partial words', () => {
    const f = new InternalFlash(niclaVision.internalFlash);
    f.erase(0);
    expect(() => f.program(16, fill(32, 0))).toThrowError(E_STORAGE);
    expect(() => f.program(0, fill(31, 0))).toThrowError(E_STORAGE);
  });

  it('refuses to program a word twice without erase, and allows it after erase', () => {
    const f = new InternalFlash(niclaVision.internalFlash);
    f.erase(0);
    f.program(0, fill(32, 0x12));
    expect(() => f.program(0, fill(32, 0x12))).toThrowError(E_STORAGE);
    // Even an all-0xFF word counts as programmed (the ECC is written with it).
    f.program(32, fill(32, 0xff));
    expect(() => f.program(32, fill(32, 0x00))).toThrowError(E_STORAGE);
    f.erase(0);
    expect(() => f.program(0, fill(32, 0x34))).not.toThrow();
  });

  it('rejects out-of-range accesses and bad sector numbers with E_STORAGE', () => {
    const f = new InternalFlash(niclaVision.internalFlash, { startErased: true });
    expect(() => f.erase(16)).toThrowError(E_STORAGE);
    expect(() => f.erase(-1)).toThrowError(E_STORAGE);
    expect(() => f.read(2 * 1024 * 1024 - 4, 8)).toThrowError(E_STORAGE);
    expect(() => f.program(2 * 1024 * 1024, fill(32, 0))).toThrowError(E_STORAGE);
    expect(() => f.read(0.5, 1)).toThrowError(E_STORAGE);
    expect(() => f.program(0, [1, 2] as unknown as Uint8Array)).toThrowError(E_STORAGE);
  });

  it('max timing uses the datasheet max column', () => {
    const f = new InternalFlash(niclaVision.internalFlash, { timing: 'max' });
    expect(f.erase(0)).toBe(niclaVision.internalFlash.sectorEraseMaxUs);
  });
});

describe('QspiFlash', () => {
  it('uses 4 KB sectors and 256-byte pages with the same program rules', () => {
    const q = new QspiFlash(niclaVision.qspiFlash);
    expect(q.geometry).toEqual({ sizeBytes: 16 * 1024 * 1024, sectorBytes: 4096, programUnitBytes: 256 });
    expect(() => q.program(0, fill(256, 1))).toThrowError(E_STORAGE);
    q.erase(0);
    expect(() => q.program(128, fill(256, 1))).toThrowError(E_STORAGE);
    expect(() => q.program(0, fill(100, 1))).toThrowError(E_STORAGE);
    q.program(0, fill(256, 1));
    expect(() => q.program(0, fill(256, 1))).toThrowError(E_STORAGE);
    expect(q.read(0, 4).bytes).toEqual(fill(4, 1));
    expect(q.read(256, 4).bytes).toEqual(fill(4, 0xff));
  });

  it('rounds busy waits up to the driver poll interval', () => {
    const q = new QspiFlash(niclaVision.qspiFlash, { startErased: true });
    const perPage = q.program(0, fill(512, 0)) / 2;
    expect(perPage).toBeGreaterThanOrEqual(niclaVision.qspiFlash.driverPollIntervalUs);
    expect(q.erase(3)).toBeGreaterThanOrEqual(niclaVision.qspiFlash.sectorEraseUs);
    // Quad read: 4096 bytes at 40 MHz x 4 lines is ~205 us.
    expect(q.read(0, 4096).timeUs).toBeCloseTo((20 + 4096 * 2) / 40, 6);
  });

  it('times mbed QSPIFBlockDevice: a WREN tick per command, the largest fitting erase type', () => {
    const q = new QspiFlash(niclaVision.qspiFlash, { startErased: true });
    // Page: one tick after WREN + (shift 52 us + 0.7 ms busy) rounded up to one tick.
    expect(q.program(0, fill(256, 0))).toBe(2000);
    // 4 KB sector: 1 + ceil(60.001 ms) ticks.
    expect(q.eraseTimeUs()).toBe(62_000);
    // 76,800 B rounded to 19 sectors from 0: one 64 KB block erase (400 ms) + three 4 KB erases.
    expect(q.eraseRangeUs(0, 76_800)).toBe(402_000 + 3 * 62_000);
    // Exactly 32 KB: mbed wants size > type size, so eight 4 KB erases.
    expect(q.eraseRangeUs(0, 32 * 1024)).toBe(8 * 62_000);
    // From 4 KB: 4 KB erases up to the 32 KB boundary, one 32 KB block, then two 4 KB.
    expect(q.eraseRangeUs(4096, 64 * 1024 + 4096)).toBe(9 * 62_000 + 202_000);
  });
});

describe('RemoteHost', () => {
  it('needs no erase, overwrites in place and makes fetches slower than spills', () => {
    const r = new RemoteHost(niclaVision.remoteHost, niclaVision.mainCore);
    expect(r.needsErase).toBe(false);
    expect(r.erase(0)).toBe(0);
    const w1 = r.program(10, fill(1000, 7));
    r.program(10, fill(3, 9));
    const { bytes, timeUs } = r.read(10, 1000);
    expect(Array.from(bytes.subarray(0, 4))).toEqual([9, 9, 9, 7]);
    expect(timeUs).toBeGreaterThan(w1);
    expect(() => r.program(1024 * 1024 - 1, fill(2, 0))).toThrowError(E_STORAGE);
  });

  it('charges a blocking send per packet to spills and the byte-wise reader to fetches', () => {
    const r = new RemoteHost(niclaVision.remoteHost, niclaVision.mainCore);
    const p = niclaVision.remoteHost;
    const wire = (n: number): number => (n * 1e6) / p.linkBytesPerSecond;
    // Request (4 writes) + 2 data packets + finish code, each one blocking send.
    expect(r.program(0, fill(1000, 1))).toBeCloseTo(7 * p.sendPacketUs + wire(20 + 1000 + 11), 6);
    const reader = (1000 * p.readCyclesPerByte * 1e6) / niclaVision.mainCore.clockHz;
    expect(r.read(0, 1000).timeUs).toBeCloseTo(5 * p.sendPacketUs + wire(31) + p.readTurnaroundUs + wire(1000) + reader, 6);
    expect(r.eraseRangeUs()).toBe(0);
  });
});

describe('createStorage', () => {
  it('builds each kind and rejects unknown names with E_USAGE', () => {
    expect(createStorage(niclaVision, 'internal').kind).toBe('internal');
    expect(createStorage(niclaVision, 'external').kind).toBe('external');
    expect(createStorage(niclaVision, 'remote').kind).toBe('remote');
    expect(() => createStorage(niclaVision, 'sdcard')).toThrowError(expect.objectContaining({ code: 'E_USAGE' }));
  });
});

describe('transfer units (storage I/O without staging)', () => {
  it('each device streams in its own unit, the planned I/O buffer holds the largest', () => {
    const units = (['internal', 'external', 'remote'] as const).map((k) => createStorage(niclaVision, k).ioUnitBytes);
    expect(units).toEqual([niclaVision.internalFlash.programUnitBytes, niclaVision.qspiFlash.pageBytes, niclaVision.remoteHost.packetBytes]);
    expect(Math.max(...units)).toBe(STORAGE_IO_BYTES);
  });
});
