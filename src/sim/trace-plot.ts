// Memory-trace plot like the DMO paper's Figures 2 and 3: arena address on x, time (event step)
// on y growing downwards; loads red, stores blue, updates (a store to a byte the same op loaded
// before) green, buffers' in-use areas grey. Events are binned into a bounded grid while
// streaming (time bins double when full), so big models give a bounded number of SVG marks.
import type { Graph } from '../ir/index.ts';
import { byteSize } from '../ir/index.ts';
import type { TraceSink } from '../kernels/index.ts';

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
      stepsPerRow: this.spr, totalSteps: this.step, cells: this.cells, regions: this.regions(),
    };
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

/** The plot as a standalone SVG document (pure string). */
export function renderTraceSvg(d: TracePlotData, title = 'memory trace'): string {
  const W = 800;
  const H = 600;
  const left = 70;
  const top = 40;
  const pw = W - left - 20;
  const ph = H - top - 50;
  const cw = pw / d.columns;
  const span = Math.max(1, d.addressHi - d.addressLo);
  const steps = Math.max(1, d.totalSteps);
  const xOf = (addr: number): number => left + ((addr - d.addressLo) / span) * pw;
  const yOf = (step: number): number => top + (Math.min(step, steps) / steps) * ph;
  const rh = (d.stepsPerRow / steps) * ph;
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="11">`,
    `<rect width="${W}" height="${H}" fill="white"/>`,
    `<text x="${left}" y="16" font-size="13">${escapeText(title)}</text>`,
    `<text x="${left}" y="32">load <tspan fill="${COLOURS[LOAD]}">&#9632;</tspan> store <tspan fill="${COLOURS[STORE]}">&#9632;</tspan> update <tspan fill="${COLOURS[UPDATE]}">&#9632;</tspan> in use <tspan fill="#cccccc">&#9632;</tspan></text>`,
  ];
  for (const r of d.regions) {
    const x0 = Math.max(left, xOf(r.offset));
    const x1 = Math.min(left + pw, xOf(r.offset + r.size));
    if (x1 <= x0) continue;
    const y0 = yOf(r.firstStep);
    out.push(`<rect x="${x0.toFixed(2)}" y="${y0.toFixed(2)}" width="${(x1 - x0).toFixed(2)}" height="${Math.max(0.5, yOf(r.lastStep) - y0).toFixed(2)}" fill="#cccccc" opacity="0.6"><title>${escapeText(r.label)}</title></rect>`);
  }
  for (let row = 0; row < d.rows; row++) {
    let c = 0;
    while (c < d.columns) {
      const bit = colourBit(d.cells[row * d.columns + c] ?? 0);
      let e = c + 1;
      while (e < d.columns && colourBit(d.cells[row * d.columns + e] ?? 0) === bit) e++;
      if (bit !== 0) {
        out.push(`<rect x="${(left + c * cw).toFixed(2)}" y="${yOf(row * d.stepsPerRow).toFixed(2)}" width="${((e - c) * cw).toFixed(2)}" height="${Math.min(rh, top + ph - yOf(row * d.stepsPerRow)).toFixed(2)}" fill="${COLOURS[bit]}"/>`);
      }
      c = e;
    }
  }
  out.push(
    `<rect x="${left}" y="${top}" width="${pw}" height="${ph}" fill="none" stroke="black"/>`,
    `<text x="${left}" y="${top + ph + 15}">${d.addressLo}</text>`,
    `<text x="${left + pw}" y="${top + ph + 15}" text-anchor="end">${d.addressHi} B</text>`,
    `<text x="${left + pw / 2}" y="${top + ph + 32}" text-anchor="middle">arena address (bytes)</text>`,
    `<text x="${left - 5}" y="${top + 10}" text-anchor="end">0</text>`,
    `<text x="${left - 5}" y="${top + ph}" text-anchor="end">${steps}</text>`,
    `<text x="15" y="${top + ph / 2}" transform="rotate(-90 15 ${top + ph / 2})" text-anchor="middle">time (access)</text>`,
    '</svg>',
  );
  return `${out.join('\n')}\n`;
}

function escapeText(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
