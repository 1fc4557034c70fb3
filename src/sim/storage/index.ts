// Public surface of the spill-storage runtime (src/sim/storage): devices, spill blocks with
// CRC, TinySeg's most-frequent-value codec and the dual-core timeline.
export * from './storage-device.ts';
export * from './flash-array.ts';
export * from './internal-flash.ts';
export * from './qspi-flash.ts';
export * from './remote-host.ts';
export * from './create-storage.ts';
export * from './crc32.ts';
export * from './spill-block.ts';
export * from './mfv-codec.ts';
export * from './dual-core-timeline.ts';
