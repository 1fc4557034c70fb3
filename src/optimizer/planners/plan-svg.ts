// A plan as an SVG picture: arena address on x, time step on y (down), one labelled rectangle
// per buffer spanning its bytes and lifetime, an address scale in B/KB/MB on top, step numbers
// on the left and a legend below. Pure: returns the document as a string.
import { ordinalCharacter } from './plan-ascii.ts';
import type { BufferRequest, Plan } from './plan-types.ts';

export interface SvgOptions {
  readonly title?: string;
  /** Pixels across the arena. */
  readonly plotWidth?: number;
}

const MARGIN_LEFT = 56;
const MARGIN_TOP = 64;
const MARGIN_RIGHT = 24;
const LEGEND_ROW = 16;
const LEGEND_COL = 300;
/** Characters of a legend entry that fit a column in 11 px monospace (about 6.6 px each). */
const LEGEND_CHARS = 41;

export function escapeXml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

/** Human byte count: 512 B, 12.5 KB, 2.3 MB (1 KB = 1024 B). */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${trim(bytes / 1024)} KB`;
  return `${trim(bytes / (1024 * 1024))} MB`;
}

function trim(x: number): string {
  return Number.isInteger(x) ? String(x) : x.toFixed(1);
}

/** A 1-2-5 tick step giving about `target` ticks over `span`. */
function tickStep(span: number, target: number): number {
  const raw = Math.max(1, span / target);
  const pow = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 2, 5, 10]) if (m * pow >= raw) return m * pow;
  return 10 * pow;
}

function colour(i: number): string {
  const hue = (i * 137.508) % 360;
  return `hsl(${hue.toFixed(1)},65%,${i % 2 === 0 ? 72 : 60}%)`;
}

function num(x: number): string {
  return Number.isInteger(x) ? String(x) : x.toFixed(2);
}

export function renderPlanSvg(requests: readonly BufferRequest[], plan: Plan, options: SvgOptions = {}): string {
  const plotW = options.plotWidth ?? 800;
  const arena = Math.max(1, plan.peakBytes);
  const minStep = requests.reduce((m, r) => Math.min(m, r.firstStep), 0);
  const maxStep = requests.reduce((m, r) => Math.max(m, r.lastStep), 0);
  const steps = maxStep - minStep + 1;
  const rowH = Math.min(24, Math.max(4, Math.floor(600 / steps)));
  const plotH = steps * rowH;
  const legendCols = Math.max(1, Math.floor((MARGIN_LEFT + plotW + MARGIN_RIGHT) / LEGEND_COL));
  const legendRows = Math.ceil(requests.length / legendCols);
  const legendTop = MARGIN_TOP + plotH + 28;
  const width = MARGIN_LEFT + plotW + MARGIN_RIGHT;
  const height = legendTop + legendRows * LEGEND_ROW + 16;
  const x = (bytes: number): number => MARGIN_LEFT + (bytes / arena) * plotW;
  const y = (step: number): number => MARGIN_TOP + (step - minStep) * rowH;

  const out: string[] = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="monospace" font-size="11">`);
  const title = options.title ?? `plan ${plan.planner}`;
  out.push(`<text x="${MARGIN_LEFT}" y="18" font-size="14">${escapeXml(`${title}: peak ${plan.peakBytes} B (${formatBytes(plan.peakBytes)})`)}</text>`);
  // Address axis on top.
  // Ticks fall on round numbers of the unit they are labelled in (B, KB or MB).
  const unit = arena < 4096 ? 1 : arena < 4 * 1024 * 1024 ? 1024 : 1024 * 1024;
  const step = tickStep(arena / unit, 8) * unit;
  out.push(`<g class="x-axis" stroke="#444">`);
  out.push(`<line x1="${MARGIN_LEFT}" y1="${MARGIN_TOP - 4}" x2="${num(x(arena))}" y2="${MARGIN_TOP - 4}"/>`);
  for (let b = 0; b <= arena; b += step) {
    out.push(`<line x1="${num(x(b))}" y1="${MARGIN_TOP - 8}" x2="${num(x(b))}" y2="${MARGIN_TOP - 4}"/>`);
    out.push(`<text x="${num(x(b))}" y="${MARGIN_TOP - 12}" stroke="none" text-anchor="middle">${escapeXml(formatBytes(b))}</text>`);
  }
  out.push(`<text x="${num(x(arena))}" y="${MARGIN_TOP - 28}" stroke="none" text-anchor="end">address (bytes) →</text>`);
  out.push(`</g>`);
  // Time axis on the left.
  const every = Math.max(1, Math.ceil(12 / rowH));
  out.push(`<g class="y-axis">`);
  out.push(`<text x="4" y="${MARGIN_TOP - 28}">step ↓</text>`);
  for (let s = minStep; s <= maxStep; s += every) {
    out.push(`<text x="${MARGIN_LEFT - 6}" y="${num(y(s) + rowH / 2 + 4)}" text-anchor="end">${s}</text>`);
  }
  out.push(`</g>`);
  // Buffers: the only <rect> elements in the document, one per buffer. Translucent, so buffers
  // that share bytes (DMO safe overlaps, in-place ops) show both; shared areas are hatched.
  out.push(`<defs><pattern id="shared" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><path d="M0 0V6" stroke="#000" stroke-width="1.2"/></pattern></defs>`);
  out.push(`<g class="buffers" stroke="#222" stroke-width="0.5" fill-opacity="0.8">`);
  const labels: string[] = [];
  const box = (i: number, r: BufferRequest): { x0: number; x1: number; y0: number; y1: number } => {
    const off = plan.offsets[i] ?? 0;
    return { x0: x(off), x1: Math.max(x(off) + 0.5, x(off + r.sizeBytes)), y0: y(r.firstStep), y1: y(r.lastStep + 1) };
  };
  requests.forEach((r, i) => {
    const off = plan.offsets[i] ?? 0;
    const b = box(i, r);
    const tip = `${r.name}: ${r.sizeBytes} B at ${off}, steps ${r.firstStep}..${r.lastStep}`;
    out.push(`<rect id="buffer-${i}" class="buffer" x="${num(b.x0)}" y="${num(b.y0)}" width="${num(b.x1 - b.x0)}" height="${num(b.y1 - b.y0)}" fill="${colour(i)}"><title>${escapeXml(tip)}</title></rect>`);
    if (b.x1 - b.x0 >= 10 && b.y1 - b.y0 >= 10) {
      labels.push(`<text x="${num((b.x0 + b.x1) / 2)}" y="${num(b.y0 + Math.min(rowH, b.y1 - b.y0) / 2 + 4)}" text-anchor="middle">${escapeXml(ordinalCharacter(i))}</text>`);
    }
  });
  out.push(`</g>`);
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
      shared.push(`<path d="M${num(x(lo))} ${num(y0)}H${num(Math.max(x(hi), x(lo) + 1))}V${num(y1)}H${num(x(lo))}Z"><title>${escapeXml(`${ordinalCharacter(i)} and ${ordinalCharacter(j)} share ${hi - lo} B`)}</title></path>`);
    }
  });
  if (shared.length) out.push(`<g class="shared" fill="url(#shared)" stroke="#000" stroke-width="0.8">`, ...shared, `</g>`);
  // Labels last, with a white halo, so no buffer hides another's label.
  out.push(`<g class="labels" stroke="white" stroke-width="3" paint-order="stroke" fill="#000">`, ...labels, `</g>`);
  if (shared.length) {
    out.push(`<path d="M${MARGIN_LEFT + 150} ${MARGIN_TOP - 38}h12v10h-12Z" fill="url(#shared)" stroke="#000" stroke-width="0.8"/><text x="${MARGIN_LEFT + 168}" y="${MARGIN_TOP - 29}">bytes shared by buffers live at the same step (safe overlap / in place)</text>`);
  }
  // Legend.
  out.push(`<g class="legend">`);
  requests.forEach((r, i) => {
    const lx = 8 + (i % legendCols) * LEGEND_COL;
    const ly = legendTop + Math.floor(i / legendCols) * LEGEND_ROW;
    const size = ` (${formatBytes(r.sizeBytes)})`;
    const room = LEGEND_CHARS - size.length - 2;
    const short = `${ordinalCharacter(i)} ${r.name.length > room ? `${r.name.slice(0, room - 1)}…` : r.name}${size}`;
    out.push(`<circle cx="${lx + 5}" cy="${ly - 4}" r="5" fill="${colour(i)}"/>`);
    out.push(`<text x="${lx + 14}" y="${ly}">${escapeXml(short)}</text>`);
  });
  out.push(`</g>`);
  out.push(`</svg>`);
  return `${out.join('\n')}\n`;
}
