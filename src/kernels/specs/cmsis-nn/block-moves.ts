// CMSIS-NN's block moves as loop nests (arm_nnsupportfunctions.h, 4ab83cc3): arm_memcpy_s8 and
// arm_memset_s8 call newlib's memcpy / memset on DSP and plain C (modelled as the forward byte
// loop: a store never precedes the load of a lower source byte, the conservative reading of the
// word-wise newlib copy), and on MVE run a tail-predicated loop of 16-byte vectors (vldrb.8 then
// vstrb.8: 16 loads before their 16 stores). A memset only stores, in address order, on every path.
import type { Nest } from '../../nest.ts';
import { For, If, Let, Set, Store, Val } from '../../nest.ts';
import type { CmsisNnFeatures } from './conv-family.ts';

const lanes = (n: number): number[] => Array.from({ length: n }, (_, k) => k);

/**
 * `dst[d + i] = src[s + i]` for i < `n` in arm_memcpy_s8's order; `tag` keeps the names of
 * several copies in one scope apart.
 */
export function memcpyS8(f: CmsisNnFeatures, dst: string, d: string, src: string, s: string, n: string, tag: string): Nest {
  if (!f.mve) return [For(`i${tag}`, '0', n, [Store(dst, `${d} + i${tag}`, `${src}[${s} + i${tag}]`)])];
  const v = (k: number): string => `v${tag}_${k}`;
  const g = `g${tag}`;
  const lane = (k: number, body: Nest): Nest => [If(`${g} + ${k} < ${n}`, body)];
  return [
    For(`c${tag}`, '0', `(${n} + 15) / 16`, [
      Let(g, `c${tag} * 16`),
      ...lanes(16).map((k) => Val(v(k), '0')),
      ...lanes(16).flatMap((k) => lane(k, [Set(v(k), `${src}[${s} + ${g} + ${k}]`)])),
      ...lanes(16).flatMap((k) => lane(k, [Store(dst, `${d} + ${g} + ${k}`, v(k))])),
    ]),
  ];
}

/** `dst[d + i] = value` for i < `n` (arm_memset_s8: stores in address order on every path). */
export function memsetS8(dst: string, d: string, value: string, n: string, tag: string): Nest {
  return [For(`i${tag}`, '0', n, [Store(dst, `${d} + i${tag}`, value)])];
}
