// The op table: every op's kind, shapes, MACs and compute time on the chosen board (with its kernel
// path), a button for its O_s; rows light up when a plan buffer is hovered. The O_s detail shows
// the three methods' figures and the op's trace picture (the library's renderOpTraceSvg).
import { byId, bytesText, el, intText, row, table } from '../dom.ts';
import type { Analysis, Overlap } from '../protocol.ts';

export function renderOps(a: Analysis, onOverlap: (opIndex: number) => void): void {
  const rows = a.ops.map((o) => {
    const button = el('button', { class: 'os-button secondary', 'data-op': o.index, title: `O_s of op ${o.index}` }, 'O_s');
    button.addEventListener('click', () => onOverlap(o.index));
    const r = row([String(o.index), o.kind, o.inputShapes, o.outputShapes, intText(o.macs), o.ms.toFixed(3), el('span', { class: 'mono' }, o.path), button], { 'data-op': o.index });
    return r;
  });
  const t = table(['op', 'kind', 'inputs', 'outputs', 'MACs', `ms on ${a.latency.board}`, 'kernel path', ''], rows);
  byId('op-table').replaceChildren(el('div', { class: 'scroll' }, t));
  byId('overlap-detail').replaceChildren();
}

/** Lights the op that wrote a hovered buffer and the last op that reads it (null: none). */
export function lightOps(producer: number | null, consumer: number | null): void {
  for (const r of document.querySelectorAll<HTMLTableRowElement>('#op-table tr[data-op]')) {
    const i = Number(r.dataset.op);
    r.classList.toggle('lit', i === producer);
    r.classList.toggle('lit-consumer', i === consumer && i !== producer);
  }
  // Scroll the table's own box to the lit row, never the page (the pointer is on the plan).
  const lit = producer === null ? null : document.querySelector<HTMLTableRowElement>(`#op-table tr[data-op="${producer}"]`);
  const box = lit?.closest<HTMLElement>('.scroll');
  if (lit && box && (lit.offsetTop < box.scrollTop + 24 || lit.offsetTop + lit.offsetHeight > box.scrollTop + box.clientHeight)) {
    box.scrollTop = Math.max(0, lit.offsetTop - box.clientHeight / 2);
  }
}

export function renderOverlap(o: Overlap): void {
  const box = byId('overlap-detail');
  const head = el('h3', {}, `O_s of op ${o.opIndex} ${o.kind}`);
  if (o.note !== null) {
    box.replaceChildren(head, el('p', { class: 'hint' }, `no safe overlap to measure: ${o.note}`));
    return;
  }
  const rows = Object.entries(o.os).map(([m, v]) => row([m, bytesText(v), `${((100 * v) / Math.max(1, o.outputBytes)).toFixed(2)}%`], { 'data-method': m }));
  const picture = el('div', { class: 'picture' });
  if (o.traceSvg !== null) picture.innerHTML = o.traceSvg;
  box.replaceChildren(
    head,
    el('p', { class: 'hint' }, `input ${bytesText(o.inputBytes)}, output ${bytesText(o.outputBytes)}: the input may start O_s bytes before the output's end (as \`mcusim overlap\`; analytic is the reference kernels' closed form).`),
    table(['method', 'O_s', 'of output'], rows, { class: 'compact' }),
    picture,
  );
}
