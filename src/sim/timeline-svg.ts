// Draws a latency report's two-core timeline as SVG (TinySeg Figure 10 / §5.2): the main core's
// intervals coloured by category (compute, spill, fetch, codec, stall) and labelled with their op
// where they fit, the second core's asynchronous erases below, time on x in milliseconds with an
// axis title, and the end of the inference marked: an erase the second core is still running then
// overlaps the next inference (back-to-back runs), which the picture says in a note.
import type { LatencyReport } from './latency.ts';
import type { IntervalKind, TimelineInterval } from './storage/index.ts';
import { charsThatFit, elideStart, escapeXml, niceTickStep, svgTextLines } from './svg-text.ts';

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
const RIGHT = 20;
const ROW = 40;
const LABEL_FONT = 10;

export interface TimelineSvgOptions {
  /** The model as the user named it, for the title. */
  readonly modelLabel?: string;
}

export function renderTimelineSvg(report: LatencyReport, options: TimelineSvgOptions = {}): string {
  const { main, second } = report.timeline;
  const mainEndUs = Math.max(0, ...main.map((x) => x.endUs));
  const endUs = Math.max(1, mainEndUs, ...second.map((x) => x.endUs));
  const plotW = WIDTH - LEFT - RIGHT;
  const x = (us: number): number => LEFT + (plotW * us) / endUs;
  const b = report.breakdown;
  const title = `${options.modelLabel ? `${options.modelLabel}: ` : ''}${report.target} ${report.library} storage=${report.storage}${report.asyncErase ? ' async-erase' : ''}${report.compress ? ' compress' : ''}: ` +
    `${report.totalMs.toFixed(1)} ms (compute ${b.computeMs.toFixed(1)}, spill ${b.spillMs.toFixed(1)}, fetch ${b.fetchMs.toFixed(1)}, codec ${b.codecMs.toFixed(1)}, stall ${b.stallMs.toFixed(1)})`;
  const head = svgTextLines(title, 8, 18, WIDTH - 16, 12, 'class="title"');
  const top = head.bottom + 22;
  const bar = (iv: TimelineInterval, row: number): string => {
    const w = Math.max(0.5, x(iv.endUs) - x(iv.startUs));
    const tip = `${iv.kind}: ${iv.label}${iv.opIndex === undefined ? '' : ` (op ${iv.opIndex})`} ${(iv.startUs / 1000).toFixed(3)}-${(iv.endUs / 1000).toFixed(3)} ms`;
    return `<rect class="interval" x="${x(iv.startUs).toFixed(2)}" y="${top + row * ROW}" width="${w.toFixed(2)}" height="${ROW - 10}" fill="${COLOURS[iv.kind]}" stroke="white" stroke-width="${w >= 3 ? 0.6 : 0}"><title>${escapeXml(tip)}</title></rect>`;
  };
  const labels: string[] = [];
  const label = (iv: TimelineInterval, row: number): void => {
    const w = x(iv.endUs) - x(iv.startUs);
    const room = charsThatFit(w - 4, LABEL_FONT);
    const op = iv.opIndex === undefined ? '' : `${iv.opIndex} `;
    const full = `${op}${iv.label}`;
    const text = room >= full.length ? full : room >= op.length + 6 ? `${op}${elideStart(iv.label, room - op.length)}` : room >= op.trim().length && op !== '' ? op.trim() : '';
    if (text === '') return;
    labels.push(`<text x="${((x(iv.startUs) + x(iv.endUs)) / 2).toFixed(2)}" y="${top + row * ROW + (ROW - 10) / 2 + 4}" text-anchor="middle" font-size="${LABEL_FONT}" fill="white">${escapeXml(text)}</text>`);
  };
  main.forEach((iv) => label(iv, 0));
  second.forEach((iv) => label(iv, 1));
  const axisY = top + 2 * ROW;
  const ticks: string[] = [];
  const stepMs = niceTickStep(endUs / 1000 / 8, 1, 1e-6);
  for (let k = 0; k * stepMs * 1000 <= endUs + 1e-6; k++) {
    const t = k * stepMs;
    const tx = x(t * 1000).toFixed(2);
    ticks.push(`<line x1="${tx}" y1="${top - 4}" x2="${tx}" y2="${axisY}" stroke="#ddd"/>`);
    ticks.push(`<text x="${tx}" y="${axisY + 14}" font-size="10" text-anchor="middle">${Number(t.toPrecision(6))}</text>`);
  }
  const axisTitle = `<text x="${LEFT + plotW / 2}" y="${axisY + 30}" font-size="11" text-anchor="middle">time since the inference started (ms)</text>`;
  const legendY = axisY + 42;
  const legend = (Object.keys(COLOURS) as IntervalKind[]).map((k, i) =>
    `<rect x="${LEFT + i * 110}" y="${legendY}" width="12" height="12" fill="${COLOURS[k]}"/><text x="${LEFT + i * 110 + 16}" y="${legendY + 10}" font-size="11">${k}${k === 'erase' ? ' (2nd core)' : ''}</text>`);
  const overrun = second.some((iv) => iv.endUs > mainEndUs + 1e-9);
  const notes: string[] = [];
  let bottom = legendY + 14;
  if (overrun) {
    const ex = x(mainEndUs).toFixed(2);
    notes.push(`<line class="inference-end" x1="${ex}" y1="${top - 10}" x2="${ex}" y2="${axisY}" stroke="#222" stroke-width="1.2" stroke-dasharray="5 3"/>`);
    notes.push(`<text x="${ex}" y="${top - 12}" font-size="10" text-anchor="end">inference ends ${(mainEndUs / 1000).toFixed(1)} ms ▸</text>`);
    const note = svgTextLines('Erases right of the dashed line run while the next inference starts (back-to-back runs): the flash it needs may still be erasing, which that inference waits for (stall); the total above counts the steady state.',
      LEFT, bottom + 18, plotW, 11, 'fill="#555"');
    notes.push(note.svg);
    bottom = note.bottom;
  }
  const height = bottom + 12;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="sans-serif">`,
    `<rect width="${WIDTH}" height="${height}" fill="white"/>`,
    head.svg,
    ...ticks,
    `<text x="8" y="${top + ROW / 2}" font-size="12">main core</text>`,
    `<text x="8" y="${top + ROW + ROW / 2}" font-size="12">second core</text>`,
    ...main.map((iv) => bar(iv, 0)),
    ...second.map((iv) => bar(iv, 1)),
    ...(second.length === 0 ? [`<text x="${LEFT + 4}" y="${top + ROW + ROW / 2}" font-size="11" fill="#888">idle (no asynchronous erases)</text>`] : []),
    ...labels,
    axisTitle,
    ...legend,
    ...notes,
    '</svg>',
    '',
  ].join('\n');
}
