// The Optimize view: before / after planned and whole arena and the chosen board's latency (the
// page contract's optimized-planned-bytes and optimized-arena-bytes), what each pass did, the plan
// picture after, and the link to the optimized file (`a[data-download="optimized"]`).
import { byId, bytesText, clearMetrics, downloadLink, el, msText, pctChange, row, setMetric, table } from '../dom.ts';
import type { Optimized } from '../protocol.ts';

export const OPTIMIZE_METRICS = ['optimized-planned-bytes', 'optimized-arena-bytes'] as const;

export function clearOptimized(): void {
  clearMetrics(...OPTIMIZE_METRICS);
  byId('optimize-result').replaceChildren();
  byId('downloads').replaceChildren();
}

function change(before: number, after: number): HTMLElement {
  return el('span', { class: after < before ? 'better' : after > before ? 'worse' : '' }, pctChange(before, after));
}

export function renderOptimized(o: Optimized): void {
  const compare = table(['', 'before', 'after', 'change'], [
    row(['planned arena', bytesText(o.before.peakBytes), el('span', { 'data-metric': 'optimized-planned-bytes' }), change(o.before.peakBytes, o.after.peakBytes)]),
    row([`whole arena (Cortex-M build, ${o.runtime})`, bytesText(o.before.arenaBytes), el('span', { 'data-metric': 'optimized-arena-bytes' }), change(o.before.arenaBytes, o.after.arenaBytes)]),
    ...(o.otherRuntime === null ? [] : [row([`whole arena on ${o.otherRuntime.runtime} (the file needs mcusim's ops)`, bytesText(o.otherRuntime.beforeBytes), bytesText(o.otherRuntime.afterBytes), change(o.otherRuntime.beforeBytes, o.otherRuntime.afterBytes)])]),
    row([`latency on ${o.board}`, msText(o.before.latencyMs), el('span', { 'data-metric': 'optimized-latency-ms' }), change(o.before.latencyMs, o.after.latencyMs)]),
  ], { class: 'compare' });
  const passes = table(['pass', 'applied', 'peak before', 'peak after', 'notes'], o.passes.map((p) => row([
    p.pass, p.applied ? 'yes' : 'no', bytesText(p.peakBytesBefore), bytesText(p.peakBytesAfter), el('div', { class: 'mono' }, ...p.notes.flatMap((n) => [n, el('br')])),
  ])));
  const picture = el('div', { class: 'picture' });
  picture.innerHTML = o.planSvg;
  byId('optimize-result').replaceChildren(
    el('p', { class: 'mono' }, `mcusim optimize MODEL ${o.flags} -o ${o.fileName}`),
    ...(o.target === null ? [] : [el('p', { class: 'warning' }, o.target)]),
    ...(o.refused === null ? [] : [el('p', { class: 'warning', 'data-refused': 'true' }, `${o.refused} (as \`mcusim optimize\`, which exits 1 and writes no file)`)]),
    compare,
    el('h3', {}, 'passes'),
    passes,
    el('h3', {}, 'plan after (same byte scale as the plan above)'),
    picture,
  );
  setMetric('optimized-planned-bytes', o.after.peakBytes, bytesText(o.after.peakBytes));
  setMetric('optimized-arena-bytes', o.after.arenaBytes, bytesText(o.after.arenaBytes));
  setMetric('optimized-latency-ms', o.after.latencyMs, msText(o.after.latencyMs));
}

/** The download row: the optimized file, then buttons for the generated code and the report. */
export function renderDownloads(o: Optimized, onGenerate: (kind: 'tflm-kernels' | 'c-port' | 'report', button: HTMLButtonElement) => void): void {
  if (o.bytes === null) {
    byId('downloads').replaceChildren(el('span', { class: 'hint' }, 'Nothing to take home: optimize wrote no file.'));
    return;
  }
  const link = downloadLink(o.bytes, o.fileName, 'application/octet-stream', { 'data-download': 'optimized' });
  const button = (kind: 'tflm-kernels' | 'c-port' | 'report', text: string): HTMLButtonElement => {
    const b = el('button', { class: 'secondary', 'data-action': `download-${kind}` }, text);
    b.addEventListener('click', () => onGenerate(kind, b));
    return b;
  };
  byId('downloads').replaceChildren(
    el('span', {}, 'Take it home: '), link,
    button('tflm-kernels', `TFLM kernels (.zip)${o.customOps.length > 0 ? ` for ${o.customOps.length} custom op(s)` : ''}`),
    button('c-port', 'C port (.zip)'),
    button('report', 'HTML report'),
  );
}

/** Replaces a generate button with the link to what it generated. */
export function showGenerated(button: HTMLButtonElement, bytes: Uint8Array, fileName: string, mime: string, kind: string, note: string): void {
  const link = downloadLink(bytes, fileName, mime, { 'data-download': kind, title: note });
  button.replaceWith(el('span', {}, link, el('span', { class: 'hint' }, ` (${note})`)));
}
