// CRC-32 (IEEE 802.3 / zlib: reflected polynomial 0xEDB88320, init and final xor 0xFFFFFFFF)
// guarding spilled blocks. It detects every single-bit error and every burst up to 32 bits.

function makeTable(): Uint32Array {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
}

/** The byte table, built once (it was rebuilt on every update call, and a spill computes its CRC
 * a byte at a time: a quarter of `mcusim run` on Tiny U-Net after TinySeg). */
const TABLE = makeTable();

/** Continues a CRC over `bytes`; start with `crc32Init()` and finish with `crc32Final()`. */
export function crc32Update(state: number, bytes: Uint8Array): number {
  let c = state;
  for (let i = 0; i < bytes.length; i++) c = crc32UpdateByte(c, bytes[i] as number);
  return c;
}

/** Continues a CRC over one byte (a block streamed a byte at a time). */
export function crc32UpdateByte(state: number, byte: number): number {
  return ((TABLE[(state ^ byte) & 0xff] as number) ^ (state >>> 8)) >>> 0;
}

export function crc32Init(): number {
  return 0xffffffff;
}

export function crc32Final(state: number): number {
  return (state ^ 0xffffffff) >>> 0;
}

/** CRC-32 of the concatenation of `parts`. crc32(ascii "123456789") === 0xCBF43926. */
export function crc32(...parts: readonly Uint8Array[]): number {
  let state = crc32Init();
  for (const p of parts) state = crc32Update(state, p);
  return crc32Final(state);
}
