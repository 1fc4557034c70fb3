// A partial-spilling sweep drawn like TinySeg Figure 14 (§6.2.2): spilled share of the victim on x,
// peak memory as bars on the left axis (KB from zero, so bar heights compare honestly), latency as a
// line with markers on the right axis (ms from zero), a legend and a title naming the model and the
// storage options. Pure: returns the SVG document as a string, no dependencies.
import { describePayloadInputs } from '../model-latency.ts';
import { charsThatFit, escapeXml, wrapText } from '../../sim/index.ts';
import type { SpillSweepResult, SpillSweepRow } from './spill-sweep.ts';

export interface SpillSweepSvgOptions {
  /** The model as the user named it (e.g. `zoo:tiny-unet`). */
  readonly modelLabel?: string;
}

const WIDTH = 760;
const HEIGHT = 460;
const LEFT = 78;
const RIGHT = 78;
const TOP = 62;
const BOTTOM = 104;
const BAR_FILL = '#7fa7d6';
const LINE_COLOUR = '#d0533a';

/** A 1-2-5 step giving at most about `target` ticks over [0, max]. */
function niceStep(max: number, target: number): number {
  const raw = Math.max(max, 1e-9) / target;
  const pow = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 2, 5]) if (m * pow >= raw) return m * pow;
  return 10 * pow;
}

/** Ticks 0, step, ... up to the first at or above `max`. */
function ticksUpTo(max: number, target: number): number[] {
  const step = niceStep(max, target);
  const n = Math.max(1, Math.ceil(max / step - 1e-9));
  return Array.from({ length: n + 1 }, (_, i) => Math.round(i * step * 1e6) / 1e6);
}

function num(x: number): string {
  return Number.isInteger(x) ? String(x) : x.toFixed(2);
}

function fmt(x: number): string {
  return Number.isInteger(x) ? String(x) : x.toFixed(1);
}

/** Storage options as the title states them. */
export function describeSweepStorage(r: SpillSweepResult): string {
  const erase = r.storage === 'remote' ? '' : r.asyncErase ? ', async erase' : ', sync erase';
  const compressed = r.payloadInputs === null ? '' : `, compressed (bytes from ${describePayloadInputs(r.payloadInputs)})`;
  return `${r.storage} storage${erase}${compressed}`;
}

function rowTip(r: SpillSweepRow): string {
  const split = r.victim === null ? 'no spilling' : `${r.spilledChannels}/${r.victimChannels} channels of ${r.victim} (${r.spilledBytes} B)`;
  const same = r.sameAsPercent === null ? '' : `; same split as ${fmt(r.sameAsPercent)}%`;
  return `${fmt(r.requestedPercent)}%: ${split}; peak ${r.peakBytes} B; latency ${r.latencyMs.toFixed(1)} ms${same}`;
}

export function renderSpillSweepSvg(result: SpillSweepResult, options: SpillSweepSvgOptions = {}): string {
  const rows = result.rows;
  const plotW = WIDTH - LEFT - RIGHT;
  const plotH = HEIGHT - TOP - BOTTOM;
  const bottom = TOP + plotH;
  const kb = (b: number): number => b / 1024;
  const kbTicks = ticksUpTo(rows.reduce((m, r) => Math.max(m, kb(r.peakBytes)), 0), 6);
  const msTicks = ticksUpTo(rows.reduce((m, r) => Math.max(m, r.latencyMs), 0), 6);
  const kbMax = kbTicks[kbTicks.length - 1] ?? 1;
  const msMax = msTicks[msTicks.length - 1] ?? 1;
  // Half a bar of padding at both ends so the 0% and 100% bars stay inside the frame.
  const gap = rows.slice(1).reduce((g, r, i) => Math.min(g, r.requestedPercent - (rows[i]?.requestedPercent ?? 0)), 100);
  const pad = Math.min(8, gap / 2);
  const x = (p: number): number => LEFT + ((p + pad) / (100 + 2 * pad)) * plotW;
  const yKb = (v: number): number => bottom - (v / kbMax) * plotH;
  const yMs = (v: number): number => bottom - (v / msMax) * plotH;
  const barW = Math.max(3, Math.min(44, 0.7 * (x(gap) - x(0))));
  const model = options.modelLabel ?? 'model';
  const victim = rows.find((r) => r.victim !== null);
  const out: string[] = [];
  // A long model path or many storage flags wrap the title; the body moves down by the extra lines.
  const titleLines = wrapText(`Partial spilling: ${model} (${describeSweepStorage(result)})`, charsThatFit(WIDTH - 24, 15));
  const sub = victim === undefined ? 'spilling cannot lower the peak of this model' : `victim ${victim.victim} (${victim.victimChannels} channels); target ${result.target}, ${result.library} kernels`;
  const subLines = wrapText(sub, charsThatFit(WIDTH - 24, 11));
  const shift = (titleLines.length - 1) * 19 + (subLines.length - 1) * 14;
  const height = HEIGHT + shift;
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="sans-serif" font-size="12">`);
  out.push(`<rect width="${WIDTH}" height="${height}" fill="white"/>`);
  titleLines.forEach((l, i) => out.push(`<text class="title" x="${WIDTH / 2}" y="${22 + i * 19}" font-size="15" text-anchor="middle">${escapeXml(l)}</text>`));
  subLines.forEach((l, i) => out.push(`<text x="${WIDTH / 2}" y="${40 + (titleLines.length - 1) * 19 + i * 14}" font-size="11" fill="#555" text-anchor="middle">${escapeXml(l)}</text>`));
  out.push(`<g transform="translate(0 ${shift})">`);
  out.push('<g class="grid" stroke="#e4e4e4">');
  for (const t of kbTicks) out.push(`<line x1="${LEFT}" y1="${num(yKb(t))}" x2="${LEFT + plotW}" y2="${num(yKb(t))}"/>`);
  out.push('</g>');
  const labels: string[] = [];
  out.push('<g class="bars">');
  for (const r of rows) {
    const y = yKb(kb(r.peakBytes));
    const fill = r.sameAsPercent === null ? BAR_FILL : '#b7cde8';
    out.push(`<rect class="bar" x="${num(x(r.requestedPercent) - barW / 2)}" y="${num(y)}" width="${num(barW)}" height="${num(bottom - y)}" fill="${fill}" stroke="#4a78ad"><title>${escapeXml(rowTip(r))}</title></rect>`);
    // The value sits above its bar, unless the latency marker is there: then inside the bar's top
    // when the bar is tall enough, else above the marker.
    const marker = yMs(r.latencyMs);
    const clash = Math.abs(marker - (y - 8)) < 11;
    const ly = !clash ? y - 4 : bottom - y > 30 && Math.abs(marker - (y + 10)) >= 11 ? y + 14 : marker - 8;
    labels.push(`<text x="${num(x(r.requestedPercent))}" y="${num(ly)}" font-size="10" text-anchor="middle" fill="#2f4f75" stroke="white" stroke-width="3" paint-order="stroke">${fmt(kb(r.peakBytes))}</text>`);
  }
  out.push('</g>');
  const points = rows.map((r) => `${num(x(r.requestedPercent))},${num(yMs(r.latencyMs))}`);
  out.push(`<polyline class="latency" points="${points.join(' ')}" fill="none" stroke="${LINE_COLOUR}" stroke-width="2"/>`);
  out.push('<g class="markers">');
  for (const r of rows) out.push(`<circle class="marker" cx="${num(x(r.requestedPercent))}" cy="${num(yMs(r.latencyMs))}" r="4" fill="white" stroke="${LINE_COLOUR}" stroke-width="2"><title>${escapeXml(rowTip(r))}</title></circle>`);
  out.push('</g>');
  // Bar values go over the line, with a white halo, so the line never hides them.
  out.push('<g class="values">', ...labels, '</g>');
  // Axes: frame, left KB ticks, right ms ticks, x ticks at every swept percentage.
  out.push(`<g class="axes" stroke="#333" fill="none"><rect x="${LEFT}" y="${TOP}" width="${plotW}" height="${plotH}"/></g>`);
  out.push('<g class="ticks" font-size="11">');
  for (const t of kbTicks) out.push(`<line x1="${LEFT - 5}" y1="${num(yKb(t))}" x2="${LEFT}" y2="${num(yKb(t))}" stroke="#333"/><text x="${LEFT - 8}" y="${num(yKb(t) + 4)}" text-anchor="end">${fmt(t)} KB</text>`);
  for (const t of msTicks) out.push(`<line x1="${LEFT + plotW}" y1="${num(yMs(t))}" x2="${LEFT + plotW + 5}" y2="${num(yMs(t))}" stroke="${LINE_COLOUR}"/><text x="${LEFT + plotW + 8}" y="${num(yMs(t) + 4)}" fill="${LINE_COLOUR}">${fmt(t)} ms</text>`);
  const labelEvery = Math.max(1, Math.ceil(rows.length / 11));
  rows.forEach((r, i) => {
    const cx = num(x(r.requestedPercent));
    out.push(`<line x1="${cx}" y1="${bottom}" x2="${cx}" y2="${bottom + 5}" stroke="#333"/>`);
    if (i % labelEvery !== 0 && i !== rows.length - 1) return;
    out.push(`<text x="${cx}" y="${bottom + 18}" text-anchor="middle">${fmt(r.requestedPercent)}%</text>`);
    // The split actually made, in whole channels of the victim.
    const split = r.victim === null ? 'none' : `${r.spilledChannels}/${r.victimChannels} ch`;
    out.push(`<text x="${cx}" y="${bottom + 31}" font-size="9" fill="#666" text-anchor="middle">${split}</text>`);
  });
  out.push('</g>');
  out.push(`<text x="${LEFT + plotW / 2}" y="${bottom + 50}" text-anchor="middle">spilled share of the victim tensor requested (%; 0% = no spilling), split made in channels</text>`);
  out.push(`<text x="18" y="${TOP + plotH / 2}" text-anchor="middle" transform="rotate(-90 18 ${TOP + plotH / 2})">peak memory (KB)</text>`);
  out.push(`<text x="${WIDTH - 14}" y="${TOP + plotH / 2}" text-anchor="middle" fill="${LINE_COLOUR}" transform="rotate(90 ${WIDTH - 14} ${TOP + plotH / 2})">latency (ms)</text>`);
  const ly = HEIGHT - 24;
  const lx = LEFT + plotW / 2 - 250;
  out.push('<g class="legend" font-size="11">');
  out.push(`<rect x="${lx}" y="${ly - 10}" width="14" height="12" fill="${BAR_FILL}" stroke="#4a78ad"/><text x="${lx + 20}" y="${ly}">peak memory, TFLM greedy (left axis)</text>`);
  out.push(`<line x1="${lx + 250}" y1="${ly - 4}" x2="${lx + 276}" y2="${ly - 4}" stroke="${LINE_COLOUR}" stroke-width="2"/><circle cx="${lx + 263}" cy="${ly - 4}" r="4" fill="white" stroke="${LINE_COLOUR}" stroke-width="2"/><text x="${lx + 284}" y="${ly}">latency (right axis)</text>`);
  if (rows.some((r) => r.sameAsPercent !== null)) {
    out.push(`<rect x="${lx + 410}" y="${ly - 10}" width="14" height="12" fill="#b7cde8" stroke="#4a78ad"/><text x="${lx + 430}" y="${ly}">same split as an earlier point</text>`);
  }
  out.push('</g>');
  out.push('</g>');
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
