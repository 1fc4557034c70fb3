// The arena size to declare (`uint8_t tensor_arena[N]`): the smallest N a stock MicroInterpreter
// accepts. arena_used_bytes() is not it: the tail's blocks are aligned down from the arena's end,
// so an end that is not 16-aligned wastes bytes there, and while TFLM plans, the planner's scratch
// (40 B a buffer) and the AllocationInfo array sit in the temp section beside a tail not yet full.
// Replays model-persistent.ts's event log on SingleArenaBufferAllocator's pointers (head, temp,
// tail; single_arena_buffer_allocator.cc) for an arena of N bytes starting `startOffset` past a
// 16-byte boundary, every check as TFLM makes it.
import { InternalError } from '../../ir/index.ts';
import type { ArenaEvent } from './model-persistent.ts';
import { ARENA_ALIGNMENT_BYTES } from './model-persistent.ts';

/** GreedyMemoryPlanner::per_buffer_size(): BufferRequirements (16) + 3 ints + ListEntry (12). */
export const GREEDY_PLANNER_BYTES_PER_BUFFER = 40;

const up = (x: number, a: number): number => Math.ceil(x / a) * a;
const down = (x: number, a: number): number => Math.floor(x / a) * a;

export interface ArenaReplay {
  /** The planned head (GetMaximumMemorySize) and the buffers handed to the planner. */
  readonly plannedBytes: number;
  readonly bufferCount: number;
}

/** Whether AllocateTensors succeeds in `sizeBytes` at `startOffset` (mod 16) past an aligned address; the failing step's reason otherwise. */
export function replayArena(events: readonly ArenaEvent[], plan: ArenaReplay, sizeBytes: number, startOffset = 0): string | null {
  // MicroAllocator::Create aligns the arena start up to 16 and keeps the rest.
  const raw = startOffset;
  const bufferHead = up(raw, ARENA_ALIGNMENT_BYTES);
  const bufferTail = raw + sizeBytes;
  if (bufferTail < bufferHead) return 'arena smaller than its alignment';
  let head = bufferHead;
  let temp = bufferHead;
  let tail = bufferTail;
  for (const e of events) {
    switch (e.kind) {
      case 'persistent': {
        const at = down(tail - e.sizeBytes, e.alignBytes);
        if (at < head) return `tail allocation of ${e.sizeBytes} B`;
        tail = at;
        break;
      }
      case 'temp': {
        const at = up(temp, e.alignBytes);
        if (tail - at < e.sizeBytes) return `temp allocation of ${e.sizeBytes} B`;
        temp = at + e.sizeBytes;
        break;
      }
      case 'resetTemp':
        temp = head;
        break;
      case 'resizeHead': {
        const at = up(bufferHead, e.alignBytes);
        if (tail - at < e.sizeBytes) return `scratch request array of ${e.sizeBytes} B`;
        head = at + e.sizeBytes;
        temp = head;
        break;
      }
      case 'plan': {
        const from = up(temp, ARENA_ALIGNMENT_BYTES);
        const available = down(tail, ARENA_ALIGNMENT_BYTES) - from;
        if (available < 0) return 'no room for the planner';
        const max = Math.floor(available / GREEDY_PLANNER_BYTES_PER_BUFFER);
        if (plan.bufferCount > max) return `too many buffers for the planner (${plan.bufferCount}, max ${max})`;
        temp = from + available;
        break;
      }
      case 'overlay': {
        const at = up(bufferHead, ARENA_ALIGNMENT_BYTES);
        if (tail - at < plan.plannedBytes) return `planned head of ${plan.plannedBytes} B`;
        head = at + plan.plannedBytes;
        temp = head;
        break;
      }
      default: {
        const never: never = e;
        throw new InternalError(`unhandled arena event ${JSON.stringify(never)}`);
      }
    }
  }
  return null;
}

/**
 * The smallest N for which AllocateTensors succeeds at every arena start aligned to
 * `startAlignBytes` (default 16: `alignas(16) uint8_t tensor_arena[N]`). `usedBytes`
 * (arena_used_bytes for a 16-aligned end) locates the answer: only the tail's first alignment waste
 * depends on N mod 16, so no N below usedBytes - 32 holds the head and the tail.
 */
export function declareBytes(events: readonly ArenaEvent[], plan: ArenaReplay, usedBytes: number, startAlignBytes = ARENA_ALIGNMENT_BYTES): number {
  if (!Number.isInteger(startAlignBytes) || startAlignBytes <= 0) throw new InternalError(`arena start alignment ${startAlignBytes}`);
  const A = ARENA_ALIGNMENT_BYTES;
  const step = Math.min(startAlignBytes, A);
  const starts: number[] = [];
  for (let s = 0; s < A; s += step) starts.push(s);
  const fits = (n: number): boolean => starts.every((s) => replayArena(events, plan, n, s) === null);
  const low = Math.max(0, usedBytes - 2 * A);
  // An N that fits: a little above usedBytes, or far above when the planner's scratch needs more.
  let high = usedBytes + 4 * A;
  while (!fits(high)) high += Math.max(high - usedBytes, 4 * A);
  // Within one residue mod 16 every pointer moves with N, so fits() is monotone there: bisect each.
  let best = high;
  for (let r = 0; r < A; r++) {
    let lo = low - (((low - r) % A) + A) % A; // the largest N <= low with N = r (mod 16)
    let hi = lo + Math.ceil((high - lo) / A) * A; // the smallest N >= high in that class
    if (lo >= 0 && fits(lo)) throw new InternalError(`declareBytes: ${lo} B below the bound fits`);
    if (!fits(hi)) continue;
    while (hi - lo > A) {
      const mid = lo + Math.floor((hi - lo) / (2 * A)) * A;
      if (fits(mid)) hi = mid;
      else lo = mid;
    }
    best = Math.min(best, hi);
  }
  return best;
}
