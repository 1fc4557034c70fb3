// Block counts of newlib's memcpy and memset as the builds link them (newlib 3.3.0, Debian's
// libnewlib-arm-none-eabi, the library TFLM's cortex_m_generic gcc builds link): Armv7-M / Armv8-M
// Mainline get libc/machine/arm/memcpy-armv7m.S (`memcpy.*`), Armv6-M the -O2 compiled
// libc/string/memcpy.c (`memcpy_c.*`); both get the -O2 compiled memset.c (`memset.*`, one loop
// structure, each build's own costs). They take one of a few paths by size and by the low two address
// bits: word loops (64, 16 and 4 bytes per pass) once aligned, byte loops before and after. CMSIS-NN's
// DSP and plain-C arm_memcpy_s8 / arm_memset_s8 are these calls; the MVE build has its own loops
// (cmsis-mve.ts). Every memcpy is counted both ways; a build prices the one it links (`forLibc`).
import type { Blocks } from './blocks.ts';
import { addBlock, blockFunction } from './blocks.ts';

/** The newlib memcpy a build links: the Armv7-M assembly one or the C one (Armv6-M). */
export type Libc = 'armv7m' | 'armv6m';

const OTHER_MEMCPY: Readonly<Record<Libc, string>> = { armv7m: 'memcpy_c', armv6m: 'memcpy' };

/** `blocks` without the memcpy the build does not link. */
export function forLibc(blocks: Blocks, libc: Libc): Blocks {
  const other = OTHER_MEMCPY[libc];
  return Object.fromEntries(Object.entries(blocks).filter(([k]) => blockFunction(k) !== other));
}

/** newlib's memcpy.c (-O2, Armv6-M): with n >= 16 and both pointers word aligned, 16- then 4-byte
 * word loops; then (or for short or misaligned copies, all of it) a byte loop. */
function memcpyC(b: Blocks, n: number, dstAlign: number, srcAlign: number): void {
  addBlock(b, 'memcpy_c.call', 1);
  let tail = n;
  if (n < 16) addBlock(b, 'memcpy_c.small', 1);
  else if (((dstAlign | srcAlign) & 3) !== 0) addBlock(b, 'memcpy_c.misaligned', 1);
  else {
    addBlock(b, 'memcpy_c.aligned', 1);
    addBlock(b, 'memcpy_c.w16', Math.floor(n / 16));
    const r = n % 16;
    if ((r & 12) !== 0) { addBlock(b, 'memcpy_c.words', 1); addBlock(b, 'memcpy_c.w4', r >> 2); } else addBlock(b, 'memcpy_c.noWords', 1);
    tail = r & 3;
  }
  if (tail > 0) { addBlock(b, 'memcpy_c.bytes', 1); addBlock(b, 'memcpy_c.byte', tail); }
}

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

/**
 * `calls` word reads / writes through CMSIS-NN's arm_nn_read_s8x4 / arm_nn_write_s8x4_ia (a 4-byte
 * memcpy): gcc inlines them as one load or store where unaligned accesses exist (Armv7-M, Armv8-M),
 * and calls memcpy on Armv6-M, whose build links the C memcpy: counted as those calls only.
 */
export function wordAccessCalls(b: Blocks, calls: number): void {
  addBlock(b, 'memcpy_c.call', calls);
  addBlock(b, 'memcpy_c.small', calls);
  addBlock(b, 'memcpy_c.bytes', calls);
  addBlock(b, 'memcpy_c.byte', 4 * calls);
}

/** memcpy(dst, src, n) with dst % 4 == `dstAlign`, src % 4 == `srcAlign` (both newlib versions). */
export function memcpyBlocks(b: Blocks, n: number, dstAlign: number, srcAlign: number): void {
  memcpyC(b, n, dstAlign, srcAlign);
  memcpyAsm(b, n, dstAlign, srcAlign);
}

/** memcpy-armv7m.S. */
function memcpyAsm(b: Blocks, n: number, dstAlign: number, srcAlign: number): void {
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
