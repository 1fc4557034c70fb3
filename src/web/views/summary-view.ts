// The Summary view: the model's counts and the figures of the page contract for the chosen build
// (planned-bytes, arena-bytes, latency-ms), and the arena plan picture, whose buffers name their
// tensor on hover and light the op that writes them (and the last one that reads them) in the op table.
import { byId, bytesText, clearMetrics, intText, msText, setMetric } from '../dom.ts';
import type { Analysis } from '../protocol.ts';

export const SUMMARY_METRICS = ['planned-bytes', 'arena-bytes', 'latency-ms'] as const;

export function clearSummary(): void {
  clearMetrics(...SUMMARY_METRICS);
  for (const id of ['sum-ops', 'sum-macs', 'sum-weights']) byId(id).textContent = '…';
}

export function renderSummary(a: Analysis, light: (producer: number | null, consumer: number | null) => void): void {
  const s = a.summary;
  byId('sum-ops').textContent = `${s.ops} (${s.tensors} tensors)`;
  byId('sum-macs').textContent = intText(s.macs);
  byId('sum-weights').textContent = bytesText(s.weightsBytes);
  setMetric('planned-bytes', s.plannedBytes, bytesText(s.plannedBytes));
  byId('sum-bound').textContent = `lower bound ${bytesText(s.lowerBoundBytes)}; ${a.kernels}${a.cpu === null ? '' : ` (${a.cpu})`} kernels`;
  setMetric('arena-bytes', s.arenaBytes, bytesText(s.arenaBytes));
  byId('sum-persistent').textContent = `planned + ${bytesText(s.persistentBytes)} persistent (${s.runtime}, ${s.arch})`;
  byId('sum-board').textContent = a.latency.board;
  setMetric('latency-ms', a.latency.totalMs, msText(a.latency.totalMs));
  byId('sum-engine').textContent = `${a.latency.core} ${a.latency.clockMhz} MHz, ${a.latency.library} kernels, ${a.latency.engine}`;
  const warning = byId('warning');
  warning.hidden = a.warning === null;
  warning.textContent = a.warning ?? '';
  const picture = byId('plan-picture');
  // The SVG is the library's renderPlanSvg output (names escaped there).
  picture.innerHTML = a.planSvg;
  hookPlanHover(picture, 'before-', a, light);
}

/** Hover on a plan picture's buffers: the hover line names the buffer; its ops are lit. */
export function hookPlanHover(picture: HTMLElement, prefix: string, a: Pick<Analysis, 'buffers'>, light: (producer: number | null, consumer: number | null) => void): void {
  const line = byId('plan-hover');
  for (const rect of picture.querySelectorAll<SVGRectElement>('rect.buffer')) {
    const i = Number(rect.id.slice(`${prefix}buffer-`.length));
    const b = a.buffers[i];
    if (b === undefined) continue;
    rect.dataset.tensor = String(b.tensor ?? '');
    rect.addEventListener('mouseenter', () => {
      rect.classList.add('lit');
      const what = b.tensor === null ? 'scratch' : `tensor ${b.tensor}`;
      line.textContent = `#${i} ${what} '${b.name}': ${b.size} B at offset ${b.offset}, live steps ${b.first}..${b.last} (written by op ${b.first}, last read by op ${b.last})`;
      light(b.first, b.last);
    });
    rect.addEventListener('mouseleave', () => {
      rect.classList.remove('lit');
      light(null, null);
    });
  }
}
