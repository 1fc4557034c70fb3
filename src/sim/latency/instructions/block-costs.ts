// What one execution of a block costs in a given build: instructions per class, as measured (the
// cost modules name their source). Classes are what a core's pipeline prices differently: integer
// ALU, 32-bit multiplies, divides, DSP multiply-accumulates, DSP SIMD / saturation, IT, loads (a load
// right after another load or store in the same block is `loadNext`: the Cortex-M4 / M33 TRMs pipeline
// it), stores, multi-register transfers, unconditional jumps and calls, backward (loop) and forward
// conditional branches, low-overhead loop instructions, pops into pc, FPU, and the MVE (Helium)
// loads, stores, multiply-accumulates, other vector ops and predication. A block the table does not
// list is an error, never a zero.
import { InternalError, ModelError } from '../../../ir/index.ts';
import type { Blocks } from './blocks.ts';

export const INSN_CLASSES = [
  'alu', 'mul', 'div', 'mac', 'simd', 'it', 'load', 'loadNext', 'store', 'multi', 'jump', 'condBack', 'condFwd', 'loop', 'popPc', 'fpu',
  'mveLoad', 'mveStore', 'mveMac', 'mveAlu', 'mvePred',
] as const;
export type InsnClass = (typeof INSN_CLASSES)[number];
export type ClassCounts = Partial<Record<InsnClass, number>>;

/** Block key -> 'a12 l3 b2' (class code, instructions per execution). */
export type BlockCosts = Readonly<Record<string, string>>;

const CODES: Readonly<Record<string, InsnClass>> = {
  a: 'alu', m: 'mul', d: 'div', x: 'mac', s: 'simd', i: 'it', l: 'load', n: 'loadNext', w: 'store', u: 'multi', j: 'jump',
  c: 'condBack', f: 'condFwd', o: 'loop', p: 'popPc', fp: 'fpu', vl: 'mveLoad', vw: 'mveStore', vx: 'mveMac', va: 'mveAlu', vp: 'mvePred',
};

const PARSED = new WeakMap<BlockCosts, Map<string, ClassCounts>>();

function parsed(costs: BlockCosts): Map<string, ClassCounts> {
  let m = PARSED.get(costs);
  if (m !== undefined) return m;
  m = new Map();
  for (const [key, text] of Object.entries(costs)) {
    const cc: ClassCounts = {};
    for (const part of text.split(' ').filter((x) => x !== '')) {
      const match = /^([a-z]+)(-?[0-9.]+)$/.exec(part);
      const cls = match ? CODES[match[1] ?? ''] : undefined;
      if (match === null || cls === undefined) throw new InternalError(`block cost '${key}': bad term '${part}'`);
      cc[cls] = (cc[cls] ?? 0) + Number(match[2]);
    }
    m.set(key, cc);
  }
  PARSED.set(costs, m);
  return m;
}

export interface CountedInstructions {
  readonly instructions: number;
  readonly classes: ClassCounts;
}

/** Instructions of `blocks` priced by `costs` (every block must be listed). */
export function priceBlocks(blocks: Blocks, costs: BlockCosts, what: string): CountedInstructions {
  const table = parsed(costs);
  const classes: Partial<Record<InsnClass, number>> = {};
  let instructions = 0;
  for (const [key, n] of Object.entries(blocks)) {
    const cc = table.get(key);
    if (cc === undefined) throw new ModelError('E_MODEL_UNSUPPORTED_OP', `${what}: block '${key}' has no measured cost in this build`);
    for (const [c, v] of Object.entries(cc) as [InsnClass, number][]) {
      classes[c] = (classes[c] ?? 0) + v * n;
      instructions += v * n;
    }
  }
  return { instructions, classes };
}
