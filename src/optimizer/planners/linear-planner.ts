// The no-reuse baseline (TFLM's LinearMemoryPlanner): every buffer gets its own bytes, back to
// back in request order; offline offsets are ignored, as TFLM's linear planner ignores them.
import type { BufferRequest, Plan } from './plan-types.ts';

export function planLinear(requests: readonly BufferRequest[]): Plan {
  const offsets: number[] = [];
  let next = 0;
  for (const r of requests) {
    offsets.push(next);
    next += r.sizeBytes;
  }
  return { planner: 'linear', offsets, peakBytes: next };
}
