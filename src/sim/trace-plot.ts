// Memory-trace plot like the DMO paper's Figures 2 and 3: arena address on x, time (event step)
// on y growing downwards; loads red, stores blue, updates (a store to a byte the same op loaded
// before) green, buffers' in-use areas grey. Events are binned into a bounded grid while
// streaming (time bins double when full), so big models give a bounded number of SVG marks.
import type { Graph } from '../ir/index.ts';
import { byteSize } from '../ir/index.ts';
import type { TraceSink } from '../kernels/index.ts';
import { escapeXml as escapeText, svgTextLines } from './svg-text.ts';

export interface TracePlotOptions {
  readonly arenaBytes: number;
  /** When given with tensorOffsets: grey in-use areas (producer start .. last reader end). */
  readonly graph?: Graph;
  readonly tensorOffsets?: readonly (number | null)[];
  /** Grid resolution (address bins x time bins); defaults 480 x 360. */
  readonly columns?: number;
  readonly rows?: number;
  /** Only plot this address window [lo, hi) (e.g. one op's input and output). */
  readonly addressRange?: readonly [number, number];
}

export interface TracePlotRegion {
  readonly label: string;
  readonly offset: number;
  readonly size: number;
  readonly firstStep: number;
  readonly lastStep: number;
}

export interface TracePlotData {
  readonly addressLo: number;
  readonly addressHi: number;
  readonly bytesPerColumn: number;
  readonly columns: number;
  readonly rows: number;
  readonly stepsPerRow: number;
  readonly totalSteps: number;
  /** columns x rows cells, bit 1 load, 2 store, 4 update. */
  readonly cells: Uint8Array;
  readonly regions: readonly TracePlotRegion[];
  /** Each op's event span [firstStep, lastStep), in execution order (the y-axis op ticks). */
  readonly ops: readonly TracePlotOpSpan[];
}

export interface TracePlotOpSpan {
  readonly op: number;
  readonly label: string;
  readonly firstStep: number;
  readonly lastStep: number;
}

const LOAD = 1;
const STORE = 2;
const UPDATE = 4;

export class TracePlot {
  readonly sink: TraceSink;
  private readonly opts: TracePlotOptions;
  private readonly lo: number;
  private readonly hi: number;
  private readonly bpc: number;
  private readonly cols: number;
  private readonly rows: number;
  private cells: Uint8Array;
  private spr = 1;
  private step = 0;
  private readonly lastLoadOp: Int32Array;
  private readonly opFirst = new Map<number, number>();
  private readonly opLast = new Map<number, number>();

  constructor(opts: TracePlotOptions) {
    this.opts = opts;
    [this.lo, this.hi] = opts.addressRange ?? [0, opts.arenaBytes];
    const span = Math.max(1, this.hi - this.lo);
    const want = Math.max(1, Math.floor(opts.columns ?? 480));
    this.bpc = Math.ceil(span / want);
    this.cols = Math.ceil(span / this.bpc);
    this.rows = Math.max(2, Math.floor(opts.rows ?? 360));
    this.cells = new Uint8Array(this.cols * this.rows);
    this.lastLoadOp = new Int32Array(span).fill(-1);
    this.sink = (op, log, n) => this.add(op, log, n);
  }

  private add(op: number, log: Int32Array, count: number): void {
    if (!this.opFirst.has(op)) this.opFirst.set(op, this.step);
    const { lo, hi, bpc, cols, lastLoadOp } = this;
    for (let i = 0; i < count; i++) {
      const h = log[2 * i] as number;
      const addr = log[2 * i + 1] as number;
      const step = this.step++;
      if (addr < lo || addr >= hi) continue;
      while (Math.floor(step / this.spr) >= this.rows) this.halveTime();
      const rel = addr - lo;
      let bit = LOAD;
      if (h & 8) bit = lastLoadOp[rel] === op ? UPDATE : STORE;
      else lastLoadOp[rel] = op;
      const cell = Math.floor(step / this.spr) * cols + Math.floor(rel / bpc);
      this.cells[cell] = (this.cells[cell] as number) | bit;
    }
    this.opLast.set(op, this.step);
  }

  private halveTime(): void {
    const next = new Uint8Array(this.cells.length);
    for (let r = 0; r < this.rows; r++) {
      const to = (r >> 1) * this.cols;
      for (let c = 0; c < this.cols; c++) next[to + c] = (next[to + c] as number) | (this.cells[r * this.cols + c] as number);
    }
    this.cells = next;
    this.spr *= 2;
  }

  data(): TracePlotData {
    return {
      addressLo: this.lo, addressHi: this.hi, bytesPerColumn: this.bpc, columns: this.cols, rows: this.rows,
      stepsPerRow: this.spr, totalSteps: this.step, cells: this.cells, regions: this.regions(), ops: this.opSpans(),
    };
  }

  private opSpans(): TracePlotOpSpan[] {
    return [...this.opFirst.entries()].map(([op, first]) => {
      const kind = this.opts.graph?.ops[op]?.kind;
      return { op, label: kind === undefined ? `op ${op}` : `${op} ${kind}`, firstStep: first, lastStep: this.opLast.get(op) ?? first };
    });
  }

  private regions(): TracePlotRegion[] {
    const { graph, tensorOffsets } = this.opts;
    if (!graph || !tensorOffsets) return [];
    const out: TracePlotRegion[] = [];
    graph.tensors.forEach((t, i) => {
      const off = tensorOffsets[i];
      if (off === undefined || off === null || t.data !== null) return;
      const size = byteSize(t.dtype, t.shape);
      const producers = graph.ops.flatMap((op, k) => (op.outputs.includes(i) ? [k] : []));
      const readers = graph.ops.flatMap((op, k) => (op.inputs.includes(i) ? [k] : []));
      const first = producers.length ? (this.opFirst.get(Math.min(...producers)) ?? null) : 0;
      const lastOp = graph.outputs.includes(i) || !readers.length ? null : Math.max(...readers);
      const last = lastOp === null ? this.step : (this.opLast.get(lastOp) ?? null);
      if (first === null || last === null || size === 0) return;
      out.push({ label: `${i} ${t.name}`, offset: off, size, firstStep: first, lastStep: last });
    });
    return out;
  }
}

const COLOURS: Readonly<Record<number, string>> = { [LOAD]: '#d62728', [STORE]: '#1f77b4', [UPDATE]: '#2ca02c' };

/** Cell colour: update beats store beats load. */
function colourBit(bits: number): number {
  return bits & UPDATE ? UPDATE : bits & STORE ? STORE : bits & LOAD ? LOAD : 0;
}

/** A 1-2-5 step giving about `target` ticks over `span`. */
function niceStep(span: number, target: number): number {
  const raw = Math.max(1, span / target);
  const pow = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 2, 5]) if (m * pow >= raw) return m * pow;
  return 10 * pow;
}

function bytesLabel(b: number, unit: number): string {
  return unit === 1 ? `${b}` : `${Number.isInteger(b / unit) ? b / unit : (b / unit).toFixed(1)}${unit === 1024 ? 'K' : 'M'}`;
}

/** An address marked by a vertical line across the plot (e.g. where the input starts at O_s). */
export interface TraceMarker {
  readonly address: number;
  readonly label: string;
  /** Shade [address, spanTo) too (e.g. the O_s bytes the input may share with the output). */
  readonly spanTo?: number;
}

export interface TraceSvgOptions {
  readonly markers?: readonly TraceMarker[];
}

/** The plot as a standalone SVG document (pure string); a long title wraps instead of clipping. */
export function renderTraceSvg(d: TracePlotData, title = 'memory trace', options: TraceSvgOptions = {}): string {
  const W = 900;
  const left = 70;
  const head = svgTextLines(title, left, 16, W - left - 8, 13, 'class="title"');
  const legendY = head.bottom + 10;
  const top = legendY + 22 + ((options.markers?.length ?? 0) > 0 ? 14 : 0);
  const H = top + 592;
  const right = 120;
  const pw = W - left - right;
  const ph = H - top - 56;
  const cw = pw / d.columns;
  const span = Math.max(1, d.addressHi - d.addressLo);
  const steps = Math.max(1, d.totalSteps);
  const xOf = (addr: number): number => left + ((addr - d.addressLo) / span) * pw;
  const yOf = (step: number): number => top + (Math.min(step, steps) / steps) * ph;
  const rh = (d.stepsPerRow / steps) * ph;
  const swatch = (x: number, colour: string, label: string): string =>
    `<rect x="${x}" y="${legendY}" width="10" height="10" fill="${colour}" stroke="#666" stroke-width="0.5"/><text x="${x + 14}" y="${legendY + 9}">${label}</text>`;
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="11">`,
    `<rect width="${W}" height="${H}" fill="white"/>`,
    head.svg,
    swatch(left, COLOURS[LOAD] as string, 'load'),
    swatch(left + 60, COLOURS[STORE] as string, 'store'),
    swatch(left + 125, COLOURS[UPDATE] as string, 'update (load then store, same op)'),
    swatch(left + 350, '#d9d9d9', 'in use (producer start .. last reader end)'),
  ];
  // In-use areas with outlines so neighbouring buffers stay apart; tensor index where it fits.
  const labels: string[] = [];
  for (const r of d.regions) {
    const x0 = Math.max(left, xOf(r.offset));
    const x1 = Math.min(left + pw, xOf(r.offset + r.size));
    if (x1 <= x0) continue;
    const y0 = yOf(r.firstStep);
    const h = Math.max(0.5, yOf(r.lastStep) - y0);
    out.push(`<rect x="${x0.toFixed(2)}" y="${y0.toFixed(2)}" width="${(x1 - x0).toFixed(2)}" height="${h.toFixed(2)}" fill="#d9d9d9" fill-opacity="0.6" stroke="#a0a0a0" stroke-width="0.5"><title>${escapeText(`tensor ${r.label}: ${r.size} B at ${r.offset}`)}</title></rect>`);
    const tag = r.label.split(' ')[0] ?? '';
    if (x1 - x0 >= 7 * tag.length + 6 && h >= 14) labels.push(`<text x="${(x1 - 3).toFixed(2)}" y="${(y0 + 11).toFixed(2)}" text-anchor="end" font-size="9" fill="#555">${escapeText(tag)}</text>`);
  }
  for (let row = 0; row < d.rows; row++) {
    let c = 0;
    while (c < d.columns) {
      const bit = colourBit(d.cells[row * d.columns + c] ?? 0);
      let e = c + 1;
      while (e < d.columns && colourBit(d.cells[row * d.columns + e] ?? 0) === bit) e++;
      if (bit !== 0) {
        out.push(`<rect x="${(left + c * cw).toFixed(2)}" y="${yOf(row * d.stepsPerRow).toFixed(2)}" width="${((e - c) * cw).toFixed(2)}" height="${Math.max(0.5, Math.min(rh, top + ph - yOf(row * d.stepsPerRow))).toFixed(2)}" fill="${COLOURS[bit]}"/>`);
      }
      c = e;
    }
  }
  out.push(...labels);
  // Op boundaries: a faint guide across the plot and the op's name on the right where it fits.
  let lastLabelY = -Infinity;
  for (const o of d.ops) {
    const y0 = yOf(o.firstStep);
    const y1 = yOf(o.lastStep);
    if (o.firstStep > 0) out.push(`<line x1="${left}" y1="${y0.toFixed(2)}" x2="${left + pw + 4}" y2="${y0.toFixed(2)}" stroke="#888" stroke-width="0.4" stroke-dasharray="3 3"/>`);
    const ly = Math.max(y0 + 9, (y0 + y1) / 2 + 4);
    if (ly - lastLabelY >= 11 && ly <= top + ph + 4) {
      out.push(`<text x="${left + pw + 6}" y="${ly.toFixed(2)}" font-size="9" fill="#333">${escapeText(o.label)}</text>`);
      lastLabelY = ly;
    }
  }
  // Address ticks in B / KB / MB.
  const unit = span < 4096 ? 1 : span < 4 * 1024 * 1024 ? 1024 : 1024 * 1024;
  const tick = niceStep(span / unit, 8) * unit;
  for (let b = Math.ceil(d.addressLo / tick) * tick; b <= d.addressHi; b += tick) {
    const x = xOf(b);
    out.push(`<line x1="${x.toFixed(2)}" y1="${top + ph}" x2="${x.toFixed(2)}" y2="${top + ph + 4}" stroke="black"/>`);
    if (d.addressHi - b >= tick / 2 || b === d.addressHi) out.push(`<text x="${x.toFixed(2)}" y="${top + ph + 16}" text-anchor="middle">${bytesLabel(b, unit)}</text>`);
  }
  (options.markers ?? []).forEach((m, i) => {
    if (m.address < d.addressLo || m.address > d.addressHi) return;
    const px = xOf(m.address);
    const mx = px.toFixed(2);
    const anchor = px < left + 160 ? 'start' : px > left + pw - 160 ? 'end' : 'middle';
    if (m.spanTo !== undefined && m.spanTo > m.address) {
      out.push(`<rect class="marker-span" x="${mx}" y="${top}" width="${(xOf(Math.min(m.spanTo, d.addressHi)) - px).toFixed(2)}" height="${ph}" fill="#6a1b9a" fill-opacity="0.10"/>`);
    }
    out.push(`<line class="marker" x1="${mx}" y1="${top - 6}" x2="${mx}" y2="${top + ph}" stroke="#6a1b9a" stroke-width="1.5" stroke-dasharray="5 3"/>`);
    out.push(`<text x="${mx}" y="${top - 8 - (i % 2) * 11}" text-anchor="${anchor}" fill="#6a1b9a" font-weight="bold">${escapeText(m.label)}</text>`);
  });
  out.push(
    `<rect x="${left}" y="${top}" width="${pw}" height="${ph}" fill="none" stroke="black"/>`,
    `<text x="${left + pw}" y="${top + ph + 30}" text-anchor="end">${d.addressHi} B</text>`,
    `<text x="${left + pw / 2}" y="${top + ph + 40}" text-anchor="middle">arena address (bytes${unit === 1 ? '' : unit === 1024 ? ', K = 1024' : ', M = 2^20'})</text>`,
    `<text x="${left + pw + 6}" y="${top - 4}" font-size="10" fill="#333">op</text>`,
    `<text x="${left - 5}" y="${top + 10}" text-anchor="end">0</text>`,
    `<text x="${left - 5}" y="${top + ph}" text-anchor="end">${steps}</text>`,
    `<text x="15" y="${top + ph / 2}" transform="rotate(-90 15 ${top + ph / 2})" text-anchor="middle">time (arena accesses) →</text>`,
    '</svg>',
  );
  return `${out.join('\n')}\n`;
}
