// Small DOM helpers of the page (UI thread): element building, the figures the page contract reads
// (`[data-metric=NAME][data-value=RAW]`, the raw value set only once final) and number formats.

type Attrs = Readonly<Record<string, string | number | boolean | undefined>>;
type Child = Node | string | null | undefined | false;

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === false) continue;
    if (k === 'class') e.className = String(v);
    else e.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children) if (c !== null && c !== undefined && c !== false) e.append(c);
  return e;
}

export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const e = document.getElementById(id);
  if (e === null) throw new Error(`page: no element #${id}`);
  return e as T;
}

/** Sets a figure: its text and, final, its raw value (what the page contract reads). */
export function setMetric(name: string, raw: number | string, text: string): void {
  for (const e of document.querySelectorAll<HTMLElement>(`[data-metric="${name}"]`)) {
    e.textContent = text;
    e.dataset.value = String(raw);
  }
}

/** Clears figures (no data-value) while new ones are computed. */
export function clearMetrics(...names: string[]): void {
  for (const name of names) {
    for (const e of document.querySelectorAll<HTMLElement>(`[data-metric="${name}"]`)) {
      e.textContent = '…';
      delete e.dataset.value;
    }
  }
}

const group = (n: number): string => Math.round(n).toLocaleString('en-US');

/** "65,552 B (64.0 KB)". */
export function bytesText(n: number): string {
  return Math.abs(n) < 1024 ? `${group(n)} B` : `${group(n)} B (${(n / 1024).toFixed(1)} KB)`;
}

export const intText = group;

/** "349.8 KB" (a table cell; the exact bytes go in its title). */
export function kbText(n: number): string {
  return `${(n / 1024).toLocaleString('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 })} KB`;
}

export function msText(ms: number): string {
  return `${ms < 10 ? ms.toFixed(3) : ms.toFixed(2)} ms`;
}

export function pctChange(before: number, after: number): string {
  if (before === 0) return '-';
  const p = ((after - before) / before) * 100;
  return `${p > 0 ? '+' : ''}${p.toFixed(1)}%`;
}

/** A table from headers and rows of cells (strings or nodes). */
export function table(headers: readonly string[], rows: readonly HTMLTableRowElement[], attrs: Attrs = {}): HTMLTableElement {
  const head = el('thead', {}, el('tr', {}, ...headers.map((h) => el('th', {}, h))));
  return el('table', attrs, head, el('tbody', {}, ...rows));
}

export function row(cells: readonly Child[], attrs: Attrs = {}): HTMLTableRowElement {
  return el('tr', attrs, ...cells.map((c) => el('td', {}, c)));
}

/** Offers bytes as a file download through a link; returns the link (its object URL lives with the page). */
export function downloadLink(bytes: Uint8Array, fileName: string, mime: string, attrs: Attrs = {}): HTMLAnchorElement {
  const url = URL.createObjectURL(new Blob([bytes as BlobPart], { type: mime }));
  return el('a', { href: url, download: fileName, ...attrs }, fileName);
}
