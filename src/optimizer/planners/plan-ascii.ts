// A plan as text, in the layout of TFLM's GreedyMemoryPlanner::PrintMemoryPlan: one line per
// buffer (ordinal character, size, offset, lifetime), then one row per time step with a
// character per arena slice: the buffer's ordinal, '.' free, '!' where two buffers collide.
import type { BufferRequest, Plan } from './plan-types.ts';

const LINE_WIDTH = 80;

/** GetOrdinalCharacter: 0-9, a-z, A-Z, then '*'. */
export function ordinalCharacter(i: number): string {
  if (i < 10) return String.fromCharCode(48 + i);
  if (i < 36) return String.fromCharCode(97 + i - 10);
  if (i < 62) return String.fromCharCode(65 + i - 36);
  return '*';
}

export interface AsciiOptions {
  /** Characters across the arena (TFLM: 80). */
  readonly width?: number;
}

export function renderPlanAscii(requests: readonly BufferRequest[], plan: Plan, options: AsciiOptions = {}): string {
  const width = Math.max(1, Math.floor(options.width ?? LINE_WIDTH));
  const offsetOf = (i: number): number => plan.offsets[i] ?? -1;
  const lines = requests.map(
    (r, i) => `${ordinalCharacter(i)} (id=${i}): size=${r.sizeBytes}, offset=${offsetOf(i)}, first_used=${r.firstStep} last_used=${r.lastStep}`,
  );
  // TFLM scales to at least the line width, so tiny arenas get one character per byte.
  let maxSize = width;
  let maxTime = 0;
  requests.forEach((r, i) => {
    maxSize = Math.max(maxSize, offsetOf(i) + r.sizeBytes);
    maxTime = Math.max(maxTime, r.lastStep);
  });
  for (let t = 0; t <= maxTime; t++) {
    const row = new Array<string>(width).fill('.');
    let memoryUse = 0;
    requests.forEach((r, i) => {
      const offset = offsetOf(i);
      if (t < r.firstStep || t > r.lastStep || offset === -1) return;
      memoryUse += r.sizeBytes;
      const start = Math.floor((offset * width) / maxSize);
      const end = Math.floor(((offset + r.sizeBytes) * width) / maxSize);
      for (let n = start; n < end; n++) row[n] = row[n] === '.' ? ordinalCharacter(i) : '!';
    });
    lines.push(`${t < 10 ? ' ' : ''}${t}: ${row.join('')} (${Math.ceil(memoryUse / 1024)}k)`);
  }
  return `${lines.join('\n')}\n`;
}
