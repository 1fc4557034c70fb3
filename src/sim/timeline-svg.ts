// Draws a latency report's two-core timeline as SVG (TinySeg Figure 10 / §5.2): the main core's
// intervals coloured by category (compute, spill, fetch, codec, stall), the second core's
// asynchronous erases below, time on x in milliseconds.
import type { LatencyReport } from './latency.ts';
import type { IntervalKind, TimelineInterval } from './storage/index.ts';

const COLOURS: Readonly<Record<IntervalKind, string>> = {
  compute: '#4e79a7',
  spill: '#e15759',
  fetch: '#59a14f',
  codec: '#b07aa1',
  stall: '#bab0ac',
  erase: '#f28e2b',
};

const WIDTH = 1000;
const LEFT = 90;
const ROW = 36;
const TOP = 40;

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

export function renderTimelineSvg(report: LatencyReport): string {
  const { main, second } = report.timeline;
  const endUs = Math.max(1, ...main.map((x) => x.endUs), ...second.map((x) => x.endUs));
  const x = (us: number): number => LEFT + ((WIDTH - LEFT - 20) * us) / endUs;
  const bar = (iv: TimelineInterval, row: number): string => {
    const w = Math.max(0.5, x(iv.endUs) - x(iv.startUs));
    const title = `${iv.kind}: ${iv.label}${iv.opIndex === undefined ? '' : ` (op ${iv.opIndex})`} ${(iv.startUs / 1000).toFixed(3)}-${(iv.endUs / 1000).toFixed(3)} ms`;
    return `<rect x="${x(iv.startUs).toFixed(2)}" y="${TOP + row * ROW}" width="${w.toFixed(2)}" height="${ROW - 8}" fill="${COLOURS[iv.kind]}" stroke="white" stroke-width="${w >= 3 ? 0.6 : 0}"><title>${esc(title)}</title></rect>`;
  };
  const ticks: string[] = [];
  const stepMs = niceStep(endUs / 1000 / 8);
  for (let t = 0; t * 1000 <= endUs; t += stepMs) {
    ticks.push(`<line x1="${x(t * 1000).toFixed(2)}" y1="${TOP - 4}" x2="${x(t * 1000).toFixed(2)}" y2="${TOP + 2 * ROW}" stroke="#ddd"/>`);
    ticks.push(`<text x="${x(t * 1000).toFixed(2)}" y="${TOP + 2 * ROW + 14}" font-size="10" text-anchor="middle">${t} ms</text>`);
  }
  const legend = (Object.keys(COLOURS) as IntervalKind[]).map((k, i) =>
    `<rect x="${LEFT + i * 110}" y="${TOP + 2 * ROW + 26}" width="12" height="12" fill="${COLOURS[k]}"/><text x="${LEFT + i * 110 + 16}" y="${TOP + 2 * ROW + 36}" font-size="11">${k}</text>`);
  const b = report.breakdown;
  const title = `${report.target} ${report.library} storage=${report.storage}${report.asyncErase ? ' async-erase' : ''}${report.compress ? ' compress' : ''}: ` +
    `${report.totalMs.toFixed(1)} ms (compute ${b.computeMs.toFixed(1)}, spill ${b.spillMs.toFixed(1)}, fetch ${b.fetchMs.toFixed(1)}, codec ${b.codecMs.toFixed(1)}, stall ${b.stallMs.toFixed(1)})`;
  const height = TOP + 2 * ROW + 50;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="sans-serif">`,
    `<rect width="${WIDTH}" height="${height}" fill="white"/>`,
    `<text x="8" y="20" font-size="12">${esc(title)}</text>`,
    ...ticks,
    `<text x="8" y="${TOP + ROW / 2}" font-size="12">main core</text>`,
    `<text x="8" y="${TOP + ROW + ROW / 2}" font-size="12">second core</text>`,
    ...main.map((iv) => bar(iv, 0)),
    ...second.map((iv) => bar(iv, 1)),
    ...(second.length === 0 ? [`<text x="${LEFT + 4}" y="${TOP + ROW + ROW / 2}" font-size="11" fill="#888">idle (no asynchronous erases)</text>`] : []),
    ...legend,
    '</svg>',
    '',
  ].join('\n');
}

function niceStep(raw: number): number {
  if (!(raw > 0)) return 1;
  const p = 10 ** Math.floor(Math.log10(raw));
  const m = raw / p;
  return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}
