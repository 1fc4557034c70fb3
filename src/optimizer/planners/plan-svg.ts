// A plan as an SVG picture: arena address on x, time step on y (down), one rectangle per buffer
// spanning its bytes and lifetime, labelled with its buffer number where it fits (every buffer
// names itself on hover through <title>), the peak step marked, a live-bytes-per-step panel on
// the right on the same byte scale, and a legend keyed by number with names elided from the start.
// Height is bounded (rows shrink on long schedules). Pure: returns the document as a string.
import { charsThatFit, elideStart, escapeXml, formatBytes, niceTickStep, svgNum, svgTextLines, textWidthPx } from '../../sim/index.ts';
import { planSteps } from './plan-steps.ts';
import type { BufferRequest, Plan } from './plan-types.ts';

export { escapeXml, formatBytes };

export interface SvgOptions {
  readonly title?: string;
  /** Pixels across the arena. */
  readonly plotWidth?: number;
  /** Bytes the x axis spans (default: this plan's peak); give two plans the same to compare them. */
  readonly scaleBytes?: number;
  /** Draw the legend of buffer numbers and names below (default true; a report lists them in a table). */
  readonly legend?: boolean;
  /** Prefix of the ids in the document, so several pictures can share one HTML page. */
  readonly idPrefix?: string;
}

const MARGIN_LEFT = 56;
const MARGIN_RIGHT = 16;
const LIVE_GAP = 24;
const LIVE_WIDTH = 150;
/** The plot's height budget: rows shrink below 22 px to keep long (tiled) schedules on one screen. */
const PLOT_HEIGHT_MAX = 640;
const LEGEND_ROW = 14;
const LEGEND_COL = 248;
const FONT = 11;
const LABEL_FONT = 10;
const PEAK_COLOUR = '#c62828';

function colour(i: number): string {
  const hue = (i * 137.508) % 360;
  return `hsl(${hue.toFixed(1)},65%,${i % 2 === 0 ? 72 : 60}%)`;
}

interface Box {
  readonly x0: number;
  readonly x1: number;
  readonly y0: number;
  readonly y1: number;
}

export function renderPlanSvg(requests: readonly BufferRequest[], plan: Plan, options: SvgOptions = {}): string {
  const plotW = options.plotWidth ?? 760;
  const scale = Math.max(1, options.scaleBytes ?? plan.peakBytes, plan.peakBytes);
  const steps = planSteps(requests, plan);
  const nSteps = steps.lastStep - steps.firstStep + 1;
  const rowH = Math.min(22, Math.max(1, PLOT_HEIGHT_MAX / nSteps));
  const plotH = nSteps * rowH;
  const width = MARGIN_LEFT + plotW + LIVE_GAP + LIVE_WIDTH + MARGIN_RIGHT;
  const title = `${options.title ?? `plan ${plan.planner}`}: peak ${plan.peakBytes} B (${formatBytes(plan.peakBytes)})`;
  const head = svgTextLines(title, 8, 18, width - 16, 14, 'class="title"');
  const peakLive = steps.liveBytes[steps.peakStep - steps.firstStep] ?? 0;
  const sub = `${requests.length} buffers, ${nSteps} steps; peak reached at step ${steps.peakStep} (${formatBytes(peakLive)} live); hover a buffer for its name`;
  const subLine = svgTextLines(sub, 8, head.bottom + 16, width - 16, FONT, 'fill="#555"');
  const top = subLine.bottom + 52;
  const legend = options.legend ?? true;
  const legendCols = Math.max(1, Math.floor((width - 8) / LEGEND_COL));
  const legendRows = legend ? Math.ceil(requests.length / legendCols) : 0;
  const legendTop = top + plotH + 30;
  const height = legend ? legendTop + legendRows * LEGEND_ROW + 12 : top + plotH + 30;
  const pre = options.idPrefix ?? '';
  const x = (bytes: number): number => MARGIN_LEFT + (bytes / scale) * plotW;
  const y = (step: number): number => top + (step - steps.firstStep) * rowH;

  const out: string[] = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${svgNum(height)}" viewBox="0 0 ${width} ${svgNum(height)}" font-family="sans-serif" font-size="${FONT}">`);
  out.push(`<rect class="background" width="${width}" height="${svgNum(height)}" fill="white"/>`);
  out.push(head.svg, subLine.svg);
  // Address axis on top; ticks fall on round numbers of the unit they are labelled in (B, KB or MB).
  const unit = scale < 4096 ? 1 : scale < 4 * 1024 * 1024 ? 1024 : 1024 * 1024;
  const tick = niceTickStep(scale / unit, 8) * unit;
  out.push(`<g class="x-axis" stroke="#444">`);
  out.push(`<line x1="${MARGIN_LEFT}" y1="${top - 4}" x2="${svgNum(x(scale))}" y2="${top - 4}"/>`);
  for (let b = 0; b <= scale; b += tick) {
    out.push(`<line x1="${svgNum(x(b))}" y1="${top - 8}" x2="${svgNum(x(b))}" y2="${top - 4}"/>`);
    out.push(`<text x="${svgNum(x(b))}" y="${top - 12}" stroke="none" text-anchor="middle">${escapeXml(formatBytes(b))}</text>`);
  }
  out.push(`<text x="${svgNum(x(scale))}" y="${top - 28}" stroke="none" text-anchor="end">arena address (bytes) →</text>`);
  out.push(`</g>`);
  if (plan.peakBytes < scale) {
    out.push(`<line class="extent" x1="${svgNum(x(plan.peakBytes))}" y1="${top - 4}" x2="${svgNum(x(plan.peakBytes))}" y2="${svgNum(top + plotH)}" stroke="#888" stroke-dasharray="4 3"><title>${escapeXml(`this plan's peak: ${plan.peakBytes} B`)}</title></line>`);
  }
  // Step axis on the left.
  const every = Math.max(1, niceTickStep(12 / rowH, 1));
  out.push(`<g class="y-axis">`);
  out.push(`<text x="4" y="${top - 28}">step ↓</text>`);
  for (let s = Math.ceil(steps.firstStep / every) * every; s <= steps.lastStep; s += every) {
    out.push(`<text x="${MARGIN_LEFT - 6}" y="${svgNum(y(s) + rowH / 2 + 4)}" text-anchor="end">${s}</text>`);
  }
  out.push(`</g>`);
  // The peak step: a band behind the buffers.
  out.push(`<rect class="peak-step" x="${MARGIN_LEFT}" y="${svgNum(y(steps.peakStep))}" width="${plotW}" height="${svgNum(Math.max(1, rowH))}" fill="${PEAK_COLOUR}" fill-opacity="0.12"/>`);
  // Buffers, translucent so buffers that share bytes (DMO safe overlaps, in-place ops) show both.
  out.push(`<defs><pattern id="${pre}shared" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><path d="M0 0V6" stroke="#000" stroke-width="1.2"/></pattern></defs>`);
  out.push(`<g class="buffers" stroke="#222" stroke-width="${rowH < 3 ? 0.25 : 0.5}" fill-opacity="0.8">`);
  const labels: string[] = [];
  /** Text boxes of the labels placed so far: a label never overlaps another (shared bytes stack buffers). */
  const placed: Box[] = [];
  const box = (i: number, r: BufferRequest): Box => {
    const off = plan.offsets[i] ?? 0;
    return { x0: x(off), x1: Math.max(x(off) + 0.5, x(off + r.sizeBytes)), y0: y(r.firstStep), y1: y(r.lastStep + 1) };
  };
  requests.forEach((r, i) => {
    const off = plan.offsets[i] ?? 0;
    const b = box(i, r);
    const tip = `#${i} ${r.name}: ${r.sizeBytes} B at offset ${off}, steps ${r.firstStep}..${r.lastStep}`;
    out.push(`<rect id="${pre}buffer-${i}" class="buffer" x="${svgNum(b.x0)}" y="${svgNum(b.y0)}" width="${svgNum(b.x1 - b.x0)}" height="${svgNum(b.y1 - b.y0)}" fill="${colour(i)}"><title>${escapeXml(tip)}</title></rect>`);
    const label = placeLabel(i, r.name, b, placed);
    if (label !== null) labels.push(`<text x="${svgNum(label.x)}" y="${svgNum(label.y)}" text-anchor="middle">${escapeXml(label.text)}</text>`);
  });
  out.push(`</g>`);
  const shared = sharedAreas(requests, plan, box, x);
  if (shared.length) out.push(`<g class="shared" fill="url(#${pre}shared)" stroke="#000" stroke-width="0.8">`, ...shared, `</g>`);
  // Labels last, with a white halo, so no buffer hides another's label.
  out.push(`<g class="labels" font-size="${LABEL_FONT}" stroke="white" stroke-width="3" paint-order="stroke" fill="#000">`, ...labels, `</g>`);
  out.push(`<line x1="${MARGIN_LEFT}" y1="${svgNum(y(steps.peakStep) + rowH / 2)}" x2="${MARGIN_LEFT + plotW}" y2="${svgNum(y(steps.peakStep) + rowH / 2)}" stroke="${PEAK_COLOUR}" stroke-width="1" stroke-dasharray="6 3"/>`);
  if (shared.length) {
    out.push(`<path d="M${MARGIN_LEFT + 90} ${top - 38}h12v10h-12Z" fill="url(#${pre}shared)" stroke="#000" stroke-width="0.8"/><text x="${MARGIN_LEFT + 108}" y="${top - 29}">bytes shared by buffers live at the same step (safe overlap / in place)</text>`);
  }
  out.push(...livePanel(steps, scale, top, rowH, plotH, MARGIN_LEFT + plotW + LIVE_GAP));
  if (legend) out.push(...legendRowsSvg(requests, legendTop, legendCols));
  out.push(`</svg>`);
  return `${out.join('\n')}\n`;
}

/** The buffer number, with the name's tail when the box is wide enough; null when nothing fits. */
function boxLabel(i: number, name: string, b: Box): string | null {
  const room = charsThatFit(b.x1 - b.x0 - 4, LABEL_FONT);
  const id = String(i);
  if (b.y1 - b.y0 < 9 || room < id.length) return null;
  const nameRoom = room - id.length - 1;
  return nameRoom >= 16 ? `${id} ${elideStart(name, nameRoom)}` : id;
}

/**
 * Where buffer i's label goes inside its box: the full label, else the number alone, at the first
 * line of the box where it meets no label placed before (buffers sharing bytes overlap); null when
 * none fits (the legend below still lists the buffer). Records the placed text box in `placed`.
 */
function placeLabel(i: number, name: string, b: Box, placed: Box[]): { text: string; x: number; y: number } | null {
  const full = boxLabel(i, name, b);
  if (full === null) return null;
  const cx = (b.x0 + b.x1) / 2;
  const lineH = LABEL_FONT + 2;
  for (const text of full === String(i) ? [full] : [full, String(i)]) {
    const half = textWidthPx(text, LABEL_FONT) / 2 + 2;
    // The first line (centred in the box's top 22 px, as a box only 9 px tall still gets one), then
    // lower lines while they fit in the box.
    for (let top = b.y0 + Math.max(0, (Math.min(22, b.y1 - b.y0) - lineH) / 2), k = 0; k === 0 || top + lineH <= b.y1; top += lineH, k++) {
      const t: Box = { x0: cx - half, x1: cx + half, y0: top, y1: top + lineH };
      if (placed.some((p) => p.x0 < t.x1 && t.x0 < p.x1 && p.y0 < t.y1 && t.y0 < p.y1)) continue;
      placed.push(t);
      return { text, x: cx, y: top + LABEL_FONT - 1 };
    }
  }
  return null;
}

function sharedAreas(requests: readonly BufferRequest[], plan: Plan, box: (i: number, r: BufferRequest) => Box, x: (b: number) => number): string[] {
  const shared: string[] = [];
  requests.forEach((r, i) => {
    const bi = box(i, r);
    for (let j = i + 1; j < requests.length; j++) {
      const q = requests[j] as BufferRequest;
      if (q.firstStep > r.lastStep || r.firstStep > q.lastStep) continue;
      const lo = Math.max(plan.offsets[i] ?? 0, plan.offsets[j] ?? 0);
      const hi = Math.min((plan.offsets[i] ?? 0) + r.sizeBytes, (plan.offsets[j] ?? 0) + q.sizeBytes);
      if (hi <= lo) continue;
      const bj = box(j, q);
      const y0 = Math.max(bi.y0, bj.y0);
      const y1 = Math.min(bi.y1, bj.y1);
      shared.push(`<path d="M${svgNum(x(lo))} ${svgNum(y0)}H${svgNum(Math.max(x(hi), x(lo) + 1))}V${svgNum(y1)}H${svgNum(x(lo))}Z"><title>${escapeXml(`#${i} and #${j} share ${hi - lo} B`)}</title></path>`);
    }
  });
  return shared;
}

/** Live bytes per step as horizontal bars on the plot's byte scale; the peak step in red. */
function livePanel(steps: ReturnType<typeof planSteps>, scale: number, top: number, rowH: number, plotH: number, left: number): string[] {
  const out = [`<g class="live-bytes">`, `<text x="${left}" y="${top - 28}">live bytes per step</text>`];
  out.push(`<line x1="${left}" y1="${top - 4}" x2="${left}" y2="${svgNum(top + plotH)}" stroke="#444"/>`);
  out.push(`<text x="${left}" y="${top - 12}" font-size="9">0</text><text x="${left + LIVE_WIDTH}" y="${top - 12}" font-size="9" text-anchor="end">${escapeXml(formatBytes(scale))}</text>`);
  steps.liveBytes.forEach((bytes, k) => {
    const step = steps.firstStep + k;
    const w = (bytes / scale) * LIVE_WIDTH;
    const fill = step === steps.peakStep ? PEAK_COLOUR : '#9db4cf';
    out.push(`<rect x="${left}" y="${svgNum(top + k * rowH)}" width="${svgNum(Math.max(0, w))}" height="${svgNum(Math.max(0.6, rowH - (rowH > 3 ? 1 : 0)))}" fill="${fill}"><title>${escapeXml(`step ${step}: ${bytes} B live, extent ${steps.extentBytes[k] ?? 0} B`)}</title></rect>`);
  });
  const k = steps.peakStep - steps.firstStep;
  out.push(`<text x="${left + 4}" y="${svgNum(top + plotH + 16)}" fill="${PEAK_COLOUR}">peak step ${steps.peakStep}: ${escapeXml(formatBytes(steps.liveBytes[k] ?? 0))}</text>`);
  out.push(`</g>`);
  return out;
}

function legendRowsSvg(requests: readonly BufferRequest[], legendTop: number, cols: number): string[] {
  const out = [`<g class="legend">`];
  const rows = Math.ceil(requests.length / cols);
  requests.forEach((r, i) => {
    // Column-major, so numbers read down a column.
    const lx = 8 + Math.floor(i / rows) * LEGEND_COL;
    const ly = legendTop + (i % rows) * LEGEND_ROW;
    const size = ` (${formatBytes(r.sizeBytes)})`;
    const id = `${i}`;
    const room = charsThatFit(LEGEND_COL - 22, FONT) - id.length - size.length - 1;
    out.push(`<circle cx="${lx + 5}" cy="${ly - 4}" r="5" fill="${colour(i)}"/>`);
    out.push(`<text x="${lx + 14}" y="${ly}"><tspan font-weight="bold">${id}</tspan> ${escapeXml(elideStart(r.name, room))}${escapeXml(size)}<title>${escapeXml(r.name)}</title></text>`);
  });
  out.push(`</g>`);
  return out;
}
