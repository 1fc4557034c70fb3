// Block counts of newlib's memcpy and memset as the Armv7-M / Armv8-M Mainline builds link them
// (newlib 3.3.0, libc/machine/arm/memcpy-armv7m.S and the -O2 compiled memset.c; Debian's
// libnewlib-arm-none-eabi, the library TFLM's cortex_m_generic gcc builds link). Both take one of a
// few paths by size and by the low two address bits: word loops (64, 16 and 4 bytes per pass) once
// aligned, byte loops before and after. CMSIS-NN's DSP and plain-C arm_memcpy_s8 / arm_memset_s8 are
// these calls; the MVE build has its own loops (cmsis-mve-counts.ts).
import type { Blocks } from './blocks.ts';
import { addBlock } from './blocks.ts';

/** memcpy-armv7m.S from its word-aligned main loop on, `n` bytes left. */
function memcpyMain(b: Blocks, n: number): void {
  addBlock(b, 'memcpy.main', 1);
  addBlock(b, 'memcpy.w64', Math.floor(n / 64));
  const r = n % 64;
  addBlock(b, 'memcpy.w16', Math.floor(r / 16));
  addBlock(b, 'memcpy.w4', Math.floor((r % 16) / 4));
  const t = r % 4;
  if (t > 0) addBlock(b, 'memcpy.tail', 1);
  if (t & 2) addBlock(b, 'memcpy.tailHalf', 1);
}

/** memcpy(dst, src, n) with dst % 4 == `dstAlign`, src % 4 == `srcAlign`. */
export function memcpyBlocks(b: Blocks, n: number, dstAlign: number, srcAlign: number): void {
  addBlock(b, 'memcpy.call', 1);
  if (((dstAlign | srcAlign) & 3) === 0) { memcpyMain(b, n); return; }
  addBlock(b, 'memcpy.unaligned', 1);
  if (n < 8) {
    if (n < 4) {
      addBlock(b, 'memcpy.smallTail', 1);
      if (n > 0) addBlock(b, 'memcpy.tail', 1);
      if (n & 2) addBlock(b, 'memcpy.tailHalf', 1);
    } else {
      addBlock(b, 'memcpy.smallBytes', 1);
      addBlock(b, 'memcpy.byte', n - 3);
    }
    return;
  }
  addBlock(b, 'memcpy.alignCheck', 1);
  if ((srcAlign & 3) === 0) { memcpyMain(b, n); return; }
  addBlock(b, 'memcpy.alignCheck2', 1);
  if ((dstAlign & 3) === 0) { memcpyMain(b, n); return; }
  const head = 4 - (dstAlign & 3);
  addBlock(b, 'memcpy.alignDst', 1);
  if (head & 2) addBlock(b, 'memcpy.alignDstHalf', 1);
  memcpyMain(b, n - head);
}

/** memset(dst, v, n) with dst % 4 == `dstAlign` (n > 0). */
export function memsetBlocks(b: Blocks, n: number, dstAlign: number): void {
  addBlock(b, 'memset.call', 1);
  let m = n;
  if ((dstAlign & 3) !== 0) {
    addBlock(b, 'memset.unaligned', 1);
    if (n === 0) { addBlock(b, 'memset.unalignedEmpty', 1); return; }
    const toAlign = 4 - (dstAlign & 3);
    const head = Math.min(n, toAlign);
    addBlock(b, 'memset.headByte', head);
    addBlock(b, 'memset.headNext', head - 1);
    if (n < toAlign || (n === toAlign)) {
      // The byte loop runs out of bytes (or reaches alignment with none left).
      if (n < toAlign) { addBlock(b, 'memset.headExhausted', 1); return; }
    }
    m = n - head;
  } else {
    addBlock(b, 'memset.alignedEntry', 1);
  }
  addBlock(b, 'memset.body', 1);
  const bytes = (k: number): void => {
    if (k > 0) { addBlock(b, 'memset.bytes', 1); addBlock(b, 'memset.byte', k); }
  };
  if (m <= 3) {
    addBlock(b, 'memset.le3', 1);
    bytes(m);
    return;
  }
  addBlock(b, 'memset.gt3', 1);
  if (m <= 15) {
    addBlock(b, 'memset.le15', 1);
    addBlock(b, 'memset.words', 1);
    addBlock(b, 'memset.word', Math.floor(m / 4));
    addBlock(b, 'memset.le3', 1);
    bytes(m % 4);
    return;
  }
  addBlock(b, 'memset.gt15', 1);
  addBlock(b, 'memset.w16', Math.floor(m / 16));
  if ((m & 12) === 0) {
    addBlock(b, 'memset.no4', 1);
    bytes(m % 4);
    if (m % 4 === 0) addBlock(b, 'memset.no4none', 1);
    return;
  }
  addBlock(b, 'memset.words', 1);
  addBlock(b, 'memset.word', (m & 15) >> 2);
  addBlock(b, 'memset.le3', 1);
  bytes(m % 4);
}
